/**
 * The `aiperf profile` commands of seed 002 (docs: "Profile the OpenAI Responses API"), verbatim except `--url`
 * (a fast simulated server recording its requests) and, where a command would send 100 requests or build 100
 * images, a smaller count. Request bodies are read back from the simulator's journal; images and audio from
 * inputs.json are decoded with the encoders' own libraries.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { decode as decodePng } from "fast-png";
import jpeg from "jpeg-js";
import { assertExit, metric, readJson, runCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";

const FAST_SIM = ["--ttft", "2", "--itl", "0.05"];
const BASE = ["profile", "--model", "Qwen/Qwen3-0.6B", "--endpoint-type", "responses", "--endpoint", "/v1/responses"];

type Body = Record<string, unknown> & { input: { type?: string; role: string; content: unknown }[] };

/** Runs one command against a fresh recording simulator; returns the bodies it received and the run's summary. */
async function runSeed(args: readonly string[], simArgs: readonly string[] = []) {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim([...FAST_SIM, ...simArgs, "--record-requests", journal]);
  const run = await runCli([...args, "--url", sim.url.replace("http://", "")], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  const bodies = (await readRequestJournal(journal)).filter((e) => e.path === "/v1/responses").map((e) =>
    e.body as Body
  );
  const dir = (await Array.fromAsync(Deno.readDir(join(tmp.path, "artifacts"))))[0].name;
  const summary = await readJson(join(tmp.path, "artifacts", dir, "profile_export_aiperf.json"));
  const inputs = await readJson<{ data: { payloads: Body[] }[] }>(join(tmp.path, "artifacts", dir, "inputs.json"));
  assert.deepEqual(summary.error_summary, []);
  return { bodies, summary, inputs, stdout: run.stdout };
}

function dataUrlBytes(url: string): Uint8Array {
  return Uint8Array.fromBase64(url.slice(url.indexOf(",") + 1));
}

Deno.test("seed 002 synthetic streaming: input items, max_output_tokens 200, exact 100 → 200 tokens", async () => {
  // deno-fmt-ignore
  const { bodies, summary } = await runSeed([...BASE, "--streaming",
    "--synthetic-input-tokens-mean", "100", "--synthetic-input-tokens-stddev", "0",
    "--output-tokens-mean", "200", "--output-tokens-stddev", "0", "--request-count", "20"]);
  assert.equal(bodies.length, 20);
  for (const b of bodies) {
    assert.equal(b.model, "Qwen/Qwen3-0.6B");
    assert.equal(b.stream, true);
    assert.equal(b.max_output_tokens, 200);
    assert.equal(b.max_completion_tokens, undefined);
    assert.equal(b.instructions, undefined);
    assert.equal(b.input.length, 1);
    assert.deepEqual([b.input[0].type, b.input[0].role, typeof b.input[0].content], ["message", "user", "string"]);
  }
  assert.equal(metric(summary, "output_token_count").avg, 200);
  assert.equal(metric(summary, "input_sequence_length").avg, 100);
  assert.ok(metric(summary, "time_to_first_token").avg > 0);
  assert.ok(metric(summary, "inter_token_latency").avg > 0);
});

Deno.test("seed 002 input file, concurrency, request rate and non-streaming commands", async () => {
  await using tmp = await tempDir();
  const file = join(tmp.path, "inputs.jsonl");
  await Deno.writeTextFile(
    file,
    '{"texts": ["Explain quantum computing in simple terms."]}\n{"texts": ["Write a haiku about machine learning."]}\n',
  );
  // deno-fmt-ignore
  const fromFile = await runSeed([...BASE, "--streaming", "--input-file", file, "--custom-dataset-type", "single_turn",
    "--request-count", "10"]);
  assert.deepEqual(fromFile.bodies.slice(0, 2).map((b) => b.input[0].content), [
    "Explain quantum computing in simple terms.",
    "Write a haiku about machine learning.",
  ]);
  // deno-fmt-ignore
  const nonStreaming = await runSeed([...BASE, "--synthetic-input-tokens-mean", "100", "--output-tokens-mean", "200",
    "--request-count", "20"]);
  assert.ok(nonStreaming.bodies.every((b) => b.stream === false && b.max_output_tokens === 200));
  assert.equal(metric(nonStreaming.summary, "output_token_count").avg, 200);
  assert.equal("time_to_first_token" in nonStreaming.summary, false);
  const concurrent = await runSeed([...BASE, "--streaming", "--concurrency", "10", "--request-count", "30"]);
  assert.equal(concurrent.bodies.length, 30);
  const rate = await runSeed([...BASE, "--streaming", "--request-rate", "50", "--request-count", "10"]);
  assert.equal(rate.bodies.length, 10);
});

Deno.test("seed 002 shared system prompt: top-level instructions of exactly 50 tokens, the same in every request", async () => {
  // deno-fmt-ignore
  const { bodies, summary } = await runSeed([...BASE, "--streaming", "--shared-system-prompt-length", "50",
    "--synthetic-input-tokens-mean", "100", "--output-tokens-mean", "200", "--request-count", "20"]);
  const instructions = new Set(bodies.map((b) => b.instructions));
  assert.equal(instructions.size, 1);
  assert.equal(typeof [...instructions][0], "string");
  for (const b of bodies) assert.ok(b.input.every((item) => item.role !== "system"));
  // The simulator counts prompt tokens exactly: instructions (50) + prompt (100).
  assert.equal(metric(summary, "usage_prompt_tokens").avg, 150);
  assert.equal(metric(summary, "input_sequence_length").avg, 150);
});

Deno.test("seed 002 vision: input_image parts carrying 512×512 PNGs that decode", async () => {
  // deno-fmt-ignore
  const { bodies, inputs } = await runSeed(["profile", "--model", "Qwen/Qwen2-VL-2B-Instruct",
    "--endpoint-type", "responses", "--endpoint", "/v1/responses",
    "--image-width-mean", "512", "--image-height-mean", "512", "--synthetic-input-tokens-mean", "100",
    "--streaming", "--request-count", "20", "--concurrency", "4", "--num-dataset-entries", "5"]);
  assert.equal(bodies.length, 20);
  for (const b of bodies) {
    const parts = b.input[0].content as { type: string; image_url?: string }[];
    assert.deepEqual(parts.map((p) => p.type), ["input_text", "input_image"]);
    assert.match(parts[1].image_url!, /^data:image\/png;base64,/);
  }
  for (const session of inputs.data) {
    const url = (session.payloads[0].input[0].content as { image_url?: string }[])[1].image_url!;
    const png = decodePng(dataUrlBytes(url));
    assert.deepEqual([png.width, png.height, png.channels], [512, 512, 3]);
  }
});

Deno.test("image options: jpeg format, width spread, batch size; chat sends image_url parts", async () => {
  // deno-fmt-ignore
  const { inputs } = await runSeed(["profile", "--model", "m", "--endpoint-type", "chat",
    "--image-width-mean", "64", "--image-width-stddev", "8", "--image-height-mean", "32",
    "--image-format", "jpeg", "--image-batch-size", "2", "--request-count", "3", "--num-dataset-entries", "3",
    "--random-seed", "7"]); // seeded: the drawn widths are the same on every run
  for (const session of inputs.data) {
    const msg = (session.payloads[0] as unknown as { messages: { content: unknown }[] }).messages[0];
    const parts = msg.content as { type: string; image_url?: { url: string } }[];
    assert.deepEqual(parts.map((p) => p.type), ["text", "image_url", "image_url"]);
    for (const p of parts.slice(1)) {
      const img = jpeg.decode(dataUrlBytes(p.image_url!.url));
      assert.equal(img.height, 32);
      assert.ok(img.width >= 40 && img.width <= 88, `width ${img.width}`);
    }
  }
});

/** WAV header fields and the duration its data chunk holds. */
function readWav(bytes: Uint8Array) {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  assert.equal(text(0), "RIFF");
  assert.equal(text(8), "WAVE");
  assert.equal(v.getUint32(4, true), bytes.length - 8);
  const channels = v.getUint16(22, true);
  const rate = v.getUint32(24, true);
  const bits = v.getUint16(34, true);
  assert.equal(text(36), "data");
  const frames = v.getUint32(40, true) / (channels * bits / 8);
  return { channels, rate, bits, seconds: frames / rate, format: v.getUint16(20, true) };
}

Deno.test("seed 002 audio: input_audio {data, format: wav} of 5 s at 16 kHz, 16-bit mono", async () => {
  // deno-fmt-ignore
  const { bodies } = await runSeed(["profile", "--model", "Qwen/Qwen2-Audio-7B-Instruct",
    "--endpoint-type", "responses", "--endpoint", "/v1/responses", "--streaming",
    "--audio-length-mean", "5.0", "--audio-format", "wav", "--audio-sample-rates", "16",
    "--request-count", "20", "--num-dataset-entries", "4"]);
  assert.equal(bodies.length, 20);
  for (const b of bodies) {
    const parts = b.input[0].content as { type: string; input_audio?: { data: string; format: string } }[];
    assert.deepEqual(parts.map((p) => p.type), ["input_text", "input_audio"]);
    assert.equal(parts[1].input_audio!.format, "wav");
    const wav = readWav(Uint8Array.fromBase64(parts[1].input_audio!.data));
    assert.deepEqual(wav, { channels: 1, rate: 16000, bits: 16, seconds: 5, format: 1 });
  }
});

/** MPEG audio frames walked header by header: the sample rate, channels and the duration they hold. */
function readMp3(bytes: Uint8Array) {
  const RATES: Record<number, number[]> = {
    3: [44100, 48000, 32000],
    2: [22050, 24000, 16000],
    0: [11025, 12000, 8000],
  };
  const KBPS1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
  const KBPS2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
  let at = 0;
  let samples = 0;
  let rate = 0;
  let channels = 0;
  let frames = 0;
  while (at + 4 <= bytes.length) {
    assert.equal(bytes[at], 0xff, `frame sync at ${at}`);
    const version = (bytes[at + 1] >> 3) & 3;
    assert.equal((bytes[at + 1] >> 1) & 3, 1, "layer III");
    const kbps = (version === 3 ? KBPS1 : KBPS2)[bytes[at + 2] >> 4];
    rate = RATES[version][(bytes[at + 2] >> 2) & 3];
    const padding = (bytes[at + 2] >> 1) & 1;
    channels = (bytes[at + 3] >> 6) === 3 ? 1 : 2;
    const perFrame = version === 3 ? 1152 : 576;
    at += Math.floor((perFrame / 8) * kbps * 1000 / rate) + padding;
    samples += perFrame;
    frames++;
  }
  return { rate, channels, seconds: samples / rate, frames };
}

Deno.test("audio options: mp3 decodes to its rate, channels and duration; 44.1 kHz by the kHz rule; bad rate refused", async () => {
  // deno-fmt-ignore
  const { inputs } = await runSeed(["profile", "--model", "m", "--endpoint-type", "chat",
    "--audio-length-mean", "2", "--audio-format", "mp3", "--audio-sample-rates", "44.1", "--audio-num-channels", "2",
    "--audio-batch-size", "2", "--synthetic-input-tokens-mean", "10", "--request-count", "2",
    "--num-dataset-entries", "2"]);
  for (const session of inputs.data) {
    const msg = (session.payloads[0] as unknown as { messages: { content: unknown }[] }).messages[0];
    const parts = msg.content as { type: string; input_audio?: { data: string; format: string } }[];
    assert.deepEqual(parts.map((p) => p.type), ["text", "input_audio", "input_audio"]);
    const mp3 = readMp3(Uint8Array.fromBase64(parts[1].input_audio!.data));
    assert.equal(parts[1].input_audio!.format, "mp3");
    assert.equal(mp3.rate, 44100);
    assert.equal(mp3.channels, 2);
    // The encoder adds its delay and pads the last frame: at most a few frames over 2 s.
    assert.ok(mp3.seconds >= 2 && mp3.seconds < 2.1, `${mp3.seconds} s`);
  }
  await using tmp = await tempDir();
  // deno-fmt-ignore
  const refused = await runCli(["profile", "--model", "m", "--endpoint-type", "chat", "--audio-length-mean", "1",
    "--audio-format", "mp3", "--audio-sample-rates", "15", "--url", "127.0.0.1:9", "--request-count", "1"],
    { cwd: tmp.path });
  assertExit(refused, 2);
  assert.match(refused.stderr, /MP3 carries only .* got 15 kHz/);
});

Deno.test("seed 002 multi-turn: each later turn carries the earlier prompts and the server's real replies", async () => {
  // deno-fmt-ignore
  const { bodies } = await runSeed([...BASE, "--streaming", "--conversation-num", "3",
    "--conversation-turn-mean", "3", "--synthetic-input-tokens-mean", "100", "--output-tokens-mean", "20"],
  );
  assert.equal(bodies.length, 9);
  const third = bodies.filter((b) => b.input.length === 5);
  assert.equal(third.length, 3);
  for (const b of third) {
    assert.deepEqual(b.input.map((i) => i.role), ["user", "assistant", "user", "assistant", "user"]);
    const earlier = bodies.find((x) => x.input.length === 1 && x.input[0].content === b.input[0].content);
    assert.ok(earlier, "the first turn was sent on its own");
    for (const reply of [b.input[1].content, b.input[3].content]) {
      assert.equal(typeof reply, "string");
      // The simulator's words: 20 tokens of lowercase text, as generated.
      assert.match(reply as string, /^( [a-z]+){20}$/);
    }
  }
});

Deno.test("seed 002 server token counts, extra inputs; --use-legacy-max-tokens refused with the reason", async () => {
  const server = await runSeed([...BASE, "--streaming", "--use-server-token-count", "--request-count", "20"]);
  for (const b of server.bodies) assert.deepEqual(b.stream_options, { include_usage: true });
  assert.ok(metric(server.summary, "output_token_count").avg > 0);
  // deno-fmt-ignore
  const extra = await runSeed([...BASE, "--streaming", "--extra-inputs", "temperature:0.7", "--extra-inputs", "top_p:0.9",
    "--request-count", "20"]);
  for (const b of extra.bodies) assert.deepEqual([b.temperature, b.top_p], [0.7, 0.9]);
  await using tmp = await tempDir();
  const refused = await runCli([...BASE, "--use-legacy-max-tokens", "--url", "127.0.0.1:9", "--request-count", "1"], {
    cwd: tmp.path,
  });
  assertExit(refused, 2);
  assert.match(refused.stderr, /the Responses API always uses max_output_tokens/);
});

Deno.test("serve-sim --error-rate fails Responses requests, which become error records", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim([...FAST_SIM, "--error-rate", "50"]);
  const run = await runCli([...BASE, "--streaming", "--url", sim.url, "--request-count", "20"], { cwd: tmp.path });
  const dir = (await Array.fromAsync(Deno.readDir(join(tmp.path, "artifacts"))))[0].name;
  const summary = await readJson(join(tmp.path, "artifacts", dir, "profile_export_aiperf.json"));
  assert.ok((summary.error_summary as unknown[]).length > 0, run.stderr);
  assert.ok(metric(summary, "request_count").avg < 20);
});
