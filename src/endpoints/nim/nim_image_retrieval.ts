/**
 * NVIDIA NIM image retrieval (`POST /v1/infer`), as the NeMo Retriever page-elements, table-structure and
 * graphic-elements NIMs answer it (object detection on document pages).
 * Reference: https://docs.nvidia.com/nim/ingestion/object-detection/latest/api-reference.html — request
 * `{"input": [{"type": "image_url", "url": "data:image/png;base64,…"}…]}`, one part per image of the turn, inline only
 * (the NIM fetches nothing), no model field, other fields from `--extra-inputs`, as AIPerf sends it; answer
 * `{"data": [{"index", "bounding_boxes": {<label>: [{x_min, y_min, x_max, y_max, confidence}…]}}…], "usage"?}`. No
 * text goes either way: the table has latency and throughput ("Image Retrieval Metrics"); an answer without `data`
 * is an error.
 */
import type { Turn } from "../../dataset/conversation.ts";
import type { BuildContext, Delta, EndpointAdapter } from "../endpoint_adapter.ts";
import {
  asObject,
  type JsonObject,
  mergeExtras,
  openAiHeaders,
  parseSseJson,
  readApiError,
  readUsage,
} from "../openai/openai_fields.ts";
import { NIM_IMAGE_RETRIEVAL_ENDPOINT } from "../endpoint_declarations.ts";

function readDetections(json: unknown): Delta {
  const obj = asObject(json);
  if (!obj) return { error: { message: "the response body is not a JSON object", type: "ParseError" } };
  const usage = readUsage(obj.usage);
  const error = readApiError(obj);
  if (error) return { error, usage };
  if (!Array.isArray(obj.data) || obj.data.length === 0) {
    return { usage, error: { message: "the response holds no 'data'", type: "ParseError" } };
  }
  return { usage };
}

export const NIM_IMAGE_RETRIEVAL_ADAPTER: EndpointAdapter = {
  ...NIM_IMAGE_RETRIEVAL_ENDPOINT,
  usesHistory: false,
  headers: openAiHeaders,

  buildRequest(turn: Turn, ctx: BuildContext): Record<string, unknown> {
    const input = (turn.media ?? []).filter((m) => m.kind === "image").map((m) => ({
      type: "image_url",
      url: m.dataUrl ?? m.url,
    }));
    if (input.length === 0) throw new TypeError("image_retrieval needs an image input in every turn");
    const body: JsonObject = { input };
    return mergeExtras(body, ctx.extraInputs, turn.extra);
  },

  parseEvent(data: string): Delta | undefined {
    const obj = parseSseJson(data);
    return obj ? readDetections(obj) : undefined;
  },
  parseBody: readDetections,
  inputText: () => "",

  sampleResponses: {
    stream: `data: {"data":[{"index":0,"bounding_boxes":{"table":[{"x_min":0.1,"y_min":0.1,"x_max":0.5,` +
      `"y_max":0.4,"confidence":0.9}]}}]}\n\n`,
    body: `{"data":[{"index":0,"bounding_boxes":{"table":[{"x_min":0.1,"y_min":0.1,"x_max":0.5,"y_max":0.4,` +
      `"confidence":0.9}]}}],"usage":{"images_size_mb":0.01}}`,
  },
};
