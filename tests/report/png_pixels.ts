/**
 * A PNG decoder just big enough to check charts: 8-bit RGB or RGBA, non-interlaced (what resvg writes). Inflates
 * the IDAT stream with the runtime's DecompressionStream and undoes the five row filters, so the pixels are exact.
 */
export interface Pixels {
  readonly width: number;
  readonly height: number;
  readonly channels: number;
  readonly data: Uint8Array;
}

function u32(b: Uint8Array, at: number): number {
  return ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;
}

/** @throws {Error} for anything but an 8-bit RGB(A) non-interlaced PNG. */
export async function decodePng(bytes: Uint8Array): Promise<Pixels> {
  const signature = [137, 80, 78, 71, 13, 10, 26, 10];
  if (!signature.every((b, i) => bytes[i] === b)) throw new Error("not a PNG signature");
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Uint8Array[] = [];
  for (let at = 8; at < bytes.length;) {
    const length = u32(bytes, at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") {
      width = u32(body, 0);
      height = u32(body, 4);
      if (body[8] !== 8 || body[12] !== 0) throw new Error("only 8-bit non-interlaced PNGs are read");
      channels = body[9] === 6 ? 4 : body[9] === 2 ? 3 : 0;
      if (channels === 0) throw new Error(`colour type ${body[9]} is not read`);
    } else if (type === "IDAT") idat.push(body);
    else if (type === "IEND") break;
    at += 12 + length;
  }
  const inflated = new Uint8Array(
    await new Response(new Blob(idat as BlobPart[]).stream().pipeThrough(new DecompressionStream("deflate")))
      .arrayBuffer(),
  );
  const stride = width * channels;
  if (inflated.length !== height * (stride + 1)) throw new Error("image data has the wrong size");
  const data = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = inflated[y * (stride + 1)];
    const row = inflated.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = data.subarray(y * stride, (y + 1) * stride);
    const up = y === 0 ? new Uint8Array(stride) : data.subarray((y - 1) * stride, y * stride);
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? out[x - channels] : 0;
      const b = up[x];
      const c = x >= channels ? up[x - channels] : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      out[x] = (row[x] + predictor) & 0xff;
    }
  }
  return { width, height, channels, data };
}

/** Share of pixels that are not white (ink), and the number of distinct colours. */
export function inkStats(p: Pixels): { ink: number; colours: number } {
  let ink = 0;
  const colours = new Set<number>();
  for (let i = 0; i < p.data.length; i += p.channels) {
    const [r, g, b] = [p.data[i], p.data[i + 1], p.data[i + 2]];
    if (r < 245 || g < 245 || b < 245) ink++;
    if (colours.size < 1000) colours.add((r << 16) | (g << 8) | b);
  }
  return { ink: ink / (p.width * p.height), colours: colours.size };
}
