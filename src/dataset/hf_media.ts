/**
 * Media of Hugging Face dataset rows (`{bytes, path}` structs, as the Hub stores `Image` and `Audio` columns) turned
 * into turn media.
 *
 * Images are sent as the bytes stored, with their own MIME type (AIPerf 0.13 re-encodes every image as JPEG at
 * quality 85; infermeter has no image codec, so a PNG stays a PNG — the picture is the same, the request a little
 * larger or smaller).
 *
 * Audio is decoded and re-encoded as 16-bit PCM WAV exactly as AIPerf does with soundfile (`sf.read` then `sf.write`
 * with format WAV): a canonical 44-byte header, the channels kept, each sample `lrint(x · 32768)` clipped to 16 bits,
 * so a 16-bit source comes out sample for sample. WAV (PCM 8/16/24/32-bit, float 32/64-bit) and FLAC are read;
 * bytes in another container are reported as unreadable, never silently dropped.
 */
import type { MediaItem } from "./conversation.ts";

/** The `{bytes, path}` struct items of a column value (one struct, or a list of them). */
function structs(value: unknown): { bytes?: unknown; path?: unknown }[] {
  const items = Array.isArray(value) ? value : [value];
  return items.filter((v): v is { bytes?: unknown; path?: unknown } => typeof v === "object" && v !== null);
}

function toBytes(value: unknown): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value.length > 0 ? value : undefined;
  // A JSON data file stores bytes as a list of numbers.
  if (Array.isArray(value) && value.length > 0 && value.every((b) => typeof b === "number")) {
    return Uint8Array.from(value as number[]);
  }
  return undefined;
}

/** The MIME type of image bytes by their signature, or undefined when they are no image a server reads. */
export function imageMime(bytes: Uint8Array): string | undefined {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (starts(0xff, 0xd8, 0xff)) return "image/jpeg";
  if (starts(0x47, 0x49, 0x46, 0x38)) return "image/gif";
  if (starts(0x52, 0x49, 0x46, 0x46) && String.fromCharCode(...bytes.subarray(8, 12)) === "WEBP") return "image/webp";
  if (starts(0x42, 0x4d)) return "image/bmp";
  return undefined;
}

/**
 * The first image of a column value with readable bytes, as a data URL (AIPerf: the first valid image; path-only
 * items and unreadable bytes are skipped), or none.
 */
export function firstImage(value: unknown): MediaItem[] {
  for (const item of structs(value)) {
    const bytes = toBytes(item.bytes);
    const mime = bytes && imageMime(bytes);
    if (bytes && mime) return [{ kind: "image", dataUrl: `data:${mime};base64,${base64(bytes)}` }];
  }
  return [];
}

/** Decoded audio: interleaved samples in [-1, 1]. */
export interface DecodedAudio {
  readonly sampleRate: number;
  readonly channels: number;
  /** Frames × channels, interleaved. */
  readonly samples: Float64Array | Float32Array;
}

/** Why audio bytes could not be decoded (the caller decides whether that skips the row or stops the run). */
export class AudioFormatError extends Error {
  override readonly name = "AudioFormatError";
}

/** The bytes of an audio column value (`{bytes, path}`), or undefined when there are none (AIPerf skips the row). */
export function audioBytes(value: unknown): Uint8Array | undefined {
  const [item] = structs(value);
  return item === undefined ? undefined : toBytes(item.bytes);
}

/**
 * Decodes WAV or FLAC bytes.
 * @throws {AudioFormatError} for another container, or WAV/FLAC it cannot read.
 */
export async function decodeAudio(bytes: Uint8Array): Promise<DecodedAudio> {
  const tag = String.fromCharCode(...bytes.subarray(0, 4));
  if (tag === "RIFF") return decodeWav(bytes);
  if (tag === "fLaC") return await decodeFlac(bytes);
  const kind = tag === "OggS"
    ? "Ogg"
    : tag.startsWith("ID3") || (bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0)
    ? "MP3"
    : "an unknown format";
  throw new AudioFormatError(`audio in ${kind}: infermeter reads WAV and FLAC audio`);
}

