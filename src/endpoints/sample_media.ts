/**
 * The smallest valid inputs of each media kind, for requests that must carry one but whose content does not matter:
 * the readiness probe of an API that needs media (`--wait-for-model-mode inference`) and the conformance suites.
 */
import type { MediaItem, MediaKind } from "../dataset/conversation.ts";

/** A 1×1 transparent PNG. */
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/** `ms` of 16 kHz mono 16-bit PCM silence as a WAV file. */
export function silentWav(ms: number): Uint8Array {
  const samples = Math.round(16 * ms);
  const data = samples * 2;
  const out = new Uint8Array(44 + data);
  const v = new DataView(out.buffer);
  const text = (at: number, s: string) => [...s].forEach((c, i) => v.setUint8(at + i, c.charCodeAt(0)));
  text(0, "RIFF");
  v.setUint32(4, 36 + data, true);
  text(8, "WAVEfmt ");
  v.setUint32(16, 16, true); // fmt chunk size
  v.setUint16(20, 1, true); // PCM
  v.setUint16(22, 1, true); // mono
  v.setUint32(24, 16000, true); // sample rate
  v.setUint32(28, 32000, true); // byte rate
  v.setUint16(32, 2, true); // block align
  v.setUint16(34, 16, true); // bits per sample
  text(36, "data");
  v.setUint32(40, data, true);
  return out;
}

/** One tiny inline item of `kind` (video: none exists small enough to keep here, so a remote placeholder). */
export function sampleMedia(kind: MediaKind): MediaItem {
  if (kind === "image") return { kind, dataUrl: `data:image/png;base64,${PNG_1X1}` };
  if (kind === "audio") return { kind, dataUrl: `data:audio/wav;base64,${silentWav(10).toBase64()}` };
  return { kind, url: "https://example.invalid/sample.mp4" };
}
