/**
 * The frames of AIPerf 0.13's synthetic videos (`--video-synth-type`), as RGB bytes (`width × height × 3`), drawn the
 * way its generator draws them with PIL:
 *
 * - `moving_shapes`: on black, a red circle (30 px) crossing left to right twice per clip, a green square (25 px)
 *   falling twice, a blue circle (20 px) going up-left one and a half times, each wrapping at the edges;
 * - `grid_clock`: on dark grey (32), a 32-px grid (64), a clock face of a quarter of the smaller side (outline 128,
 *   2 px) whose minute hand (white, 2 px, 0.9 r) turns once per clip and hour hand (yellow, 3 px, 0.6 r) a twelfth,
 *   a red centre dot, and "Frame N" at (10, 10);
 * - `noise`: uniform random bytes per pixel.
 *
 * Shapes are rasterized by pixel centres (PIL's anti-alias-free fills); the label uses a 5×7 pixel font rather than
 * PIL's bitmap font, so frames look alike, not byte-equal (the encoder's output differs across FFmpeg builds anyway).
 */
import type { SeededRandom } from "../base/seeded_random.ts";

export type VideoSynthType = "moving_shapes" | "grid_clock" | "noise";

export const VIDEO_SYNTH_TYPES: readonly VideoSynthType[] = ["moving_shapes", "grid_clock", "noise"];

type Rgb = readonly [number, number, number];

class Canvas {
  readonly data: Uint8Array;
  constructor(readonly width: number, readonly height: number, fill: Rgb) {
    this.data = new Uint8Array(width * height * 3);
    if (fill[0] !== 0 || fill[1] !== 0 || fill[2] !== 0) {
      for (let i = 0; i < this.data.length; i += 3) this.data.set(fill, i);
    }
  }

  set(x: number, y: number, c: Rgb): void {
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return;
    this.data.set(c, (y * this.width + x) * 3);
  }

  /** PIL's `ellipse([x0, y0, x1, y1], fill=c)`. */
  fillEllipse(x0: number, y0: number, x1: number, y1: number, c: Rgb): void {
    const cx = (x0 + x1) / 2;
    const cy = (y0 + y1) / 2;
    const rx = (x1 - x0) / 2 + 0.5;
    const ry = (y1 - y0) / 2 + 0.5;
    for (let y = Math.ceil(y0 - 0.5); y <= Math.floor(y1 + 0.5); y++) {
      for (let x = Math.ceil(x0 - 0.5); x <= Math.floor(x1 + 0.5); x++) {
        const dx = (x - cx) / rx;
        const dy = (y - cy) / ry;
        if (dx * dx + dy * dy <= 1) this.set(x, y, c);
      }
    }
  }

  /** PIL's `ellipse(..., outline=c, width=w)`: the ring between the box and the box inset by `w`. */
  strokeEllipse(x0: number, y0: number, x1: number, y1: number, c: Rgb, w: number): void {
    const cx = (x0 + x1) / 2;
    const cy = (y0 + y1) / 2;
    const rx = (x1 - x0) / 2 + 0.5;
    const ry = (y1 - y0) / 2 + 0.5;
    for (let y = Math.floor(y0); y <= Math.ceil(y1); y++) {
      for (let x = Math.floor(x0); x <= Math.ceil(x1); x++) {
        const dx = x - cx;
        const dy = y - cy;
        const outer = (dx / rx) ** 2 + (dy / ry) ** 2 <= 1;
        const inner = (dx / (rx - w)) ** 2 + (dy / (ry - w)) ** 2 < 1;
        if (outer && !inner) this.set(x, y, c);
      }
    }
  }

  /** PIL's `rectangle([x0, y0, x1, y1], fill=c)` (both corners included). */
  fillRect(x0: number, y0: number, x1: number, y1: number, c: Rgb): void {
    for (let y = Math.round(y0); y <= Math.round(y1); y++) {
      for (let x = Math.round(x0); x <= Math.round(x1); x++) this.set(x, y, c);
    }
  }

  /** A line `w` pixels wide: the pixels within w/2 of the segment. */
  line(x0: number, y0: number, x1: number, y1: number, c: Rgb, w: number): void {
    const half = Math.max(0.5, w / 2);
    const len2 = (x1 - x0) ** 2 + (y1 - y0) ** 2;
    for (let y = Math.floor(Math.min(y0, y1) - half); y <= Math.ceil(Math.max(y0, y1) + half); y++) {
      for (let x = Math.floor(Math.min(x0, x1) - half); x <= Math.ceil(Math.max(x0, x1) + half); x++) {
        const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((x - x0) * (x1 - x0) + (y - y0) * (y1 - y0)) / len2));
        const d2 = (x - (x0 + t * (x1 - x0))) ** 2 + (y - (y0 + t * (y1 - y0))) ** 2;
        if (d2 <= half * half) this.set(x, y, c);
      }
    }
  }

  text(x: number, y: number, s: string, c: Rgb): void {
    let at = x;
    for (const ch of s) {
      const rows = FONT[ch];
      if (rows !== undefined) {
        rows.forEach((row, dy) => {
          for (let dx = 0; dx < 5; dx++) if (row & (16 >> dx)) this.set(at + dx, y + dy, c);
        });
      }
      at += 6;
    }
  }
}

