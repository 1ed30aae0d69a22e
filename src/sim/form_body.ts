/**
 * multipart/form-data request bodies, read for the simulator's upload routes (audio transcription, image edit,
 * video generation) with the runtime's own multipart parser, into one object: text fields as strings and files as
 * {@link SimFormFile}s, in the body's order (a repeated name keeps its last value).
 */
import { SimRequestError } from "./sim_error.ts";
import type { SimFormFile } from "./sim_route.ts";

export type FormObject = Record<string, string | SimFormFile>;

/**
 * The form in `bytes`, sent with `contentType`.
 * @throws {SimRequestError} 400 when the content type is not multipart/form-data or the body is not a valid form.
 */
export async function readForm(bytes: Uint8Array<ArrayBuffer>, contentType: string | null): Promise<FormObject> {
  if (contentType === null || !/^multipart\/form-data\s*;/i.test(contentType)) {
    throw new SimRequestError(
      400,
      "invalid_request_error",
      `This route takes multipart/form-data bodies; the request's Content-Type is ${contentType ?? "missing"}.`,
    );
  }
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { "content-type": contentType } }).formData();
  } catch (e) {
    throw new SimRequestError(
      400,
      "invalid_request_error",
      `The request body is not valid multipart/form-data: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const out: FormObject = {};
  for (const [name, value] of form.entries()) {
    out[name] = typeof value === "string"
      ? value
      : { filename: value.name, contentType: value.type, bytes: new Uint8Array(await value.arrayBuffer()) };
  }
  return out;
}

/** The form as JSON for the request journal and seeding: files as `{filename, content_type, size}`. */
export function formSummary(form: FormObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(form)) {
    out[name] = typeof value === "string"
      ? value
      : { filename: value.filename, content_type: value.contentType, size: value.bytes.length };
  }
  return out;
}
