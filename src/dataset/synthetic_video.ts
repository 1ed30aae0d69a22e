/**
 * Synthetic videos for multimodal chat requests (AIPerf 0.13's `--video-*` options), made while the dataset is built:
 * `floor(duration × fps)` frames of the chosen pattern (`video_frames.ts`) at `width × height`, encoded as AIPerf
 * encodes them and inlined as `data:video/<format>;base64,…` (the chat API's `video_url` part).
 *
 * - With FFmpeg on the PATH (what AIPerf requires): raw RGB frames piped to `ffmpeg` with AIPerf's arguments —
 *   `--video-format` (webm, mp4; mp4 with `movflags faststart`), `--video-codec` (any the local FFmpeg has;
 *   libvpx-vp9 by default), `yuv420p`; with `--video-audio-num-channels` 1 or 2, a Gaussian-noise WAV track of the
 *   clip's length (`--video-audio-sample-rate`, `--video-audio-depth`) encoded with `--video-audio-codec` (by default
 *   libvorbis for webm, libopus for mp4) and cut to the video (`-shortest`).
 * - Without FFmpeg, `--video-format mp4 --video-codec mjpeg` (no audio) is encoded here: each frame a JPEG (quality
 *   75), muxed into MP4 (`mjpeg_mp4.ts`), which the servers' decoders (FFmpeg, PyAV, OpenCV, decord) read. Any other
 *   codec without FFmpeg is refused before the run, with how to install it.
 *
 * Patterns without randomness (`moving_shapes`, `grid_clock`) give the same clip every time, so it is encoded once
 * and reused; `noise` clips are each new (stream `media.video.noise`).
 */
import type { SeededRandom } from "../base/seeded_random.ts";
import type { MediaItem } from "./conversation.ts";
import { encodeWav } from "./wav_file.ts";
import { mjpegMp4 } from "./mjpeg_mp4.ts";
import { videoFrames, type VideoSynthType } from "./video_frames.ts";

export type VideoFormat = "mp4" | "webm";
export type VideoAudioCodec = "aac" | "libvorbis" | "libopus";

export interface VideoOptions {
  /** Videos per turn; 0 = none. */
  readonly batchSize: number;
  readonly durationS: number;
  readonly fps: number;
  /** Both or neither: without them no video is made (AIPerf). */
  readonly width?: number;
  readonly height?: number;
  readonly synthType: VideoSynthType;
  readonly format: VideoFormat;
  readonly codec: string;
  /** In kHz (AIPerf's schema; `--video-audio-sample-rate 44100` is read as 44.1). */
  readonly audioSampleRateKhz: number;
  readonly audioChannels: number;
  readonly audioCodec?: VideoAudioCodec;
  readonly audioDepth: number;
}

/** AIPerf's audio codec per container when `--video-audio-codec` is not given. */
const DEFAULT_AUDIO_CODEC: Readonly<Record<VideoFormat, VideoAudioCodec>> = { webm: "libvorbis", mp4: "libopus" };

/** Whether these options make videos (a width, a height and a batch size). */
export function videosOn(o: VideoOptions | undefined): o is VideoOptions & { width: number; height: number } {
  return o !== undefined && o.batchSize > 0 && (o.width ?? 0) > 0 && (o.height ?? 0) > 0;
}

/** The codec infermeter encodes without FFmpeg. */
export function builtInEncoder(o: VideoOptions): boolean {
  return o.codec === "mjpeg" && o.format === "mp4" && o.audioChannels === 0;
}

/**
 * Checks the options before anything is made.
 * @throws {RangeError} naming the option: a width without a height, an audio codec without audio channels, an audio
 * rate or depth out of range.
 */
export function checkVideoOptions(o: VideoOptions): void {
  if ((o.width === undefined) !== (o.height === undefined)) {
    throw new RangeError("--video-width and --video-height go together: give both or neither");
  }
  if (o.audioCodec !== undefined && o.audioChannels === 0) {
    throw new RangeError(
      `--video-audio-codec '${o.audioCodec}' is set but --video-audio-num-channels is 0 (audio disabled). Set ` +
        "--video-audio-num-channels to 1 or 2 to enable audio.",
    );
  }
  if (!(o.audioSampleRateKhz >= 8 && o.audioSampleRateKhz <= 96)) {
    throw new RangeError(
      `--video-audio-sample-rate must be 8–96 kHz (or 8000–96000 Hz), got ${o.audioSampleRateKhz} kHz`,
    );
  }
  if (![8, 16, 24, 32].includes(o.audioDepth)) {
    throw new RangeError(`--video-audio-depth must be 8, 16, 24 or 32, got ${o.audioDepth}`);
  }
}

