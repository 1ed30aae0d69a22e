import assert from "node:assert/strict";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { videoFrames } from "../../src/dataset/video_frames.ts";
import {
  builtInEncoder,
  checkVideoOptions,
  hasFfmpeg,
  videoEncoderProblem,
  type VideoOptions,
  VideoSynthesizer,
} from "../../src/dataset/synthetic_video.ts";

const BASE: VideoOptions & { width: number; height: number } = {
  batchSize: 2,
  durationS: 1.5,
  fps: 4,
  width: 64,
  height: 48,
  synthType: "moving_shapes",
  format: "mp4",
  codec: "mjpeg",
  audioSampleRateKhz: 44.1,
  audioChannels: 0,
  audioDepth: 16,
};

function pixel(frame: Uint8Array, width: number, x: number, y: number): number[] {
  const at = (y * width + x) * 3;
  return [frame[at], frame[at + 1], frame[at + 2]];
}

Deno.test("video frames: floor(duration × fps) of AIPerf's pictures at the asked size", () => {
  const rng = new SeededRandom(1);
  const shapes = videoFrames("moving_shapes", 64, 48, 6, rng);
  assert.equal(shapes.length, 6);
  assert.equal(shapes[0].length, 64 * 48 * 3);
  // Frame 0: red circle at (0, 24), green square at (32, 0), blue circle at (64, 48) wrapped to (0, 0).
  assert.deepEqual(pixel(shapes[0], 64, 1, 24), [255, 0, 0]);
  assert.deepEqual(pixel(shapes[0], 64, 32, 1), [0, 255, 0]);
  assert.deepEqual(pixel(shapes[0], 64, 1, 1), [0, 0, 255]);
  assert.deepEqual(pixel(shapes[0], 64, 40, 40), [0, 0, 0]);
  // The red circle moves right by 2 × width / frames per frame (to x ≈ 21; the square, drawn after it, now covers
  // x 20–44, y 4–28).
  assert.deepEqual(pixel(shapes[1], 64, 21, 34), [255, 0, 0]);
  assert.deepEqual(pixel(shapes[0], 64, 21, 34), [0, 0, 0]);
  const clock = videoFrames("grid_clock", 64, 48, 4, rng);
  assert.deepEqual(pixel(clock[0], 64, 0, 5), [64, 64, 64]); // grid line at x = 0
  assert.deepEqual(pixel(clock[0], 64, 20, 40), [32, 32, 32]);
  assert.deepEqual(pixel(clock[0], 64, 32, 24), [255, 0, 0]); // centre dot
  const a = videoFrames("noise", 8, 8, 2, new SeededRandom(5));
  const b = videoFrames("noise", 8, 8, 2, new SeededRandom(5));
  assert.deepEqual(a, b);
  assert.notDeepEqual(a[0], a[1]);
  assert.deepEqual(videoFrames("noise", 8, 8, 0, rng), []);
});

Deno.test("video options are checked as AIPerf checks them", () => {
  assert.throws(
    () => checkVideoOptions({ ...BASE, height: undefined }),
    /--video-width and --video-height go together/,
  );
  assert.throws(
    () => checkVideoOptions({ ...BASE, audioCodec: "libopus" }),
    /--video-audio-codec 'libopus' is set but --video-audio-num-channels is 0/,
  );
  assert.throws(() => checkVideoOptions({ ...BASE, audioSampleRateKhz: 4 }), /8–96 kHz/);
  assert.throws(() => checkVideoOptions({ ...BASE, audioDepth: 12 }), /8, 16, 24 or 32/);
  checkVideoOptions(BASE);
});

Deno.test("clips are encoded by FFmpeg, or, for MJPEG in MP4, by infermeter; without FFmpeg others are refused", async () => {
  assert.ok(builtInEncoder(BASE));
  assert.ok(!builtInEncoder({ ...BASE, audioChannels: 1 }));
  assert.equal(await videoEncoderProblem(BASE, false), undefined);
  assert.equal(await videoEncoderProblem({ ...BASE, codec: "libvpx-vp9", format: "webm" }, true), undefined);
  assert.match(
    (await videoEncoderProblem({ ...BASE, codec: "libvpx-vp9", format: "webm" }, false))!,
    /--video-codec libvpx-vp9 \(--video-format webm\) is encoded by FFmpeg.*--video-format mp4 --video-codec mjpeg/,
  );
  // No video without a size: nothing to refuse.
  assert.equal(
    await videoEncoderProblem({ ...BASE, codec: "x", width: undefined, height: undefined }, false),
    undefined,
  );
});

