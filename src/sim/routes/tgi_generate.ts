/**
 * Hugging Face Text Generation Inference (`POST /generate`, `POST /generate_stream`), for `huggingface_generate`.
 * Reference: https://huggingface.github.io/text-generation-inference/ — request `{inputs, parameters: {max_new_tokens,
 * details, …}, stream?}`; answer `{"generated_text", "details"?}`; streamed, one event per token
 * `{"index", "token": {"id", "text", "logprob", "special"}, "generated_text": null, "details": null}`, the last
 * carrying the whole text and, when `details` was asked for, `{"finish_reason", "generated_tokens", "seed",
 * "input_length"}`. TGI reports token counts only in `details`. `/generate` streams when `stream` is true.
 */
import type { GenerationRequest } from "../generation_request.ts";
import { badRequest, isJsonObject, optionalBoolean, optionalCount, requireObject } from "../request_fields.ts";
import type { ReplyContext, RouteRequest, SimRoute, StreamFraming } from "../sim_route.ts";

function finish(reason: string | null): string {
  return reason === "stop" ? "eos_token" : "length";
}

class TgiRequest implements RouteRequest {
  readonly generation: GenerationRequest;
  readonly #details: boolean;

  constructor(generation: GenerationRequest, details: boolean) {
    this.generation = generation;
    this.#details = details;
  }

  #detailsJson(reply: ReplyContext, stream: boolean): string {
    const { plan } = reply;
    const n = plan.reasoningTokens + plan.contentTokens;
    const input = stream ? `,"input_length":${plan.promptTokens}` : "";
    return `{"finish_reason":"${finish(plan.finishReason)}","generated_tokens":${n},"seed":null${input}}`;
  }

  body(reply: ReplyContext, _reasoning: string, content: string): string {
    const details = this.#details ? `,"details":${this.#detailsJson(reply, false)}` : "";
    return `{"generated_text":"${content}"${details}}`;
  }

  stream(reply: ReplyContext): StreamFraming {
    let text = "";
    const total = reply.plan.reasoningTokens + reply.plan.contentTokens;
    const details = this.#details ? this.#detailsJson(reply, true) : "null";
    return {
      open: () => "",
      chunk(chunk: string, _reasoning: boolean, sent: number): string {
        // The last token's event carries the whole text (the framing is told which chunk is last).
        const head = `data: {"index":${sent},"token":{"id":${sent},"text":"${chunk}","logprob":-0.5,"special":false},`;
        if (sent < total) {
          text += chunk;
          return `${head}"generated_text":null,"details":null}\n\n`;
        }
        text += chunk;
        return `${head}"generated_text":"${text}","details":${details}}\n\n`;
      },
      close: () => "",
    };
  }
}

export const TGI_GENERATE_ROUTE: SimRoute = {
  name: "huggingface_generate",
  description: "Hugging Face TGI (/generate, /generate_stream).",
  paths: ["/generate", "/generate_stream"],
  idPrefix: "tgi-",

  parse(body: unknown, path: string): RouteRequest {
    const json = requireObject(body);
    if (typeof json.inputs !== "string") throw badRequest("'inputs' must be a string.", "inputs");
    const parameters = json.parameters ?? {};
    if (!isJsonObject(parameters)) throw badRequest("'parameters' must be an object.", "parameters");
    const maxTokens = optionalCount(parameters, "max_new_tokens", 1);
    const details = optionalBoolean(parameters, "details", "parameters.") ?? false;
    const stream = path === "/generate_stream" || json.stream === true;
    const generation: GenerationRequest = {
      model: undefined,
      stream,
      maxTokens,
      minTokens: 0,
      ignoreEos: false,
      promptTexts: [json.inputs],
      promptTokenIds: 0,
      reasoning: undefined,
    };
    return new TgiRequest(generation, details);
  },
};
