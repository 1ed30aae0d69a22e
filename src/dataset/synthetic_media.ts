/**
 * Synthetic images and audio for multimodal runs (AIPerf's `--image-*` and `--audio-*` options), made while the
 * dataset is built — never on the request path — as real, decodable files inlined as data URLs.
 *
 * - Images (AIPerf's default `noise` source): width ~ Normal(widthMean, widthStddev) and height likewise, rounded, at
 *   least 1 pixel; RGB noise pixels; PNG (fast-png), JPEG (jpeg-js, quality 75 as PIL's default) or, for `random`,
 *   either with equal odds per image. `batchSize` images per turn; none when either mean is 0.
 * - Audio: duration ~ Normal(lengthMean, lengthStddev) seconds, at least 0.01 s (AIPerf's floor); the sample rate is
 *   drawn from `sampleRatesKhz` and multiplied by 1000 (AIPerf's kHz rule: 16 → 16000 Hz, 44.1 → 44100 Hz); the
 *   bit depth from `depths` (8, 16, 24 or 32; 8-bit is unsigned as WAV defines it); `channels` 1 or 2; samples
 *   `floor(duration × rate)` per channel of Gaussian noise (σ 0.3, clipped to ±1, as AIPerf). WAV is PCM in a RIFF
 *   container; MP3 is encoded by lamejs at 128 kbit/s and needs one of MPEG's sample rates. `batchSize` clips per
 *   turn; none when the mean is 0.
 * - Video: `synthetic_video.ts` (`--video-*`), after the images and audio of the turn.
 * - Deterministic: streams `media.image.*`, `media.audio.*` and `media.video.*` derived from the run's generator.
 *
 * Encoders are imported when the first file is made, so runs without media never load them.
 */
import type { SeededRandom } from "../base/seeded_random.ts";
import type { MediaItem } from "./conversation.ts";
import { encodeWav } from "./wav_file.ts";
import { type VideoOptions, videosOn, VideoSynthesizer } from "./synthetic_video.ts";

export { encodeWav };

export type ImageFormat = "png" | "jpeg" | "random";
export type AudioFormat = "wav" | "mp3";

export interface ImageOptions {
  readonly widthMean: number;
  readonly widthStddev: number;
  readonly heightMean: number;
  readonly heightStddev: number;
  readonly format: ImageFormat;
  readonly batchSize: number;
}

export interface AudioOptions {
  readonly lengthMean: number;
  readonly lengthStddev: number;
  readonly format: AudioFormat;
  readonly sampleRatesKhz: readonly number[];
  readonly depths: readonly number[];
  readonly channels: number;
  readonly batchSize: number;
}

export interface MediaOptions {
  readonly image?: ImageOptions;
  readonly audio?: AudioOptions;
  /** Synthetic video clips (`synthetic_video.ts`). */
  readonly video?: VideoOptions;
}

/** Sample rates MPEG audio layer III can carry (MPEG-1, -2 and -2.5), in Hz. */
export const MP3_SAMPLE_RATES: readonly number[] = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000];
const BIT_DEPTHS = [8, 16, 24, 32];

/** Whether these options ask for any media (AIPerf: images need both means > 0, audio a mean > 0). */
export function wantsMedia(o: MediaOptions | undefined): boolean {
  return o !== undefined && (imagesOn(o.image) || audioOn(o.audio) || videosOn(o.video));
}

function imagesOn(o: ImageOptions | undefined): o is ImageOptions {
  return o !== undefined && o.widthMean > 0 && o.heightMean > 0 && o.batchSize > 0;
}

function audioOn(o: AudioOptions | undefined): o is AudioOptions {
  return o !== undefined && o.lengthMean > 0 && o.batchSize > 0;
}

/**
 * Checks the options before anything is made.
 * @throws {RangeError} naming the option: an audio mean under 0.01 s, an unknown bit depth, a channel count other
 * than 1 or 2, an MP3 sample rate MPEG cannot carry.
 */
export function checkMediaOptions(o: MediaOptions): void {
  const a = o.audio;
  if (!audioOn(a)) return;
  if (a.lengthMean < 0.01) {
    throw new RangeError(`--audio-length-mean must be at least 0.01 seconds, got ${a.lengthMean}`);
  }
  for (const d of a.depths) {
    if (!BIT_DEPTHS.includes(d)) {
      throw new RangeError(`--audio-depths: ${d} is not a supported bit depth; use ${BIT_DEPTHS.join(", ")}`);
    }
  }
  if (a.channels !== 1 && a.channels !== 2) {
    throw new RangeError(`--audio-num-channels must be 1 (mono) or 2 (stereo), got ${a.channels}`);
  }
  for (const khz of a.sampleRatesKhz) {
    const hz = Math.trunc(khz * 1000);
    if (!(hz > 0)) throw new RangeError(`--audio-sample-rates: ${khz} kHz is not a positive rate`);
    if (a.format === "mp3" && !MP3_SAMPLE_RATES.includes(hz)) {
      throw new RangeError(
        `--audio-sample-rates: MP3 carries only ${MP3_SAMPLE_RATES.map((r) => r / 1000).join(", ")} kHz; ` +
          `got ${khz} kHz (${hz} Hz). Choose one of those, or --audio-format wav.`,
      );
    }
  }
}

type Encoders = {
  png: (width: number, height: number, rgb: Uint8Array) => Uint8Array;
  jpeg: (width: number, height: number, rgba: Uint8Array) => Uint8Array;
  mp3: (rate: number, channels: number, pcm: Int16Array[]) => Uint8Array;
};