function decodeWav(bytes: Uint8Array): DecodedAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (String.fromCharCode(...bytes.subarray(8, 12)) !== "WAVE") throw new AudioFormatError("RIFF audio is not WAVE");
  let fmt: { format: number; channels: number; rate: number; bits: number } | undefined;
  for (let off = 12; off + 8 <= bytes.length;) {
    const id = String.fromCharCode(...bytes.subarray(off, off + 4));
    const size = view.getUint32(off + 4, true);
    const body = off + 8;
    if (id === "fmt ") {
      let format = view.getUint16(body, true);
      if (format === 0xfffe && size >= 26) format = view.getUint16(body + 24, true);
      fmt = {
        format,
        channels: view.getUint16(body + 2, true),
        rate: view.getUint32(body + 4, true),
        bits: view.getUint16(body + 14, true),
      };
    } else if (id === "data") {
      if (fmt === undefined) throw new AudioFormatError("WAV data before its fmt chunk");
      const end = Math.min(bytes.length, body + size);
      const width = fmt.bits / 8;
      const n = Math.floor((end - body) / width);
      const samples = new Float64Array(n);
      for (let i = 0; i < n; i++) samples[i] = wavSample(view, body + i * width, fmt.format, fmt.bits);
      return { sampleRate: fmt.rate, channels: fmt.channels, samples };
    }
    off = body + size + (size & 1);
  }
  throw new AudioFormatError("WAV without a data chunk");
}

/** One WAV sample in [-1, 1] as libsndfile reads it (integer PCM divided by 2^(bits-1); 8-bit is unsigned). */
function wavSample(view: DataView, at: number, format: number, bits: number): number {
  if (format === 3 && bits === 32) return view.getFloat32(at, true);
  if (format === 3 && bits === 64) return view.getFloat64(at, true);
  if (format !== 1) throw new AudioFormatError(`WAV sample format ${format} (only PCM and IEEE float are read)`);
  if (bits === 8) return (view.getUint8(at) - 128) / 128;
  if (bits === 16) return view.getInt16(at, true) / 32768;
  if (bits === 24) {
    const v = view.getUint8(at) | (view.getUint8(at + 1) << 8) | (view.getInt8(at + 2) << 16);
    return v / 8388608;
  }
  if (bits === 32) return view.getInt32(at, true) / 2147483648;
  throw new AudioFormatError(`${bits}-bit WAV`);
}

async function decodeFlac(bytes: Uint8Array): Promise<DecodedAudio> {
  // Imported here: a WebAssembly decoder only audio datasets need.
  const { FLACDecoder } = await import("@wasm-audio-decoders/flac");
  const decoder = new FLACDecoder();
  await decoder.ready;
  try {
    const out = await decoder.decodeFile(bytes);
    if (out.errors.length > 0 || out.channelData.length === 0) {
      throw new AudioFormatError(`FLAC cannot be decoded: ${out.errors[0]?.message ?? "no audio"}`);
    }
    const channels = out.channelData.length;
    const frames = out.samplesDecoded;
    const samples = new Float64Array(frames * channels);
    for (let c = 0; c < channels; c++) {
      const data = out.channelData[c];
      for (let i = 0; i < frames; i++) samples[i * channels + c] = data[i];
    }
    return { sampleRate: out.sampleRate, channels, samples };
  } finally {
    decoder.free();
  }
}

/** Seconds of decoded audio. */
export function durationSeconds(audio: DecodedAudio): number {
  return audio.samples.length / audio.channels / audio.sampleRate;
}

/** 16-bit PCM WAV bytes as soundfile writes them (44-byte header, samples `lrint(x · 32768)` clipped). */
export function encodeWav16(audio: DecodedAudio): Uint8Array {
  const n = audio.samples.length;
  const out = new Uint8Array(44 + n * 2);
  const view = new DataView(out.buffer);
  const ascii = (at: number, s: string) => [...s].forEach((ch, i) => out[at + i] = ch.charCodeAt(0));
  ascii(0, "RIFF");
  view.setUint32(4, 36 + n * 2, true);
  ascii(8, "WAVEfmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, audio.channels, true);
  view.setUint32(24, audio.sampleRate, true);
  view.setUint32(28, audio.sampleRate * audio.channels * 2, true);
  view.setUint16(32, audio.channels * 2, true);
  view.setUint16(34, 16, true);
  ascii(36, "data");
  view.setUint32(40, n * 2, true);
  for (let i = 0; i < n; i++) {
    const v = roundHalfEven(audio.samples[i] * 32768);
    view.setInt16(44 + i * 2, Math.max(-32768, Math.min(32767, v)), true);
  }
  return out;
}

/** C's `lrint` under the default rounding mode. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** A WAV file as a turn's audio. */
export function wavMedia(wav: Uint8Array): MediaItem {
  return { kind: "audio", dataUrl: `data:audio/wav;base64,${base64(wav)}` };
}

export function base64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
