/**
 * Hugging Face Text Generation Inference (`POST /generate`, streamed `POST /generate_stream`). Reference:
 * https://huggingface.github.io/text-generation-inference/ — request `{inputs, parameters: {max_new_tokens, …}}`;
 * answer `{"generated_text", "details"?}` (a one-element list from some versions); stream events
 * `{"index", "token": {"id", "text", "logprob", "special"}, "generated_text", "details"}`, the last one with the whole
 * text and `details`, which this adapter ignores for text (it would double every token) but reads for the finish
 * reason and `generated_tokens`.
 *
 * As AIPerf: the turn's texts are joined with spaces, `--extra-inputs` go into `parameters` (TGI's sampling options
 * live there), the turn's own extras at the top level. TGI reports no prompt token count.
 */
import type { Turn } from "../../dataset/conversation.ts";
import type { BuildContext, Delta, EndpointAdapter, Usage } from "../endpoint_adapter.ts";
import {
  asCount,
  asObject,
  asText,
  type JsonObject,
  openAiHeaders,
  parseSseJson,
  readApiError,
} from "../openai/openai_fields.ts";
import { HUGGINGFACE_GENERATE_ENDPOINT } from "../endpoint_declarations.ts";

function readDetails(obj: JsonObject): { usage?: Usage; finishReason?: string } {
  const details = asObject(obj.details);
  if (!details) return {};
  const generated = asCount(details.generated_tokens);
  // `input_length` is in newer TGI's stream details only.
  const input = asCount(details.input_length);
  return {
    usage: generated === undefined ? undefined : { completionTokens: generated, promptTokens: input },
    finishReason: asText(details.finish_reason),
  };
}

/** TGI's error shape is `{"error": "text", "error_type": "…"}`. */
function readError(obj: JsonObject): Delta["error"] | undefined {
  const error = readApiError(obj);
  if (error && typeof obj.error_type === "string") return { ...error, type: obj.error_type };
  return error;
}

const EVENT = (index: number, text: string, last: string) =>
  `data: {"index":${index},"token":{"id":${index},"text":"${text}","logprob":-0.5,"special":false},${last}}\n\n`;

export const HUGGINGFACE_GENERATE_ADAPTER: EndpointAdapter = {
  ...HUGGINGFACE_GENERATE_ENDPOINT,
  usesHistory: false,
  headers: openAiHeaders,

  buildRequest(turn: Turn, ctx: BuildContext): Record<string, unknown> {
    const parameters: JsonObject = {};
    if (ctx.maxTokens !== undefined) parameters.max_new_tokens = ctx.maxTokens;
    // TGI reports token counts only in `details`, which must be asked for; asked only when the run reads them.
    if (ctx.useServerTokenCount) parameters.details = true;
    for (const [k, v] of Object.entries(ctx.extraInputs)) parameters[k] = v;
    const body: JsonObject = { inputs: turn.texts.filter((t) => t.length > 0).join(" "), parameters };
    if (turn.extra) { for (const [k, v] of Object.entries(turn.extra)) body[k] = v; }
    return body;
  },

  requestedOutputTokens(body) {
    const v = asObject(body.parameters)?.max_new_tokens;
    return typeof v === "number" ? v : undefined;
  },

  parseEvent(data: string): Delta | undefined {
    const obj = parseSseJson(data);
    if (!obj) return undefined;
    const token = asObject(obj.token);
    return { content: token ? asText(token.text) : undefined, ...readDetails(obj), error: readError(obj) };
  },

  parseBody(json: unknown): Delta {
    const obj = Array.isArray(json) ? asObject(json[0]) : asObject(json);
    if (!obj) return { error: { message: "the response body is not a JSON object", type: "ParseError" } };
    return { content: asText(obj.generated_text), ...readDetails(obj), error: readError(obj) };
  },

  inputText: (turn: Turn) => turn.texts.filter((t) => t.length > 0).join(" "),

  sampleResponses: {
    stream: EVENT(1, " Hello", '"generated_text":null,"details":null') +
      EVENT(2, " world", '"generated_text":" Hello world","details":{"finish_reason":"length","generated_tokens":2}'),
    body: '{"generated_text":" Hello world","details":{"finish_reason":"length","generated_tokens":2}}',
  },
};
