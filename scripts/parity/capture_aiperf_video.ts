/**
 * Captures how AIPerf 0.13 sends synthetic video (`--video-*`) to a chat server: it runs AIPerf against this
 * checkout's `serve-sim` (with a request journal) for two settings — its defaults (WebM, VP9) and MP4 with a stereo
 * audio track — and keeps, per setting, the first request body with every data URL replaced by its header and length
 * (`<data:video/webm;base64 …N chars>`) and what `ffprobe` reads from the first clip, in
 * `tests/fixtures/aiperf_0_13/video_chat/`. Needs `ffmpeg` and `ffprobe` on the PATH (AIPerf needs FFmpeg for video).
 *
 *   deno run -A scripts/parity/capture_aiperf_video.ts [--aiperf /path/to/aiperf]
 */
import { join } from "node:path";
import { aiperfBin, ROOT, run, startSim, TOKENIZER } from "./harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";

const AIPERF = aiperfBin(Deno.args);
const OUT = join(ROOT, "tests/fixtures/aiperf_0_13/video_chat");

const SETTINGS: Record<string, string[]> = {
  webm_defaults: ["--video-width", "64", "--video-height", "48", "--video-batch-size", "2"],
  mp4_audio: [
    "--video-width",
    "64",
    "--video-height",
    "48",
    "--video-format",
    "mp4",
    "--video-fps",
    "2",
    "--video-duration",
    "1.5",
    "--video-audio-num-channels",
    "2",
  ],
};

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

function skeleton(value: Json): Json {
  if (typeof value === "string") {
    const m = /^(data:[^,]+),/.exec(value);
    return m === null ? value : `<${m[1]} …${value.length - m[0].length} chars>`;
  }
  if (Array.isArray(value)) return value.map(skeleton);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, skeleton(v)]));
  }
  return value;
}

async function probe(dataUrl: string, dir: string): Promise<string[]> {
  const path = join(dir, "clip");
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
}

const work = await Deno.makeTempDir({ prefix: "aiperf-video-" });
try {
  await Deno.mkdir(OUT, { recursive: true });
  for (const [name, extra] of Object.entries(SETTINGS)) {
    const journal = join(work, `${name}.jsonl`);
    const sim = await startSim(["--ttft", "1", "--itl", "0.1"], journal);
    const args = ["profile", "--model", "sim-model", "--tokenizer", TOKENIZER, "--ui-type", "none", "--endpoint-type"];
    args.push("chat", "--request-count", "2", "--isl", "20", "--random-seed", "7", ...extra, "--url", sim.url);
    const r = await run(AIPERF, args, work, { ...Deno.env.toObject(), HOME: work, NO_COLOR: "1" });
    await sim.stop();
    if (r.code !== 0) throw new Error(`aiperf exited ${r.code}: ${r.stderr}\n${r.stdout}`);
    const body = (await readRequestJournal(journal)).find((e) => e.path === "/v1/chat/completions")!.body as Json;
    const content = (body as { messages: { content: { video_url?: { url: string } }[] }[] }).messages[0].content;
    const url = content.find((p) => p.video_url !== undefined)!.video_url!.url;
    await Deno.writeTextFile(
      join(OUT, `${name}.json`),
      JSON.stringify(
        {
          command: `aiperf ${args.join(" ").replace(sim.url, "<sim>").replace(ROOT, "<repo>/")}`,
          first_request: skeleton(body),
          ffprobe_first_clip: await probe(url, work),
        },
        null,
        2,
      ) + "\n",
    );
    console.error(`${name} → ${OUT}/${name}.json`);
  }
} finally {
  await Deno.remove(work, { recursive: true });
}