/** 5×7 glyphs (one 5-bit row each) for the label. */
const FONT: Readonly<Record<string, readonly number[]>> = {
  "F": [31, 16, 16, 30, 16, 16, 16],
  "r": [0, 0, 22, 25, 16, 16, 16],
  "a": [0, 0, 14, 1, 15, 17, 15],
  "m": [0, 0, 26, 21, 21, 17, 17],
  "e": [0, 0, 14, 17, 31, 16, 14],
  " ": [0, 0, 0, 0, 0, 0, 0],
  "0": [14, 17, 19, 21, 25, 17, 14],
  "1": [4, 12, 4, 4, 4, 4, 14],
  "2": [14, 17, 1, 2, 4, 8, 31],
  "3": [31, 2, 4, 2, 1, 17, 14],
  "4": [2, 6, 10, 18, 31, 2, 2],
  "5": [31, 16, 30, 1, 1, 17, 14],
  "6": [6, 8, 16, 30, 17, 17, 14],
  "7": [31, 1, 2, 4, 8, 8, 8],
  "8": [14, 17, 17, 14, 17, 17, 14],
  "9": [14, 17, 17, 15, 1, 2, 12],
};

/** Python's `a % b` for a positive `b`: never negative. */
function pyMod(a: number, b: number): number {
  return ((a % b) + b) % b;
}

function movingShapes(width: number, height: number, total: number): Uint8Array[] {
  const shapes = [
    {
      circle: true,
      color: [255, 0, 0] as Rgb,
      size: 30,
      x: 0,
      y: Math.floor(height / 2),
      dx: (width / total) * 2,
      dy: 0,
    },
    {
      circle: false,
      color: [0, 255, 0] as Rgb,
      size: 25,
      x: Math.floor(width / 2),
      y: 0,
      dx: 0,
      dy: (height / total) * 2,
    },
    {
      circle: true,
      color: [0, 0, 255] as Rgb,
      size: 20,
      x: width,
      y: height,
      dx: (-width / total) * 1.5,
      dy: (-height / total) * 1.5,
    },
  ];
  const frames: Uint8Array[] = [];
  for (let n = 0; n < total; n++) {
    const canvas = new Canvas(width, height, [0, 0, 0]);
    for (const s of shapes) {
      const x = pyMod(s.x + s.dx * n, width);
      const y = pyMod(s.y + s.dy * n, height);
      const r = Math.floor(s.size / 2);
      if (s.circle) canvas.fillEllipse(x - r, y - r, x + r, y + r, s.color);
      else canvas.fillRect(x - r, y - r, x + r, y + r, s.color);
    }
    frames.push(canvas.data);
  }
  return frames;
}

function gridClock(width: number, height: number, total: number): Uint8Array[] {
  const frames: Uint8Array[] = [];
  for (let n = 0; n < total; n++) {
    const canvas = new Canvas(width, height, [32, 32, 32]);
    for (let x = 0; x < width; x += 32) canvas.line(x, 0, x, height, [64, 64, 64], 1);
    for (let y = 0; y < height; y += 32) canvas.line(0, y, width, y, [64, 64, 64], 1);
    const cx = Math.floor(width / 2);
    const cy = Math.floor(height / 2);
    const r = Math.floor(Math.min(width, height) / 4);
    const angle = (n / total) * 2 * Math.PI;
    const hour = angle / 12;
    canvas.line(cx, cy, cx + r * 0.6 * Math.cos(hour - Math.PI / 2), cy + r * 0.6 * Math.sin(hour - Math.PI / 2), [
      255,
      255,
      0,
    ], 3);
    canvas.line(cx, cy, cx + r * 0.9 * Math.cos(angle - Math.PI / 2), cy + r * 0.9 * Math.sin(angle - Math.PI / 2), [
      255,
      255,
      255,
    ], 2);
    canvas.strokeEllipse(cx - r, cy - r, cx + r, cy + r, [128, 128, 128], 2);
    canvas.fillEllipse(cx - 3, cy - 3, cx + 3, cy + 3, [255, 0, 0]);
    canvas.text(10, 10, `Frame ${n}`, [255, 255, 255]);
    frames.push(canvas.data);
  }
  return frames;
}

function noise(width: number, height: number, total: number, rng: SeededRandom): Uint8Array[] {
  const frames: Uint8Array[] = [];
  for (let n = 0; n < total; n++) {
    const bytes = new Uint8Array(width * height * 3);
    const words = new Uint32Array(bytes.buffer, 0, bytes.length >>> 2);
    for (let i = 0; i < words.length; i++) words[i] = rng.nextUint32();
    for (let i = words.length * 4; i < bytes.length; i++) bytes[i] = rng.nextUint32() & 255;
    frames.push(bytes);
  }
  return frames;
}

/** `floor(duration × fps)` frames of `type` (AIPerf's frame count); `rng` draws the noise. */
export function videoFrames(
  type: VideoSynthType,
  width: number,
  height: number,
  frameCount: number,
  rng: SeededRandom,
): Uint8Array[] {
  if (frameCount <= 0) return [];
  if (type === "moving_shapes") return movingShapes(width, height, frameCount);
  if (type === "grid_clock") return gridClock(width, height, frameCount);
  return noise(width, height, frameCount, rng);
}
