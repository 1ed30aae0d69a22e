/** PCM WAV files of synthetic audio (the `--audio-*` clips and the audio track of `--video-*` clips). */

/**
 * PCM WAV: a RIFF header, a `fmt ` chunk (format 1, channels, rate, byte rate, block align, bits) and a `data`
 * chunk of interleaved little-endian samples; 8-bit samples are unsigned (offset 128), wider ones signed.
 */
export function encodeWav(channels: readonly Float64Array[], rate: number, bits: number): Uint8Array {
  const n = channels.length;
  const frames = channels[0].length;
  const bytesPer = bits / 8;
  const dataLen = frames * n * bytesPer;
  const out = new Uint8Array(44 + dataLen);
  const v = new DataView(out.buffer);
  const ascii = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
  };
  ascii(0, "RIFF");
  v.setUint32(4, 36 + dataLen, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, n, true);
  v.setUint32(24, rate, true);
  v.setUint32(28, rate * n * bytesPer, true);
  v.setUint16(32, n * bytesPer, true);
  v.setUint16(34, bits, true);
  ascii(36, "data");
  v.setUint32(40, dataLen, true);
  // AIPerf scales 8-bit audio as 16-bit before writing; the resulting unsigned byte is the same up to rounding.
  const max = 2 ** (bits - 1) - 1;
  let at = 44;
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < n; c++) {
      const s = Math.trunc(channels[c][i] * max);
      if (bits === 8) out[at] = s + 128;
      else if (bits === 16) v.setInt16(at, s, true);
      else if (bits === 24) {
        out[at] = s & 255;
        out[at + 1] = (s >> 8) & 255;
        out[at + 2] = (s >> 16) & 255;
      } else v.setInt32(at, s, true);
      at += bytesPer;
    }
  }
  return out;
}
