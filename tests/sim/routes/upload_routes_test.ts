import assert from "node:assert/strict";
import { makeApp } from "../sim_test_helpers.ts";
import { encodeMultipartForm, FORM_CONTENT_TYPE } from "../../../src/endpoints/multipart_form.ts";
import { silentWav } from "../../../src/endpoints/sample_media.ts";
import { audioSeconds } from "../../../src/sim/routes/openai_audio_transcription.ts";

const form = (fields: Record<string, unknown>) => ({
  method: "POST",
  headers: { "content-type": FORM_CONTENT_TYPE },
  body: encodeMultipartForm(fields),
});
const wav = (ms: number) => ({ b64_data: silentWav(ms).toBase64(), filename: "audio.wav", content_type: "audio/wav" });

Deno.test("audio transcription: the transcript has 2.5 words per second of the uploaded WAV, in the asked format", async () => {
  const { app } = makeApp();
  const res = await app.request("/v1/audio/transcriptions", form({ file: wav(2000), model: "m" }));
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.text.split(" ").filter((w: string) => w.length > 0).length, 5);
  assert.deepEqual(body.usage, { type: "duration", seconds: 2 });
  const text = await app.request("/v1/audio/transcriptions", form({ file: wav(400), response_format: "text" }));
  assert.equal((await text.text()).trim().split(" ").length, 1);
  const srt = await (await app.request("/v1/audio/transcriptions", form({ file: wav(400), response_format: "srt" })))
    .text();
  assert.match(srt, /^1\n00:00:00,000 --> 00:00:00,400\n/);
  assert.equal(audioSeconds({ filename: "a.mp3", contentType: "audio/mpeg", bytes: new Uint8Array(32_000) }), 2);
});

Deno.test("upload routes refuse JSON bodies, missing files and wrong fields with a 400 naming them", async () => {
  const { app } = makeApp();
  const json = await app.request("/v1/audio/transcriptions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(json.status, 400);
  assert.match((await json.json()).error.message, /multipart\/form-data.*application\/json/);
  const noFile = await app.request("/v1/audio/transcriptions", form({ model: "m" }));
  assert.equal(noFile.status, 400);
  assert.equal((await noFile.json()).error.param, "file");
  const textImage = await app.request("/v1/images/edits", form({ prompt: "p", image: "not a file" }));
  assert.equal((await textImage.json()).error.param, "image");
  const badN = await app.request("/v1/images/edits", form({ prompt: "p", url: "https://x/y.png", n: "0" }));
  assert.equal((await badN.json()).error.param, "n");
  const noInline = await app.request("/v1/infer", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input: [{ type: "image_url", url: "https://x/y.png" }] }),
  });
  assert.equal((await noInline.json()).error.param, "input[0].url");
});

Deno.test("video jobs: queued at once, in progress, completed after ttft + itl·(steps − 1), content once done", async () => {
  // A job long enough (1.5 s) that the first status is asked well before it ends, even on a loaded machine.
  const { app } = makeApp({ ttftMs: 600, itlMs: 300 });
  const submitted = await app.request("/v1/videos", form({ prompt: "a fox", num_inference_steps: 4, size: "64x32" }));
  const job = await submitted.json();
  assert.equal(job.status, "queued");
  assert.match(job.id, /^video_[0-9a-f]{16}$/);
  assert.equal((await app.request(`/v1/videos/${job.id}/content`)).status, 404, "no content before completion");
  const early = await (await app.request(`/v1/videos/${job.id}`)).json();
  assert.ok(early.status === "queued" || early.status === "in_progress");
  let done = early;
  while (done.status !== "completed") {
    await new Promise((r) => setTimeout(r, 50));
    done = await (await app.request(`/v1/videos/${job.id}`)).json();
  }
  assert.equal(done.status, "completed");
  assert.equal(done.progress, 100);
  assert.equal(done.inference_time_s, 1.5);
  assert.equal(done.peak_memory_mb, 8192 + Math.round(64 * 32 * 64 / 4096));
  const content = await app.request(`/v1/videos/${job.id}/content`);
  assert.equal(content.headers.get("content-type"), "video/mp4");
  assert.equal(new TextDecoder().decode((await content.bytes()).subarray(4, 8)), "ftyp");
  assert.equal((await app.request("/v1/videos/video_unknown")).status, 404);
});
