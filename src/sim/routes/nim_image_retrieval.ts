/**
 * NVIDIA NIM image retrieval (`POST /v1/infer`), for `image_retrieval`: request `{"input": [{"type": "image_url",
 * "url": "data:image/…;base64,…"}…]}` (inline images only, as the NeMo Retriever object-detection NIMs take them);
 * answer `{"data": [{"index", "bounding_boxes": {<label>: [{x_min, y_min, x_max, y_max, confidence}]}}…], "usage":
 * {"images_size_mb"}}`, one entry per image, after the time to first token.
 */
import { badRequest, isJsonObject, requireObject } from "../request_fields.ts";
import type { ReplyContext, RouteRequest, SimRoute, StreamFraming } from "../sim_route.ts";
import { closingOnly, nonGenerating } from "./non_generating.ts";
import type { GenerationRequest } from "../generation_request.ts";

const BOXES = `{"table":[{"x_min":0.112,"y_min":0.084,"x_max":0.871,"y_max":0.392,"confidence":0.93}],` +
  `"chart":[{"x_min":0.151,"y_min":0.455,"x_max":0.702,"y_max":0.811,"confidence":0.88}],"title":[]}`;

class RetrievalRequest implements RouteRequest {
  readonly generation: GenerationRequest;
  readonly #images: number;
  readonly #sizeMb: number;

  constructor(generation: GenerationRequest, images: number, sizeMb: number) {
    this.generation = generation;
    this.#images = images;
    this.#sizeMb = sizeMb;
  }

  body(_reply: ReplyContext): string {
    const data = Array.from({ length: this.#images }, (_, i) => `{"index":${i},"bounding_boxes":${BOXES}}`);
    return `{"data":[${data.join(",")}],"usage":{"images_size_mb":${this.#sizeMb}}}`;
  }

  stream(reply: ReplyContext): StreamFraming {
    return closingOnly(`data: ${this.body(reply)}\n\n`);
  }
}

export const NIM_IMAGE_RETRIEVAL_ROUTE: SimRoute = {
  name: "image_retrieval",
  description: "NVIDIA NIM image retrieval (/v1/infer): a table and a chart box per inline image.",
  paths: ["/v1/infer"],
  idPrefix: "infer-",

  parse(body: unknown): RouteRequest {
    const json = requireObject(body);
    const input = json.input;
    if (!Array.isArray(input) || input.length === 0) {
      throw badRequest("'input' must be a non-empty list of image parts.", "input");
    }
    let bytes = 0;
    input.forEach((part, i) => {
      if (!isJsonObject(part) || part.type !== "image_url" || typeof part.url !== "string") {
        throw badRequest(`'input[${i}]' must be {"type": "image_url", "url": <data URL>}.`, `input[${i}]`);
      }
      if (!/^data:image\/[^;,]+;base64,/.test(part.url)) {
        throw badRequest(`'input[${i}].url' must be an inline data:image/…;base64 URL.`, `input[${i}].url`);
      }
      bytes += Math.floor((part.url.length - part.url.indexOf(",") - 1) * 3 / 4);
    });
    const sizeMb = Math.round(bytes / 1e6 * 1e6) / 1e6;
    return new RetrievalRequest(nonGenerating(undefined, []), input.length, sizeMb);
  },
};
