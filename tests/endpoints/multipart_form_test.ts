import assert from "node:assert/strict";
import {
  encodeMultipartForm,
  FORM_BOUNDARY,
  FORM_CONTENT_TYPE,
  mediaFormFile,
} from "../../src/endpoints/multipart_form.ts";

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

Deno.test("multipart form: text fields in order, booleans lower-case, objects as JSON, null fields left out", async () => {
  const bytes = encodeMultipartForm({ model: "m", stream: true, n: 2, extra: { a: 1 }, skip: null });
  const text = decode(bytes);
  assert.ok(text.startsWith(`--${FORM_BOUNDARY}\r\nContent-Disposition: form-data; name="model"\r\n\r\nm\r\n`));
  assert.ok(text.endsWith(`--${FORM_BOUNDARY}--\r\n`));
  const form = await new Response(bytes, { headers: { "content-type": FORM_CONTENT_TYPE } }).formData();
  assert.deepEqual([...form.keys()], ["model", "stream", "n", "extra"]);
  assert.equal(form.get("stream"), "true");
  assert.equal(form.get("extra"), '{"a":1}');
});

Deno.test("multipart form: a file field is sent as its decoded bytes with its name and type", () => {
  const bytes = encodeMultipartForm({
    file: { b64_data: btoa("\x00\x01\xff"), filename: 'a "b".wav', content_type: "" },
  });
  const text = decode(bytes.subarray(0, 250));
  assert.match(text, /name="file"; filename="a \\"b\\"\.wav"\r\nContent-Type: application\/octet-stream\r\n\r\n/);
  const at = bytes.indexOf(0x0a, text.indexOf("octet-stream") + 14) + 1;
  assert.deepEqual([...bytes.subarray(at, at + 3)], [0, 1, 255]);
});

Deno.test("multipart form: base64 that is not, or a file holding the boundary, is refused naming the field", () => {
  assert.throws(
    () => encodeMultipartForm({ image: { b64_data: "%%%", filename: "x", content_type: "image/png" } }),
    /form field 'image': 'b64_data' is not valid base64/,
  );
  const inside = new TextEncoder().encode(`abc${FORM_BOUNDARY}def`).toBase64();
  assert.throws(
    () => encodeMultipartForm({ file: { b64_data: inside, filename: "x", content_type: "a/b" } }),
    /contain the form boundary/,
  );
});

Deno.test("a media item as a file: name by kind and type, remote URLs have none", () => {
  assert.deepEqual(mediaFormFile({ kind: "image", dataUrl: "data:image/jpeg;base64,AAAA" }), {
    b64_data: "AAAA",
    filename: "image.jpg",
    content_type: "image/jpeg",
  });
  assert.equal(mediaFormFile({ kind: "image", url: "https://x/y.png" }), undefined);
});
