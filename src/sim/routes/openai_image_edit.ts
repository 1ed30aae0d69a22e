/**
 * OpenAI image edit (`POST /v1/images/edits`), for `image_edit`: a multipart/form-data upload with `prompt`, `image`
 * (a file) or `url` (SGLang's remote reference image), `model`, `n` (≤ 10), `size`, `response_format`; answer
 * `{"created", "data": [{"b64_json"}…], "size"}`, one tiny PNG per image asked for, after the time to first token.
 */
import { badRequest } from "../request_fields.ts";
import type { RouteRequest, SimRoute } from "../sim_route.ts";
import { nonGenerating } from "./non_generating.ts";
import { ImagesRequest } from "./openai_images.ts";
import { formCount, formFile, formText, requireForm } from "./form_fields.ts";

export const OPENAI_IMAGE_EDIT_ROUTE: SimRoute = {
  name: "image_edit",
  description: "OpenAI image edit (/v1/images/edits): a multipart upload, one tiny PNG per image.",
  paths: ["/v1/images/edits"],
  idPrefix: "imgedit-",
  bodyFormat: "form",

  parse(body: unknown): RouteRequest {
    const form = requireForm(body);
    const prompt = formText(form, "prompt");
    if (prompt === undefined || prompt.length === 0) throw badRequest("'prompt' must be a non-empty text.", "prompt");
    const image = formFile(form, "image");
    const url = formText(form, "url");
    if (image === undefined && url === undefined) {
      throw badRequest("'image' (a file) or 'url' (the reference image) is required.", "image");
    }
    if (image !== undefined && !image.contentType.startsWith("image/")) {
      throw badRequest(`'image' must be an image file, not ${image.contentType || "untyped data"}.`, "image");
    }
    const n = formCount(form, "n", 1) ?? 1;
    if (n > 10) throw badRequest("'n' must be at most 10.", "n");
    const size = formText(form, "size") ?? "1024x1024";
    return new ImagesRequest(nonGenerating(formText(form, "model"), [prompt]), n, size);
  },
};