async function loadEncoders(): Promise<Encoders> {
  const [{ encode: encodePng }, jpeg, lame] = await Promise.all([
    import("fast-png"),
    import("jpeg-js"),
    import("@breezystack/lamejs"),
  ]);
  return {
    png: (width, height, data) => encodePng({ width, height, data, channels: 3, depth: 8 }),
    jpeg: (width, height, data) => {
      const encode = (jpeg as unknown as { encode?: typeof jpeg.encode }).encode ?? jpeg.default.encode;
      return new Uint8Array(encode({ width, height, data }, 75).data);
    },
    mp3: (rate, channels, pcm) => {
      const encoder = new lame.Mp3Encoder(channels, rate, 128);
      const parts: Uint8Array[] = [];
      const block = 1152;
      for (let i = 0; i < pcm[0].length; i += block) {
        const left = pcm[0].subarray(i, i + block);
        const out = channels === 2
          ? encoder.encodeBuffer(left, pcm[1].subarray(i, i + block))
          : encoder.encodeBuffer(left);
        if (out.length > 0) parts.push(new Uint8Array(out));
      }
      parts.push(new Uint8Array(encoder.flush()));
      return concat(parts);
    },
  };
}

/** Makes the media of each synthetic turn, in turn order. */
export class MediaSynthesizer {
  readonly #o: MediaOptions;
  readonly #imageSize: SeededRandom;
  readonly #imageFormat: SeededRandom;
  readonly #imagePixels: SeededRandom;
  readonly #audioLength: SeededRandom;
  readonly #audioFormat: SeededRandom;
  readonly #audioData: SeededRandom;
  readonly #video: VideoSynthesizer | undefined;
  #encoders: Encoders | undefined;
  #loading: Promise<void> | undefined;

  constructor(options: MediaOptions, root: SeededRandom) {
    checkMediaOptions(options);
    this.#o = options;
    this.#imageSize = root.derive("media.image.size");
    this.#imageFormat = root.derive("media.image.format");
    this.#imagePixels = root.derive("media.image.pixels");
    this.#audioLength = root.derive("media.audio.length");
    this.#audioFormat = root.derive("media.audio.format");
    this.#audioData = root.derive("media.audio.data");
    this.#video = videosOn(options.video) ? new VideoSynthesizer(options.video, root) : undefined;
  }

  /**
   * The images, audio clips and videos of one turn (AIPerf's order). Everything random is drawn when called (once the
   * encoders are loaded, in call order), so calls may overlap — video clips then encode in parallel — and still give
   * the same media.
   */
  next(): Promise<MediaItem[]> {
    const encoders = this.#encoders;
    if (encoders === undefined) {
      this.#loading ??= loadEncoders().then((loaded) => {
        this.#encoders = loaded;
      });
      return this.#loading.then(() => this.next());
    }
    const items: MediaItem[] = [];
    const { image, audio } = this.#o;
    if (imagesOn(image)) { for (let i = 0; i < image.batchSize; i++) items.push(this.#image(image, encoders)); }
    if (audioOn(audio)) { for (let i = 0; i < audio.batchSize; i++) items.push(this.#audio(audio, encoders)); }
    if (this.#video === undefined) return Promise.resolve(items);
    return this.#video.next().then((videos) => [...items, ...videos]);
  }

  #image(o: ImageOptions, encoders: Encoders): MediaItem {
    const width = Math.max(1, Math.round(this.#imageSize.normal(o.widthMean, o.widthStddev)));
    const height = Math.max(1, Math.round(this.#imageSize.normal(o.heightMean, o.heightStddev)));
    const format = o.format === "random" ? (this.#imageFormat.int(2) === 0 ? "png" : "jpeg") : o.format;
    const channels = format === "png" ? 3 : 4;
    const pixels = new Uint8Array(width * height * channels);
    const words = new Uint32Array(pixels.buffer, 0, pixels.length >>> 2);
    for (let i = 0; i < words.length; i++) words[i] = this.#imagePixels.nextUint32();
    for (let i = words.length * 4; i < pixels.length; i++) pixels[i] = this.#imagePixels.nextUint32() & 255;
    const bytes = format === "png" ? encoders.png(width, height, pixels) : encoders.jpeg(width, height, pixels);
    return { kind: "image", dataUrl: `data:image/${format};base64,${bytes.toBase64()}` };
  }

  #audio(o: AudioOptions, encoders: Encoders): MediaItem {
    const seconds = Math.max(0.01, this.#audioLength.normal(o.lengthMean, o.lengthStddev));
    const rate = Math.trunc(o.sampleRatesKhz[this.#audioFormat.int(o.sampleRatesKhz.length)] * 1000);
    const depth = o.depths[this.#audioFormat.int(o.depths.length)];
    const frames = Math.floor(seconds * rate);
    const noise: Float64Array[] = [];
    for (let c = 0; c < o.channels; c++) noise.push(new Float64Array(frames));
    for (let i = 0; i < frames; i++) {
      for (let c = 0; c < o.channels; c++) noise[c][i] = Math.max(-1, Math.min(1, this.#audioData.normal(0, 0.3)));
    }
    const bytes = o.format === "mp3"
      ? encoders.mp3(rate, o.channels, noise.map((ch) => Int16Array.from(ch, (v) => Math.trunc(v * 32767))))
      : encodeWav(noise, rate, depth);
    return { kind: "audio", dataUrl: `data:audio/${o.format};base64,${bytes.toBase64()}` };
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
