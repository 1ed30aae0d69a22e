/**
 * The endpoint types that upload media, follow jobs or speak a pipeline of their own, end to end: the real CLI
 * against `serve-sim`, checked from the server's journal (multipart fields and files as received, job polls) and the
 * exports (title, metrics, record count).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, readJson, runCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";

interface Case {
  readonly type: string;
  readonly path: string;
  readonly title: string;
  readonly args: readonly string[];
  /** Metrics that must be published, and ones that must not. */
  readonly present: readonly string[];
  readonly absent: readonly string[];
}

const IMAGES = ["--image-width-mean", "8", "--image-height-mean", "8", "--image-format", "png"];

const CASES: readonly Case[] = [
  {
    type: "audio_transcription",
    path: "/v1/audio/transcriptions",
    title: "Audio Transcription Metrics",
    args: ["--audio-length-mean", "0.4", "--audio-format", "wav", "--extra-inputs", "language:en"],
    present: ["request_latency", "request_throughput"],
    absent: ["input_sequence_length", "time_to_first_token", "output_sequence_length"],
  },
  {
    type: "image_edit",
    path: "/v1/images/edits",
    title: "Image Edit Metrics",
    args: [...IMAGES, "--extra-inputs", "size:512x512"],
    present: ["request_latency", "input_sequence_length"],
    absent: ["time_to_first_token", "output_sequence_length"],
  },
  {
    type: "image_retrieval",
    path: "/v1/infer",
    title: "Image Retrieval Metrics",
    args: IMAGES,
    present: ["request_latency"],
    absent: ["input_sequence_length", "output_sequence_length"],
  },
  {
    type: "video_generation",
    path: "/v1/videos",
    title: "Video Generation Metrics",
    args: ["--extra-inputs", "num_inference_steps:8", "--extra-inputs", "size:320x240", "--download-video-content"],
    present: ["request_latency", "input_sequence_length", "video_inference_time", "video_peak_memory"],
    absent: ["time_to_first_token", "output_sequence_length"],
  },
  {
    type: "solido_rag",
    path: "/rag/api/prompt",
    title: "SOLIDO RAG Metrics",
    args: ["--streaming"],
    present: ["time_to_first_token", "inter_token_latency", "output_sequence_length", "input_sequence_length"],
    absent: ["video_inference_time"],
  },
];

Deno.test("the upload, job and RAG endpoint types run against serve-sim and publish their metrics", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", "2", "--itl", "2", "--api-key", "sekret", "--record-requests", journal]);
  for (const c of CASES) {
    // deno-fmt-ignore
    const run = await runCli([
      "profile", "--ui", "none", "-m", "sim-model", "--url", sim.url, "--endpoint-type", c.type,
      "--request-count", "3", "--isl", "12", "--osl", "5", "--api-key", "sekret", "--artifact-dir", c.type, ...c.args,
    ], { cwd: tmp.path });
    assertExit(run, 0);
    assert.match(run.stdout, new RegExp(`infermeter \\| ${c.title}\\b`), c.type);
    const summary = await readJson(join(tmp.path, c.type, "profile_export_aiperf.json"));
    assert.equal((summary.request_count as { avg: number }).avg, 3, c.type);
    assert.equal(summary.error_request_count, undefined, `${c.type}: no errors`);
    for (const tag of c.present) assert.ok(tag in summary, `${c.type}: ${tag}`);
    for (const tag of c.absent) assert.equal(tag in summary, false, `${c.type}: no ${tag}`);
  }
  await sim.stop();
  const sent = await readRequestJournal(journal);
  const bodies = (path: string) => sent.filter((e) => e.path === path && e.method === "POST").map((e) => e.body);

  // Multipart uploads, read back by the server as fields and files.
  const audio = bodies("/v1/audio/transcriptions") as Record<string, unknown>[];
  assert.ok(audio.length >= 3);
  assert.deepEqual(Object.keys(audio[0]), ["file", "model", "language"]);
  const file = audio[0].file as { filename: string; content_type: string; size: number };
  assert.equal(file.filename, "audio.wav");
  assert.equal(file.content_type, "audio/wav");
  assert.ok(file.size > 44 + 16_000 * 2 * 0.3, `0.4 s of 16-bit audio, got ${file.size} bytes`);
  const edit = (bodies("/v1/images/edits") as Record<string, unknown>[])[0];
  assert.equal(edit.response_format, "b64_json");
  assert.equal(edit.n, "1");
  assert.equal(edit.size, "512x512");
  assert.equal((edit.image as { content_type: string }).content_type, "image/png");
  assert.ok(typeof edit.prompt === "string" && edit.prompt.length > 0);

  // Image retrieval: inline images only, no model field.
  const infer = (bodies("/v1/infer") as { input: { type: string; url: string }[]; model?: string }[])[0];
  assert.equal(infer.input[0].type, "image_url");
  assert.match(infer.input[0].url, /^data:image\/png;base64,/);
  assert.equal(infer.model, undefined);

  // Video: each job submitted once (multipart), polled by id until completed, then its content downloaded.
  const videoPosts = sent.filter((e) => e.path === "/v1/videos" && e.method === "POST");
  assert.ok(videoPosts.length >= 3);
  assert.equal((videoPosts[0].body as Record<string, string>).num_inference_steps, "8");
  const polls = sent.filter((e) => e.method === "GET" && /^\/v1\/videos\/video_[0-9a-f]+$/.test(e.path));
  const downloads = sent.filter((e) => e.method === "GET" && /^\/v1\/videos\/video_[0-9a-f]+\/content$/.test(e.path));
  assert.ok(polls.length >= videoPosts.length, `${polls.length} polls for ${videoPosts.length} jobs`);
  assert.equal(downloads.length, videoPosts.length, "every job's content, once");
  assert.ok(polls.every((e) => e.headers.authorization === "<redacted>"), "polls carry the credential");

  // Solido: query list, filters and the model as inference_model.
  const rag = (bodies("/rag/api/prompt") as Record<string, unknown>[])[0];
  assert.ok(Array.isArray(rag.query));
  assert.deepEqual(rag.filters, { family: "Solido", tool: "SDE" });
  assert.equal(rag.inference_model, "sim-model");
});

Deno.test("--request-content-type must match the endpoint type; --download-video-content needs video_generation", async () => {
  await using tmp = await tempDir();
  const json = await runCli([
    "profile",
    "-m",
    "m",
    "--endpoint-type",
    "image_edit",
    "--request-content-type",
    "application/json",
    "--request-count",
    "1",
  ], { cwd: tmp.path });
  assertExit(json, 2);
  assert.match(json.stderr, /image_edit takes multipart\/form-data bodies/);
  const form = await runCli(["profile", "-m", "m", "--request-content-type", "multipart/form-data"], {
    cwd: tmp.path,
  });
  assertExit(form, 2);
  assert.match(form.stderr, /applies to the endpoint types that take form data \(.*image_edit.*\)/);
  const download = await runCli(["profile", "-m", "m", "--download-video-content"], { cwd: tmp.path });
  assertExit(download, 2);
  assert.match(download.stderr, /--download-video-content/);
  assert.match(download.stderr, /video_generation/);
  const noAudio = await runCli(
    ["profile", "-m", "m", "--endpoint-type", "audio_transcription", "--request-count", "1"],
    {
      cwd: tmp.path,
    },
  );
  assertExit(noAudio, 2);
  assert.match(noAudio.stderr, /sends an audio input with every request.*--audio-length-mean/);
});
