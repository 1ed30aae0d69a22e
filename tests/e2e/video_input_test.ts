/**
 * Synthetic video input end to end: the CLI sends `video_url` parts with inlined clips to `serve-sim`, which counts
 * them (`sim_media_inputs_total`), in the shape and encoding AIPerf 0.13 sends (`tests/fixtures/aiperf_0_13/
 * video_chat/`, captured by `scripts/parity/capture_aiperf_video.ts`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, runCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";
import { hasFfmpeg } from "../../src/dataset/synthetic_video.ts";

const TOKENIZER = new URL("../fixtures/tiny_bpe", import.meta.url).pathname;
const AIPERF = new URL("../fixtures/aiperf_0_13/video_chat/", import.meta.url);

type Part = { type: string; text?: string; video_url?: { url: string } };
type Body = { messages: { role: string; content: Part[] }[] };

async function profile(tmp: string, extra: string[]) {
  const journal = join(tmp, `journal-${crypto.randomUUID()}.jsonl`);
  await using sim = await startSim(["--ttft", "1", "--itl", "0.1", "--record-requests", journal]);
  const run = await runCli(
    [
      "profile",
      "-m",
      "sim-model",
      "--tokenizer",
      TOKENIZER,
      "--ui",
      "none",
      "--endpoint-type",
      "chat",
      "--url",
      sim.url,
      "--request-count",
      "2",
      "--num-dataset-entries",
      "2",
      "--isl",
      "20",
      "--artifact-dir",
      "out",
      ...extra,
    ],
    { cwd: tmp, timeoutMs: 120_000 },
  );
  const metrics = run.code === 0 ? await (await fetch(`${sim.url}/metrics`)).text() : "";
  await sim.stop();
  const bodies = run.code === 0
    ? (await readRequestJournal(journal)).filter((e) => e.path === "/v1/chat/completions").map((e) => e.body as Body)
    : [];
  return { run, bodies, metrics };
}

/** The request's content parts with their data URLs cut to the header: what AIPerf's capture keeps. */
function shape(body: Body): string[] {
  return body.messages[0].content.map((p) =>
    p.type === "video_url" ? `video_url ${p.video_url!.url.slice(0, p.video_url!.url.indexOf(","))}` : p.type
  );
}

async function ffprobe(dataUrl: string): Promise<string[] | undefined> {
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeFile(path, Uint8Array.fromBase64(dataUrl.slice(dataUrl.indexOf(",") + 1)));
    const out = await new Deno.Command("ffprobe", {
      args: [
        "-v",
        "error",
        "-show_entries",
        "stream=codec_name,width,height,r_frame_rate,channels",
        "-of",
        "csv=p=0",
        path,
      ],
      stdout: "piped",
    }).output();
    return new TextDecoder().decode(out.stdout).trim().split("\n");
  } catch {
    return undefined; // no ffprobe here
  } finally {
    await Deno.remove(path);
  }
}

Deno.test("MJPEG MP4 clips are made without FFmpeg and counted by serve-sim", async () => {
  await using tmp = await tempDir();
  const { run, bodies, metrics } = await profile(tmp.path, [
    "--video-width",
    "64",
    "--video-height",
    "48",
    "--video-format",
    "mp4",
    "--video-codec",
    "mjpeg",
    "--video-batch-size",
    "3",
    "--video-synth-type",
    "grid_clock",
  ]);
  assertExit(run, 0);
  assert.equal(bodies.length, 2);
  for (const body of bodies) {
    assert.deepEqual(shape(body), ["text", ...Array(3).fill("video_url data:video/mp4;base64")]);
    const clip = Uint8Array.fromBase64(body.messages[0].content[1].video_url!.url.split(",")[1]);
    assert.equal(new TextDecoder().decode(clip.subarray(4, 8)), "ftyp");
  }
  assert.match(metrics, /^sim_media_inputs_total\{kind="video"\} 6$/m);
  assert.match(
    run.stderr,
    /Video: 3 clips per turn, 64×48, 20 frames of grid_clock, by infermeter's MJPEG\/MP4 writer; one clip, encoded once/,
  );
  const probe = await ffprobe(bodies[0].messages[0].content[1].video_url!.url);
  if (probe !== undefined) assert.deepEqual(probe, ["mjpeg,64,48,4/1"]);
});

for (const name of ["webm_defaults", "mp4_audio"]) {
  Deno.test(`video as AIPerf sends it (${name}), or refused with how to get FFmpeg`, async () => {
    await using tmp = await tempDir();
    const captured = JSON.parse(await Deno.readTextFile(new URL(`${name}.json`, AIPERF)));
    const args = (captured.command as string).split(" ");
    const videoArgs = args.slice(args.indexOf("--video-width"), args.indexOf("--url"));
    const { run, bodies } = await profile(tmp.path, videoArgs);
    if (!await hasFfmpeg()) {
      assertExit(run, 2);
      assert.match(run.stderr, /is encoded by FFmpeg, as AIPerf does, and ffmpeg is not on the PATH/);
      return;
    }
    assertExit(run, 0);
    const want = (captured.first_request as Body).messages[0].content.map((p) =>
      p.type === "video_url" ? `video_url ${/^<([^ ]+)/.exec(p.video_url!.url)![1]}` : p.type
    );
    assert.deepEqual(shape(bodies[0]), want);
    const probe = await ffprobe(bodies[0].messages[0].content[1].video_url!.url);
    if (probe !== undefined) assert.deepEqual(probe, captured.ffprobe_first_clip);
  });
}

Deno.test("video options are refused half given, beside a dataset file, with audio options that do nothing, and for completions", async () => {
  await using tmp = await tempDir();
  const profileArgs = (args: string[]) =>
    runCli(["profile", "-m", "m", "--url", "http://127.0.0.1:9", "--ui", "none", ...args], { cwd: tmp.path });
  const half = await profileArgs(["--video-width", "64"]);
  assertExit(half, 2);
  assert.match(half.stderr, /--video-width .*--video-height/);
  const withFile = await profileArgs(["--video-batch-size", "2", "--input-file", "x.jsonl"]);
  assertExit(withFile, 2);
  assert.match(withFile.stderr, /--video-batch-size.*--input-file|--input-file.*--video-batch-size/);
  const codec = await profileArgs(["--video-width", "8", "--video-height", "8", "--video-audio-codec", "aac"]);
  assertExit(codec, 2);
  assert.match(codec.stderr, /--video-audio-codec 'aac' is set but --video-audio-num-channels is 0/);
  const completions = await profileArgs([
    "--endpoint-type",
    "completions",
    "--num-dataset-entries",
    "1",
    "--video-width",
    "8",
    "--video-height",
    "8",
    "--video-format",
    "mp4",
    "--video-codec",
    "mjpeg",
  ]);
  assertExit(completions, 2);
  assert.match(completions.stderr, /completions cannot carry video inputs.*the --video-\* options that make them/);
});