Deno.test("a turn carries batch-size MJPEG MP4 clips; clips without noise are encoded once", async () => {
  const synth = new VideoSynthesizer(BASE, new SeededRandom(3));
  const first = await synth.next();
  const second = await synth.next();
  assert.equal(first.length, 2);
  assert.ok(first.every((m) => m.kind === "video" && m.dataUrl!.startsWith("data:video/mp4;base64,")));
  assert.equal(second[0].dataUrl, first[0].dataUrl);
  const bytes = Uint8Array.fromBase64(first[0].dataUrl!.split(",")[1]);
  assert.equal(new TextDecoder().decode(bytes.subarray(4, 8)), "ftyp");
  const noise = new VideoSynthesizer({ ...BASE, synthType: "noise", batchSize: 1 }, new SeededRandom(3));
  assert.notEqual((await noise.next())[0].dataUrl, (await noise.next())[0].dataUrl);
});

Deno.test("noise clips asked for at once are the clips asked for one by one, in the same order", async () => {
  const noise = { ...BASE, synthType: "noise" as const, batchSize: 2 };
  const oneByOne = new VideoSynthesizer(noise, new SeededRandom(11));
  const sequential: string[] = [];
  for (let i = 0; i < 3; i++) sequential.push(...(await oneByOne.next()).map((m) => m.dataUrl!));
  const atOnce = new VideoSynthesizer(noise, new SeededRandom(11));
  const overlapped = (await Promise.all([atOnce.next(), atOnce.next(), atOnce.next()])).flat().map((m) => m.dataUrl!);
  assert.equal(new Set(sequential).size, 6);
  assert.deepEqual(overlapped, sequential);
});

Deno.test("with FFmpeg, clips come in the asked container and codec, with an audio track when asked", async () => {
  if (!await hasFfmpeg()) return; // refused before the run instead (the test above and tests/e2e/video_input_test.ts)
  const webm = await new VideoSynthesizer(
    { ...BASE, format: "webm", codec: "libvpx-vp9", batchSize: 1 },
    new SeededRandom(1),
  )
    .next();
  const bytes = Uint8Array.fromBase64(webm[0].dataUrl!.split(",")[1]);
  assert.ok(webm[0].dataUrl!.startsWith("data:video/webm;base64,"));
  assert.deepEqual([...bytes.subarray(0, 4)], [0x1a, 0x45, 0xdf, 0xa3]); // EBML
  const probe = async (data: Uint8Array) => {
    const path = await Deno.makeTempFile();
    await Deno.writeFile(path, data);
    const out = await new Deno.Command("ffprobe", {
      args: ["-v", "error", "-show_entries", "stream=codec_name,width,height,r_frame_rate", "-of", "csv=p=0", path],
      stdout: "piped",
    }).output();
    await Deno.remove(path);
    return new TextDecoder().decode(out.stdout).trim().split("\n");
  };
  assert.deepEqual(await probe(bytes), ["vp9,64,48,4/1"]);
  const withAudio = await new VideoSynthesizer(
    { ...BASE, format: "mp4", codec: "libvpx-vp9", audioChannels: 2, batchSize: 1 },
    new SeededRandom(1),
  ).next();
  assert.deepEqual(await probe(Uint8Array.fromBase64(withAudio[0].dataUrl!.split(",")[1])), [
    "vp9,64,48,4/1",
    "opus,0/0",
  ]);
  const mjpeg = await new VideoSynthesizer(BASE, new SeededRandom(1)).next();
  assert.deepEqual(await probe(Uint8Array.fromBase64(mjpeg[0].dataUrl!.split(",")[1])), ["mjpeg,64,48,4/1"]);
});
