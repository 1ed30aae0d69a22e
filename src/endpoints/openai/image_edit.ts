/**
 * OpenAI image edit (`POST /v1/images/edits`), as SGLang diffusion and FLUX.2 serving answer it.
 * Reference: https://platform.openai.com/docs/api-reference/images/createEdit — a multipart/form-data upload:
 * `prompt` (the turn's first text), `model`, `response_format: b64_json`, `n: 1` and `image` (the turn's first image,
 * `image.<ext>`), or `url` for a remote image (SGLang's extension), with other fields (size, quality, …) from
 * `--extra-inputs`, as AIPerf sends it; the answer is the image generation one, `{"created", "data": [{"b64_json" |
 * "url"}…], "usage"?}`. Images are not tokens: the table has latency, throughput and ISL ("Image Edit Metrics").
 */
import type { MediaItem, Turn } from "../../dataset/conversation.ts";
import type { BuildContext, Delta, EndpointAdapter } from "../endpoint_adapter.ts";
import { encodeMultipartForm, type FormFile, formHeaders, mediaFormFile } from "../multipart_form.ts";
import { type JsonObject, mergeExtrasExcept, parseSseJson } from "./openai_fields.ts";
import { readImages } from "./image_generation.ts";
import { IMAGE_EDIT_ENDPOINT } from "../endpoint_declarations.ts";

/** Fields the adapter writes from the turn: `--extra-inputs` and a turn's extras cannot replace them (AIPerf). */
const RESERVED = new Set(["prompt", "image", "url", "mask"]);

/** The reference image as a file upload; an image whose data URL is not an image type is refused. */
function imageFile(item: MediaItem): FormFile {
  const file = mediaFormFile(item);
  if (file === undefined || !file.content_type.startsWith("image/")) {
    throw new TypeError("the image to edit must be a data:image/… URL, a local file or an http(s) URL");
  }
  return file;
}

/** 1×1 transparent PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

export const IMAGE_EDIT_ADAPTER: EndpointAdapter = {
  ...IMAGE_EDIT_ENDPOINT,
  usesHistory: false,
  headers: formHeaders,

  buildRequest(turn: Turn, ctx: BuildContext): Record<string, unknown> {
    const image = turn.media?.find((m) => m.kind === "image");
    if (image === undefined) throw new TypeError("image_edit needs an image input in every turn");
    const body: JsonObject = {
      prompt: turn.texts[0] ?? "",
      model: turn.model ?? ctx.model,
      response_format: "b64_json",
      n: 1,
    };
    if (image.dataUrl === undefined && image.url !== undefined) body.url = image.url;
    else body.image = imageFile(image);
    return mergeExtrasExcept(body, RESERVED, ctx.extraInputs, turn.extra);
  },
  encodeBody: encodeMultipartForm,

  parseEvent(data: string): Delta | undefined {
    const obj = parseSseJson(data);
    return obj ? readImages(obj) : undefined;
  },
  parseBody: readImages,
  inputText: (turn: Turn) => turn.texts[0] ?? "",

  sampleResponses: {
    stream: `data: {"created":0,"data":[{"b64_json":"${PNG}"}]}\n\n`,
    body: `{"created":0,"data":[{"b64_json":"${PNG}"}],"usage":{"input_tokens":3,"output_tokens":1,"total_tokens":4}}`,
  },
};
