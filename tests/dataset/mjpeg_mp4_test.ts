import assert from "node:assert/strict";
import { mjpegMp4 } from "../../src/dataset/mjpeg_mp4.ts";

/** The boxes at one level: type → [offset of the body, size of the body]. */
function boxes(b: Uint8Array, from = 0, to = b.length): Map<string, [number, number]> {
  const v = new DataView(b.buffer, b.byteOffset);
  const out = new Map<string, [number, number]>();
  for (let at = from; at < to;) {
    const size = v.getUint32(at);
    out.set(new TextDecoder().decode(b.subarray(at + 4, at + 8)), [at + 8, size - 8]);
    at += size;
  }
  return out;
}

function path(b: Uint8Array, names: string[]): [number, number] {
  let range: [number, number] = [0, b.length];
  for (const name of names) {
    const found = boxes(b, range[0], range[0] + range[1]).get(name);
    if (found === undefined) throw new Error(`no ${name}`);
    range = found;
  }
  return range;
}

Deno.test("MJPEG MP4: ftyp, moov before mdat, one JPEG sample per frame at a constant rate", () => {
  const jpegs = [Uint8Array.of(0xff, 0xd8, 1, 2, 0xff, 0xd9), Uint8Array.of(0xff, 0xd8, 3, 0xff, 0xd9)];
  const mp4 = mjpegMp4(jpegs, { width: 320, height: 240, fps: 4 });
  const v = new DataView(mp4.buffer);
  assert.deepEqual([...boxes(mp4).keys()], ["ftyp", "moov", "mdat"]);
  const [mvhd] = path(mp4, ["moov", "mvhd"]);
  assert.deepEqual([v.getUint32(mvhd + 12), v.getUint32(mvhd + 16)], [1000, 500]); // timescale, 2 frames at 4 fps
  const [tkhd, tkhdSize] = path(mp4, ["moov", "trak", "tkhd"]);
  assert.deepEqual([v.getUint32(tkhd + tkhdSize - 8) >>> 16, v.getUint32(tkhd + tkhdSize - 4) >>> 16], [320, 240]);
  const stbl = ["moov", "trak", "mdia", "minf", "stbl"];
  const [stsd] = path(mp4, [...stbl, "stsd"]);
  assert.equal(new TextDecoder().decode(mp4.subarray(stsd + 12, stsd + 16)), "jpeg");
  const [mdhd] = path(mp4, ["moov", "trak", "mdia", "mdhd"]);
  assert.deepEqual([v.getUint32(mdhd + 12), v.getUint32(mdhd + 16)], [4, 2]); // one tick per frame
  const [stsz] = path(mp4, [...stbl, "stsz"]);
  assert.deepEqual([v.getUint32(stsz + 8), v.getUint32(stsz + 12), v.getUint32(stsz + 16)], [2, 6, 5]);
  const [stco] = path(mp4, [...stbl, "stco"]);
  const offset = v.getUint32(stco + 8);
  const [mdat, mdatSize] = boxes(mp4).get("mdat")!;
  assert.equal(offset, mdat);
  assert.equal(mdatSize, 11);
  assert.deepEqual([...mp4.subarray(offset, offset + 2)], [0xff, 0xd8]);
  assert.throws(() => mjpegMp4(jpegs, { width: 1, height: 1, fps: 2.5 }), /whole number/);
});