let ffmpegFound: Promise<boolean> | undefined;

/** Whether `ffmpeg` runs here (asked once). */
export function hasFfmpeg(): Promise<boolean> {
  ffmpegFound ??= new Deno.Command("ffmpeg", { args: ["-version"], stdout: "null", stderr: "null" }).output()
    .then((r) => r.success, () => false);
  return ffmpegFound;
}

/**
 * Why these videos cannot be encoded here, or undefined (said before anything is built).
 * @param ffmpeg whether FFmpeg runs here. @default asked (`hasFfmpeg`)
 */
export async function videoEncoderProblem(o: VideoOptions, ffmpeg?: boolean): Promise<string | undefined> {
  if (!videosOn(o) || builtInEncoder(o) || (ffmpeg ?? await hasFfmpeg())) return undefined;
  return `--video-codec ${o.codec} (--video-format ${o.format}) is encoded by FFmpeg, as AIPerf does, and ffmpeg is ` +
    "not on the PATH. Install it (Debian/Ubuntu: sudo apt install ffmpeg; Fedora: sudo dnf install ffmpeg; macOS: " +
    "brew install ffmpeg), or use --video-format mp4 --video-codec mjpeg (without audio), which infermeter encodes " +
    "itself.";
}

/** The line said before the clips are made (encoding many can take a while). */
export function describeVideos(o: VideoOptions & { width: number; height: number }): string {
  const frames = Math.floor(o.durationS * o.fps);
  const encoder = builtInEncoder(o) ? "infermeter's MJPEG/MP4 writer" : `FFmpeg (${o.codec}, ${o.format})`;
  const audio = o.audioChannels === 0 ? "" : `, ${o.audioChannels === 1 ? "mono" : "stereo"} noise audio`;
  const reuse = o.synthType !== "noise" && o.audioChannels === 0
    ? "one clip, encoded once"
    : "every clip encoded anew, one encoder per core at a time";
  return `Video: ${o.batchSize} clip${o.batchSize === 1 ? "" : "s"} per turn, ${o.width}×${o.height}, ${frames} ` +
    `frames of ${o.synthType}${audio}, by ${encoder}; ${reuse}`;
}

/** Makes the videos of each turn. */
export class VideoSynthesizer {
  readonly #o: VideoOptions & { width: number; height: number };
  readonly #noise: SeededRandom;
  readonly #audio: SeededRandom;
  #fixed: Promise<string> | undefined;

  constructor(o: VideoOptions & { width: number; height: number }, root: SeededRandom) {
    checkVideoOptions(o);
    this.#o = o;
    this.#noise = root.derive("media.video.noise");
    this.#audio = root.derive("media.video.audio");
  }

