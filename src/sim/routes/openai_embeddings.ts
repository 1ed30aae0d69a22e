/**
 * OpenAI embeddings as vLLM and NIM serve them (`POST /v1/embeddings`), for the `embeddings`, `nim_embeddings` and
 * `chat_embeddings` endpoint types. Reference: https://platform.openai.com/docs/api-reference/embeddings and vLLM's
 * chat-style embeddings request (`messages` instead of `input`).
 *
 * Request: `input` (a string, a list of strings, token ids, or lists of token ids) or `messages`, `model`,
 * `dimensions` (fewer than the server's, OpenAI's Matryoshka option), NIM's `input_type` and `truncate` (accepted).
 * Answer: `{"object":"list","data":[{"object":"embedding","embedding":[…],"index":i}…],"model","usage":
 * {"prompt_tokens","total_tokens"}}`, one deterministic unit vector per input (per request for `messages`), of
 * `serve-sim --embedding-dimensions` components.
 */
import type { GenerationRequest } from "../generation_request.ts";
import { badRequest, isJsonObject, optionalCount, requireObject } from "../request_fields.ts";
import type { ReplyContext, RouteRequest, SimRoute, StreamFraming } from "../sim_route.ts";
import { nonGenerating } from "./non_generating.ts";

class EmbeddingsRequest implements RouteRequest {
  readonly generation: GenerationRequest;
  readonly #inputs: readonly string[];
  readonly #dimensions: number | undefined;

  constructor(generation: GenerationRequest, inputs: readonly string[], dimensions: number | undefined) {
    this.generation = generation;
    this.#inputs = inputs;
    this.#dimensions = dimensions;
  }

  body(reply: ReplyContext): string {
    const dims = Math.min(this.#dimensions ?? reply.embeddingDimensions, reply.embeddingDimensions);
    const data = this.#inputs.map((text, i) =>
      `{"object":"embedding","embedding":${reply.vectors.json(text, dims)},"index":${i}}`
    );
    const p = reply.plan.promptTokens;
    return `{"id":"${reply.id}","object":"list","created":${reply.created},"model":${JSON.stringify(reply.model)},` +
      `"data":[${data.join(",")}],"usage":{"prompt_tokens":${p},"total_tokens":${p},"completion_tokens":0}}`;
  }

  stream(): StreamFraming {
    throw badRequest("Embeddings are not streamed.", "stream");
  }
}

export const OPENAI_EMBEDDINGS_ROUTE: SimRoute = {
  name: "embeddings",
  description: "OpenAI embeddings (input or chat messages), as vLLM and NIM answer them.",
  paths: ["/v1/embeddings"],
  servesTypes: ["nim_embeddings", "chat_embeddings"],
  idPrefix: "embd-",

  parse(body: unknown): RouteRequest {
    const json = requireObject(body);
    const model = typeof json.model === "string" ? json.model : undefined;
    if (json.stream === true) throw badRequest("Embeddings are not streamed; drop 'stream'.", "stream");
    const dimensions = optionalCount(json, "dimensions", 1);
    let inputs: string[];
    let promptTokenIds = 0;
    if (json.messages !== undefined) {
      inputs = [readMessagesText(json.messages)];
    } else {
      const input = json.input;
      if (typeof input === "string") inputs = [input];
      else if (Array.isArray(input) && input.length > 0 && input.every((x) => typeof x === "string")) {
        inputs = input as string[];
      } else if (Array.isArray(input) && input.length > 0 && input.every((x) => typeof x === "number")) {
        inputs = [input.join(" ")];
        promptTokenIds = input.length;
      } else if (Array.isArray(input) && input.length > 0 && input.every((x) => Array.isArray(x))) {
        inputs = (input as unknown[][]).map((ids) => ids.join(" "));
        promptTokenIds = (input as unknown[][]).reduce((n, ids) => n + ids.length, 0);
      } else {
        throw badRequest("'input' must be a string, a non-empty list of strings, or token ids.", "input");
      }
    }
    const generation = nonGenerating(model, promptTokenIds > 0 ? [] : inputs);
    return new EmbeddingsRequest({ ...generation, promptTokenIds }, inputs, dimensions);
  },
};

function readMessagesText(messages: unknown): string {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw badRequest("'messages' must be a non-empty array of messages.", "messages");
  }
  const texts: string[] = [];
  for (const m of messages) {
    if (!isJsonObject(m) || typeof m.role !== "string") {
      throw badRequest("every message must be an object with a string 'role'.", "messages");
    }
    if (typeof m.content === "string") texts.push(m.content);
    else if (Array.isArray(m.content)) {
      for (const part of m.content) {
        if (isJsonObject(part) && part.type === "text" && typeof part.text === "string") texts.push(part.text);
      }
    }
  }
  return texts.join("\n");
}
