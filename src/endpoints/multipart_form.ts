/**
 * multipart/form-data bodies (RFC 7578) for the APIs that take uploads (audio transcription, image edit, video
 * generation). The adapter's body stays a JSON object — what `inputs.json` records — with each upload as a file
 * field `{"b64_data", "filename", "content_type"}`, as AIPerf keeps it; the bytes on the wire are encoded from it
 * here: one part per field, files decoded from base64, booleans as `true`/`false`, objects as JSON.
 *
 * The boundary is one constant, because the request headers are encoded once per run; a body whose data contains
 * it (a 1-in-2^128 chance for uploaded bytes) is refused rather than sent broken.
 */
import type { MediaItem } from "../dataset/conversation.ts";
import type { HeaderContext } from "./endpoint_adapter.ts";

/** An upload inside an adapter's JSON body. */
export interface FormFile {
  readonly b64_data: string;
  readonly filename: string;
  readonly content_type: string;
}

export const FORM_BOUNDARY = "----infermeter-form-7c1e4b9a52d86f03e1a4c9b27d5f8e60";
export const FORM_CONTENT_TYPE = `multipart/form-data; boundary=${FORM_BOUNDARY}`;

/** The headers of an upload API: the form content type, a JSON answer, the credential as a bearer token. */
export function formHeaders(ctx: HeaderContext): ReadonlyArray<readonly [string, string]> {
  const headers: [string, string][] = [["Content-Type", FORM_CONTENT_TYPE], ["Accept", "application/json"]];
  if (ctx.apiKey !== undefined) headers.push(["Authorization", `Bearer ${ctx.apiKey}`]);
  return headers;
}

export function isFormFile(value: unknown): value is FormFile {
  return typeof value === "object" && value !== null && typeof (value as FormFile).b64_data === "string";
}

const ENCODER = new TextEncoder();

/** A field's text: strings as they are, booleans lower-case (as AIPerf), objects and arrays as JSON. */
function fieldText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Quotes a name for a Content-Disposition parameter (RFC 7578 §4.2: quote and backslash escaped, no line breaks). */
function quoted(name: string): string {
  return `"${name.replace(/[\\"]/g, (c) => "\\" + c).replace(/[\r\n]/g, " ")}"`;
}

/**
 * The multipart bytes of a JSON body: every field but `null`/`undefined` ones, in the body's order.
 * @throws {TypeError} naming the field when a file's `b64_data` is not base64, or when its bytes hold the boundary.
 */
export function encodeMultipartForm(payload: Readonly<Record<string, unknown>>): Uint8Array<ArrayBuffer> {
  const parts: Uint8Array[] = [];
  for (const [key, value] of Object.entries(payload)) {
    if (value === null || value === undefined) continue;
    if (isFormFile(value)) {
      let bytes: Uint8Array;
      try {
        bytes = Uint8Array.fromBase64(value.b64_data);
      } catch {
        throw new TypeError(`form field '${key}': 'b64_data' is not valid base64`);
      }
      if (contains(bytes, BOUNDARY_BYTES)) {
        throw new TypeError(`form field '${key}': the file's bytes contain the form boundary; it cannot be sent`);
      }
      parts.push(
        ENCODER.encode(
          `--${FORM_BOUNDARY}\r\nContent-Disposition: form-data; name=${quoted(key)}; ` +
            `filename=${quoted(value.filename || key)}\r\nContent-Type: ${
              value.content_type || "application/octet-stream"
            }\r\n\r\n`,
        ),
        bytes,
        CRLF,
      );
      continue;
    }
    const text = fieldText(value);
    if (text.includes(FORM_BOUNDARY)) throw new TypeError(`form field '${key}' contains the form boundary`);
    parts.push(ENCODER.encode(`--${FORM_BOUNDARY}\r\nContent-Disposition: form-data; name=${quoted(key)}\r\n\r\n`));
    parts.push(ENCODER.encode(text), CRLF);
  }
  parts.push(ENCODER.encode(`--${FORM_BOUNDARY}--\r\n`));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const CRLF = ENCODER.encode("\r\n");
const BOUNDARY_BYTES = ENCODER.encode(FORM_BOUNDARY);

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  const first = needle[0];
  const last = haystack.length - needle.length;
  outer: for (let i = haystack.indexOf(first); i !== -1 && i <= last; i = haystack.indexOf(first, i + 1)) {
    for (let j = 1; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** File name extension for a MIME subtype (`jpeg` → `jpg`, `svg+xml` → `svg`, `mpeg` audio → `mp3`). */
function extension(mime: string): string {
  const sub = mime.split("/", 2)[1]?.split("+", 1)[0] ?? "bin";
  if (sub === "jpeg") return "jpg";
  if (mime === "audio/mpeg") return "mp3";
  return sub;
}

/**
 * An inline media item as a file field (`<kind>.<ext>`, its MIME type from the data URL); undefined for a remote
 * URL, which has no bytes to upload.
 */
export function mediaFormFile(item: MediaItem): FormFile | undefined {
  const dataUrl = item.dataUrl;
  if (dataUrl === undefined) return undefined;
  const m = /^data:([^;,]+)(?:;[^,]*)?,(.*)$/s.exec(dataUrl);
  if (m === null) return undefined;
  const mime = m[1].toLowerCase();
  return { b64_data: m[2], filename: `${item.kind}.${extension(mime)}`, content_type: mime };
}
