/**
 * OpenAI image generation (`POST /v1/images/generations`), for `image_generation`.
 * Reference: https://platform.openai.com/docs/api-reference/images/create — request `{prompt, model, n, size,
 * response_format, stream}`; answer `{"created", "data": [{"b64_json"}…]}` (one 1×1 PNG per image asked for, `n`);
 * streamed, one `image_generation.completed` event. Nothing is generated token by token: the answer is immediate.
 */
import type { GenerationRequest } from "../generation_request.ts";
import { badRequest, optionalBoolean, optionalCount, requireObject } from "../request_fields.ts";
import type { ReplyContext, RouteRequest, SimRoute, StreamFraming } from "../sim_route.ts";
import { closingOnly, nonGenerating } from "./non_generating.ts";

/** 1×1 transparent PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/** An images answer (generation, and edit, whose answer is the same). */
export class ImagesRequest implements RouteRequest {
  readonly generation: GenerationRequest;
  readonly #n: number;
  readonly #size: string;

  constructor(generation: GenerationRequest, n: number, size: string) {
    this.generation = generation;
    this.#n = n;
    this.#size = size;
  }

  body(reply: ReplyContext): string {
    const data = Array.from({ length: this.#n }, () => `{"b64_json":"${PNG}"}`).join(",");
    return `{"created":${reply.created},"data":[${data}],"size":${JSON.stringify(this.#size)}}`;
  }

  stream(reply: ReplyContext): StreamFraming {
    return closingOnly(
      `event: image_generation.completed\ndata: {"type":"image_generation.completed","b64_json":"${PNG}",` +
        `"created_at":${reply.created},"size":${JSON.stringify(this.#size)}}\n\n`,
    );
  }
}

export const OPENAI_IMAGES_ROUTE: SimRoute = {
  name: "image_generation",
  description: "OpenAI image generation (/v1/images/generations), one tiny PNG per image.",
  paths: ["/v1/images/generations"],
  idPrefix: "img-",
  parse(body: unknown): RouteRequest {
    const json = requireObject(body);
    if (typeof json.prompt !== "string" || json.prompt.length === 0) {
      throw badRequest("'prompt' must be a non-empty string.", "prompt");
    }
    const n = optionalCount(json, "n", 1) ?? 1;
    if (n > 10) throw badRequest("'n' must be at most 10.", "n");
    const size = typeof json.size === "string" ? json.size : "1024x1024";
    const stream = optionalBoolean(json, "stream") ?? false;
    const model = typeof json.model === "string" ? json.model : undefined;
    return new ImagesRequest(nonGenerating(model, [json.prompt], stream), n, size);
  },
};
