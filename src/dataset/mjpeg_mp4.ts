/**
 * Motion-JPEG in an MP4 file, written without FFmpeg: one video track whose samples are whole JPEG images (the
 * QuickTime `jpeg` sample entry, which FFmpeg, PyAV, OpenCV and decord — what vLLM and SGLang decode video with — read
 * as MJPEG), every frame a sync sample, at a constant frame rate. The `moov` box comes before `mdat` ("faststart"),
 * as AIPerf asks FFmpeg for, so a reader needs no seek to the end.
 *
 * Layout (ISO/IEC 14496-12): `ftyp` (isom), `moov` { `mvhd`, `trak` { `tkhd`, `mdia` { `mdhd` (timescale = fps,
 * one tick per frame), `hdlr` (vide), `minf` { `vmhd`, `dinf`/`dref`, `stbl` { `stsd`, `stts`, `stsc`, `stsz`,
 * `stco` } } } } }, `mdat`.
 */

class Writer {
  readonly #parts: Uint8Array[] = [];
  #size = 0;

  get size(): number {
    return this.#size;
  }

  bytes(b: Uint8Array): this {
    this.#parts.push(b);
    this.#size += b.length;
    return this;
  }

  u8(n: number): this {
    return this.bytes(Uint8Array.of(n));
  }

  u16(n: number): this {
    const b = new Uint8Array(2);
    new DataView(b.buffer).setUint16(0, n);
    return this.bytes(b);
  }

  u32(n: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, n >>> 0);
    return this.bytes(b);
  }

  ascii(s: string): this {
    return this.bytes(new TextEncoder().encode(s));
  }

  zeros(n: number): this {
    return this.bytes(new Uint8Array(n));
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.#size);
    let at = 0;
    for (const p of this.#parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

function box(type: string, ...children: Uint8Array[]): Uint8Array {
  const w = new Writer();
  const size = 8 + children.reduce((n, c) => n + c.length, 0);
  w.u32(size).ascii(type);
  for (const c of children) w.bytes(c);
  return w.finish();
}

/** A full box: version and flags, then the body. */
function fullBox(type: string, version: number, flags: number, body: Uint8Array): Uint8Array {
  const head = new Writer().u8(version).u8((flags >>> 16) & 255).u16(flags & 0xffff).finish();
  return box(type, head, body);
}

/** The unity transformation matrix of `mvhd` and `tkhd`. */
function matrix(w: Writer): Writer {
  return w.u32(0x00010000).u32(0).u32(0).u32(0).u32(0x00010000).u32(0).u32(0).u32(0).u32(0x40000000);
}

export interface MjpegMp4Options {
  readonly width: number;
  readonly height: number;
  /** Frames per second (a whole number). */
  readonly fps: number;
}

/** The MP4 file of `frames` (each a complete JPEG image). */
export function mjpegMp4(frames: readonly Uint8Array[], o: MjpegMp4Options): Uint8Array {
  if (!Number.isInteger(o.fps) || o.fps < 1) throw new RangeError(`fps must be a whole number ≥ 1, got ${o.fps}`);
  const count = frames.length;
  const durationMs = Math.round((count * 1000) / o.fps);
  const ftyp = box(
    "ftyp",
    new Writer().ascii("isom").u32(0x200).ascii("isom").ascii("iso2").ascii("mp41").finish(),
  );
  const mvhd = fullBox(
    "mvhd",
    0,
    0,
    matrix(new Writer().u32(0).u32(0).u32(1000).u32(durationMs).u32(0x00010000).u16(0x0100).zeros(10))
      .zeros(24).u32(2).finish(),
  );
  const tkhd = fullBox(
    "tkhd",
    0,
    3, // enabled, in movie
    matrix(new Writer().u32(0).u32(0).u32(1).u32(0).u32(durationMs).zeros(8).u16(0).u16(0).u16(0).u16(0))
      .u32(o.width << 16).u32(o.height << 16).finish(),
  );
  const mdhd = fullBox(
    "mdhd",
    0,
    0,
    new Writer().u32(0).u32(0).u32(o.fps).u32(count).u16(0x55c4).u16(0).finish(), // language "und"
  );
  const hdlr = fullBox("hdlr", 0, 0, new Writer().u32(0).ascii("vide").zeros(12).ascii("VideoHandler\0").finish());
  const vmhd = fullBox("vmhd", 0, 1, new Writer().u16(0).u16(0).u16(0).u16(0).finish());
  const dinf = box(
    "dinf",
    fullBox("dref", 0, 0, new Writer().u32(1).bytes(fullBox("url ", 0, 1, new Uint8Array(0))).finish()),
  );
  const name = new Uint8Array(32);
  const label = new TextEncoder().encode("Photo - JPEG");
  name[0] = label.length;
  name.set(label, 1);
  const jpegEntry = box(
    "jpeg",
    new Writer().zeros(6).u16(1) // reserved, data reference index
      .zeros(16) // pre-defined and reserved
      .u16(o.width).u16(o.height)
      .u32(0x00480000).u32(0x00480000) // 72 dpi
      .u32(0).u16(1) // reserved, one frame per sample
      .bytes(name)
      .u16(0x0018).u16(0xffff) // depth 24, pre-defined -1
      .finish(),
  );
  const stsd = fullBox("stsd", 0, 0, new Writer().u32(1).bytes(jpegEntry).finish());
  const stts = fullBox("stts", 0, 0, new Writer().u32(1).u32(count).u32(1).finish());
  const stsc = fullBox("stsc", 0, 0, new Writer().u32(1).u32(1).u32(count).u32(1).finish());
  const sizes = new Writer().u32(0).u32(count);
  for (const f of frames) sizes.u32(f.length);
  const stsz = fullBox("stsz", 0, 0, sizes.finish());
  const moovWith = (offset: number) => {
    const stco = fullBox("stco", 0, 0, new Writer().u32(1).u32(offset).finish());
    const stbl = box("stbl", stsd, stts, stsc, stsz, stco);
    const minf = box("minf", vmhd, dinf, stbl);
    const mdia = box("mdia", mdhd, hdlr, minf);
    return box("moov", mvhd, box("trak", tkhd, mdia));
  };
  // The chunk offset does not change the moov's size: size it once, then write the real offset.
  const dataOffset = ftyp.length + moovWith(0).length + 8;
  const mdatSize = 8 + frames.reduce((n, f) => n + f.length, 0);
  if (dataOffset + mdatSize > 0xffffffff) throw new RangeError("the video is larger than 4 GiB");
  const out = new Writer().bytes(ftyp).bytes(moovWith(dataOffset)).u32(mdatSize).ascii("mdat");
  for (const f of frames) out.bytes(f);
  return out.finish();
}