  /**
   * One turn's videos. Their frames and audio are drawn when called, so calls may overlap (clips then encode in
   * parallel, one FFmpeg each) and still give the same clips in the same order.
   * @throws {RangeError} when they cannot be encoded here (no FFmpeg for the codec, or FFmpeg failed), saying why.
   */
  next(): Promise<MediaItem[]> {
    const clips: Promise<string>[] = [];
    for (let i = 0; i < this.#o.batchSize; i++) clips.push(this.#clip());
    return Promise.all(clips).then((urls) => urls.map((dataUrl): MediaItem => ({ kind: "video", dataUrl })));
  }

  #clip(): Promise<string> {
    // Without audio or noise, every clip is the same: encode it once.
    if (this.#o.synthType !== "noise" && this.#o.audioChannels === 0) return this.#fixed ??= this.#encode();
    return this.#encode();
  }

  /** Draws the clip now (frames, audio), encodes it later. */
  #encode(): Promise<string> {
    const o = this.#o;
    const frames = videoFrames(o.synthType, o.width, o.height, Math.floor(o.durationS * o.fps), this.#noise);
    if (frames.length === 0) return Promise.reject(new RangeError("--video-duration × --video-fps makes no frame"));
    const audio = this.#audioTrack();
    return (async () => {
      const problem = await videoEncoderProblem(o);
      if (problem !== undefined) throw new RangeError(problem);
      const bytes = builtInEncoder(o) ? await encodeMjpegMp4(frames, o) : await encodeWithFfmpeg(frames, o, audio);
      return `data:video/${o.format};base64,${bytes.toBase64()}`;
    })();
  }

  /** The noise WAV of the clip's audio track, or undefined without audio. */
  #audioTrack(): Uint8Array | undefined {
    const o = this.#o;
    if (o.audioChannels === 0) return undefined;
    const rate = Math.trunc(o.audioSampleRateKhz * 1000);
    const frames = Math.floor(o.durationS * rate);
    const channels: Float64Array[] = [];
    for (let c = 0; c < o.audioChannels; c++) channels.push(new Float64Array(frames));
    for (let i = 0; i < frames; i++) {
      for (let c = 0; c < o.audioChannels; c++) {
        channels[c][i] = Math.max(-1, Math.min(1, this.#audio.normal(0, 0.3)));
      }
    }
    return encodeWav(channels, rate, o.audioDepth);
  }
}

async function encodeMjpegMp4(frames: readonly Uint8Array[], o: VideoOptions & { width: number; height: number }) {
  const jpeg = await import("jpeg-js");
  const encode = (jpeg as unknown as { encode?: typeof jpeg.encode }).encode ?? jpeg.default.encode;
  const rgba = new Uint8Array(o.width * o.height * 4);
  const jpegs = frames.map((rgb) => {
    for (let i = 0, j = 0; i < rgb.length; i += 3, j += 4) {
      rgba[j] = rgb[i];
      rgba[j + 1] = rgb[i + 1];
      rgba[j + 2] = rgb[i + 2];
      rgba[j + 3] = 255;
    }
    return new Uint8Array(encode({ width: o.width, height: o.height, data: rgba }, 75).data);
  });
  return mjpegMp4(jpegs, { width: o.width, height: o.height, fps: o.fps });
}

async function encodeWithFfmpeg(
  frames: readonly Uint8Array[],
  o: VideoOptions & { width: number; height: number },
  audio: Uint8Array | undefined,
): Promise<Uint8Array> {
  const dir = await Deno.makeTempDir({ prefix: "infermeter-video-" });
  try {
    const out = `${dir}/output.${o.format}`;
    const args = ["-hide_banner", "-loglevel", "error"];
    args.push(
      "-f",
      "rawvideo",
      "-pix_fmt",
      "rgb24",
      "-s",
      `${o.width}x${o.height}`,
      "-r",
      String(o.fps),
      "-i",
      "pipe:",
    );
    if (audio !== undefined) {
      await Deno.writeFile(`${dir}/audio.wav`, audio);
      args.push("-i", `${dir}/audio.wav`);
    }
    args.push("-f", o.format, "-vcodec", o.codec, "-pix_fmt", "yuv420p");
    if (o.format === "mp4") args.push("-movflags", "faststart");
    if (audio !== undefined) args.push("-acodec", o.audioCodec ?? DEFAULT_AUDIO_CODEC[o.format], "-shortest");
    args.push("-y", out);
    const child = new Deno.Command("ffmpeg", { args, stdin: "piped", stdout: "null", stderr: "piped" }).spawn();
    const writer = child.stdin.getWriter();
    const written = (async () => {
      for (const f of frames) await writer.write(f);
      await writer.close();
    })().catch(() => {}); // ffmpeg may exit early on a bad codec: its stderr says why
    const [result] = await Promise.all([child.output(), written]);
    if (!result.success) {
      const why = new TextDecoder().decode(result.stderr).trim().split("\n").slice(-3).join(" ");
      throw new RangeError(
        `ffmpeg could not encode the video (codec ${o.codec}, ${o.width}x${o.height}, ${o.fps} fps, ${o.format}): ${why}`,
      );
    }
    const bytes = await Deno.readFile(out);
    if (bytes.length === 0) throw new RangeError("ffmpeg produced no output");
    return bytes;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
