/**
 * OpenAI image generation (`POST /v1/images/generations`), as OpenAI, SGLang diffusion and NIM visual GenAI serve it.
 * Reference: https://platform.openai.com/docs/api-reference/images/create — request `{prompt, model,
 * response_format: "b64_json", n: 1, stream?}` (size, quality, … through `--extra-inputs`), as AIPerf; answer
 * `{"created", "data": [{"b64_json" | "url"}…], "usage"?}`; streamed, `image_generation.partial_image` and
 * `image_generation.completed` events carrying `b64_json`. Images are not tokens: the table has latency, throughput and
 * ISL ("Image Generation Metrics"). An answer without an image is an error.
 */
import type { Turn } from "../../dataset/conversation.ts";
import type { BuildContext, Delta, EndpointAdapter } from "../endpoint_adapter.ts";
import {
  asObject,
  asText,
  type JsonObject,
  mergeExtras,
  openAiHeaders,
  parseSseJson,
  readApiError,
  readUsage,
} from "./openai_fields.ts";
import { IMAGE_GENERATION_ENDPOINT } from "../endpoint_declarations.ts";

/** An images answer (generation or edit): an error unless it holds at least one image. */
export function readImages(json: unknown): Delta {
  const obj = asObject(json);
  if (!obj) return { error: { message: "the response body is not a JSON object", type: "ParseError" } };
  const usage = readUsage(obj.usage);
  const error = readApiError(obj);
  if (error) return { error, usage };
  if (typeof obj.b64_json === "string") return { usage, finishReason: asText(obj.type) };
  const data = Array.isArray(obj.data) ? obj.data : [];
  const images = data.filter((d) => {
    const item = asObject(d);
    return item !== undefined && (typeof item.b64_json === "string" || typeof item.url === "string");
  });
  if (images.length === 0) return { usage, error: { message: "the response holds no image", type: "ParseError" } };
  return { usage };
}

/** 1×1 transparent PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

export const IMAGE_GENERATION_ADAPTER: EndpointAdapter = {
  ...IMAGE_GENERATION_ENDPOINT,
  usesHistory: false,
  headers: openAiHeaders,

  buildRequest(turn: Turn, ctx: BuildContext): Record<string, unknown> {
    const body: JsonObject = {
      prompt: turn.texts[0] ?? "",
      model: turn.model ?? ctx.model,
      response_format: "b64_json",
      n: 1,
    };
    if (ctx.streaming) body.stream = true;
    return mergeExtras(body, ctx.extraInputs, turn.extra);
  },

  parseEvent(data: string): Delta | undefined {
    const obj = parseSseJson(data);
    return obj ? readImages(obj) : undefined;
  },
  parseBody: readImages,
  inputText: (turn: Turn) => turn.texts[0] ?? "",

  sampleResponses: {
    stream: `event: image_generation.completed\ndata: {"type":"image_generation.completed","b64_json":"${PNG}",` +
      `"created_at":0,"size":"1x1","usage":{"input_tokens":3,"output_tokens":1,"total_tokens":4}}\n\n`,
    body: `{"created":0,"data":[{"b64_json":"${PNG}"}],"usage":{"input_tokens":3,"output_tokens":1,"total_tokens":4}}`,
  },
};
