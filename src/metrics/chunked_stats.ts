/**
 * Exact statistics of a column that is only available as a sequence of chunks read again from the start on
 * each pass (a column written to disk in segments): bit for bit what {@linkcode computeStatsInPlace} and
 * `errorAdjustedStats` give on the concatenation, holding at most `gatherLimit` values at once.
 *
 * The sums are the in-memory Neumaier loops with their state carried from chunk to chunk, in the same order.
 * Order statistics are found by passes: values are counted into {@linkcode BUCKETS} buckets over the range of
 * a monotone key — the IEEE-754 bits mapped to an ordered 64-bit integer, so −0 sits just below +0 as in a
 * full sort, and buckets are as fine for 1e-6 as for 1e6. Each bucket holding a wanted rank becomes the next
 * range, narrowed to the smallest and largest value seen in it; a range holding a single value (one repeated
 * value) resolves its ranks outright. Once the wanted ranges hold at most `gatherLimit` values together, one
 * more pass copies them out and {@linkcode orderStatistics} selects in memory.
 *
 * Worst case: a bucket spans at most 1/4096 (12 bits) of its range's keys, keys have 64 bits, so after 6
 * counting passes every range holds one value. A column thus costs at most 7 reads (1 scan for min, max and
 * sum; ≤ 6 counting passes, the first also summing squared deviations; or ≤ 5 and 1 gather), typically 3
 * (scan, count, gather), or 1 when it fits in `gatherLimit`. Memory: the gathered values (≤ `gatherLimit`)
 * plus 3 × 4096 float64 per wanted range (≤ 18 ranges, 1.8 MB) and a 4096-value scratch block.
 */
import { errorAdjustedFrom, errorAdjustedRanks } from "./error_adjusted.ts";
import {
  assembleStats,
  BUCKETS,
  compensatedSumInto,
  computeStatsInPlace,
  type NeumaierSum,
  orderStatistics,
  percentileRanks,
  type Samples,
  signZeroRanks,
  type Stats,
  sumSquaredDeviationsInto,
} from "./stats.ts";

/** A column read in order, a chunk at a time, as many times as needed. Chunks are views valid only during the callback. */
export interface ChunkedSamples {
  readonly length: number;
  forEachChunk(fn: (chunk: Samples) => void): void;
}

/** What one chunked computation cost, filled in when passed: reads of the column and values held at once. */
export interface ChunkedStatsTrace {
  /** Full reads of the column. */
  passes: number;
  /** Reads that counted values into buckets to narrow the wanted ranges. */
  countingPasses: number;
  /** The most sample values held in memory at once (gathered copies, not counting the fixed bucket arrays). */
  heldPeak: number;
}

/** Values held at once by default: 8 MiB of float64. */
export const DEFAULT_GATHER_LIMIT = 1 << 20;

/** More counting passes than the 64-bit key allows (6); reaching it means a bug, and the ranges are gathered. */
const MAX_COUNTING_PASSES = 8;

/** Values converted to float64 and keyed at a time. */
const BLOCK = 4096;

const LAST = BUCKETS - 1;
const TWO_32 = 4294967296;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Index of the high (sign and exponent) and low 32-bit words of a float64 in a Uint32Array view. */
const HI = LITTLE_ENDIAN ? 1 : 0;
const LO = 1 - HI;

/**
 * Exactly {@linkcode computeStatsInPlace} of the concatenation of the chunks, bit for bit, holding at most
 * `gatherLimit` values at once. Undefined for no samples.
 * @throws {RangeError} on a value that is not finite, or a bad `gatherLimit`.
 * @throws {Error} when a pass reads a different number of values than `src.length`.
 */
export function computeStatsChunked(
  src: ChunkedSamples,
  gatherLimit: number = DEFAULT_GATHER_LIMIT,
  trace?: ChunkedStatsTrace,
): Stats | undefined {
  checkGatherLimit(gatherLimit);
  const n = src.length;
  const reader = new Reader(src, trace);
  if (n <= gatherLimit) return computeStatsInPlace(reader.gatherAll());
  const acc: NeumaierSum = { sum: 0, c: 0 };
  const sq: NeumaierSum = { sum: 0, c: 0 };
  let mean: number | undefined;
  reader.extra = (pass, chunk) => {
    if (pass === 0) compensatedSumInto(chunk, acc);
    else if (pass === 1) sumSquaredDeviationsInto(chunk, mean ??= (acc.sum + acc.c) / n, sq);
  };
  const ranks = percentileRanks(n);
  const { found, scan } = selectChunked(reader, ranks, gatherLimit);
  // The second pass sums the squared deviations; a column of one repeated value needs no counting pass for it.
  if (reader.passes < 2) reader.read(() => {});
  return assembleStats(n, scan.min, scan.max, acc.sum + acc.c, sq.sum + sq.c, ranks, found);
}

/**
 * Exactly `errorAdjustedStats` of the concatenation of the chunks (successes) and `failures`, bit
 * for bit, holding at most `gatherLimit` values at once.
 * @throws {RangeError} on a value that is not finite, or a bad `gatherLimit`.
 * @throws {Error} when a pass reads a different number of values than `src.length`.
 */
export function errorAdjustedStatsChunked(
  src: ChunkedSamples,
  failures: number,
  gatherLimit: number = DEFAULT_GATHER_LIMIT,
  trace?: ChunkedStatsTrace,
): Stats {
  checkGatherLimit(gatherLimit);
  const successes = src.length;
  const ranks = errorAdjustedRanks(successes, failures);
  const { found } = selectChunked(new Reader(src, trace), ranks, gatherLimit);
  const valueAt = new Map(ranks.map((r, k) => [r, found[k]] as const));
  return errorAdjustedFrom(successes, failures, (rank) => valueAt.get(rank)!);
}

/**
 * The values at `ranks` (ascending, distinct, each < `src.length`) of the column as a full sort (−0 before
 * +0) orders it, by the passes the file comment describes.
 */
export function orderStatisticsChunked(
  src: ChunkedSamples,
  ranks: readonly number[],
  gatherLimit: number = DEFAULT_GATHER_LIMIT,
  trace?: ChunkedStatsTrace,
): number[] {
  checkGatherLimit(gatherLimit);
  for (let k = 0; k < ranks.length; k++) {
    const r = ranks[k];
    if (!Number.isInteger(r) || r < 0 || r >= src.length || (k > 0 && r <= ranks[k - 1])) {
      throw new RangeError(`Ranks must be distinct ascending integers in [0, ${src.length}); got ${r} at ${k}.`);
    }
  }
  return selectChunked(new Reader(src, trace), ranks, gatherLimit).found;
}

function checkGatherLimit(gatherLimit: number): void {
  if (!Number.isSafeInteger(gatherLimit) || gatherLimit < 0) {
    throw new RangeError(`gatherLimit must be a non-negative integer (values held at once); got ${gatherLimit}.`);
  }
}

/** Reads the column, counting passes and checking each gives `length` finite values. */
class Reader {
  readonly n: number;
  passes = 0;
  /** Also given every chunk of every pass, with the pass's index (0 = the scan). */
  extra?: (pass: number, chunk: Samples) => void;
  readonly #src: ChunkedSamples;
  readonly #trace?: ChunkedStatsTrace;

  constructor(src: ChunkedSamples, trace?: ChunkedStatsTrace) {
    this.#src = src;
    this.n = src.length;
    this.#trace = trace;
    if (trace) {
      trace.passes = 0;
      trace.countingPasses = 0;
      trace.heldPeak = 0;
    }
  }

  read(fn: (chunk: Samples) => void): void {
    const pass = this.passes++;
    if (this.#trace) this.#trace.passes = this.passes;
    let seen = 0;
    this.#src.forEachChunk((chunk) => {
      seen += chunk.length;
      if (seen > this.n) return;
      this.extra?.(pass, chunk);
      fn(chunk);
    });
    if (seen !== this.n) {
      throw new Error(
        `The column gave ${seen} values on pass ${pass + 1}, not its length ${this.n}; it changed while read.`,
      );
    }
  }

  counted(): void {
    if (this.#trace) this.#trace.countingPasses++;
  }

  holding(values: number): void {
    if (this.#trace && values > this.#trace.heldPeak) this.#trace.heldPeak = values;
  }

  /** The whole column in one array (only when it fits the gather limit). */
  gatherAll(): Float64Array {
    const all = new Float64Array(this.n);
    this.holding(this.n);
    let at = 0;
    this.read((chunk) => {
      checkFinite(chunk);
      all.set(chunk, at);
      at += chunk.length;
    });
    return all;
  }
}

function checkFinite(chunk: Samples): void {
  for (let i = 0; i < chunk.length; i++) {
    const v = chunk[i];
    if (v - v !== 0) throw new RangeError(`Samples must be finite; got ${v}.`);
  }
}

/** What the scan pass learns: min and max as computeStatsInPlace finds them, and where the zeros sort. */
interface Scan {
  min: number;
  max: number;
  /** Values a full sort puts before +0: negatives and −0s. */
  negativeEnd: number;
  /** The first and last values in full-sort order (−0 before +0). */
  first: number;
  last: number;
}

function scanPass(reader: Reader): Scan {
  let min = Infinity;
  let max = -Infinity;
  let below = 0;
  let zeros = 0;
  let negativeZeros = 0;
  reader.read((chunk) => {
    for (let i = 0; i < chunk.length; i++) {
      const v = chunk[i];
      if (v - v !== 0) throw new RangeError(`Samples must be finite; got ${v}.`);
      // The first occurrence of the extreme, as computeStatsInPlace's scan keeps it.
      if (v < min) min = v;
      if (v > max) max = v;
      if (v <= 0) {
        if (v < 0) below++;
        else {
          zeros++;
          if (1 / v < 0) negativeZeros++;
        }
      }
    }
  });
  return {
    min,
    max,
    negativeEnd: below + negativeZeros,
    first: min === 0 ? (negativeZeros > 0 ? -0 : 0) : min,
    last: max === 0 ? (zeros > negativeZeros ? 0 : -0) : max,
  };
}

/** A key range holding wanted ranks: its values are those a full sort puts at ranks base … base + count − 1. */
interface Range {
  /** Smallest and largest value in it (full-sort order); `lo` is the value at rank `base`. */
  lo: number;
  hi: number;
  base: number;
  count: number;
  /** Indexes into the wanted ranks that fall in this range. */
  ks: number[];
}

function selectChunked(
  reader: Reader,
  ranks: readonly number[],
  gatherLimit: number,
): { found: number[]; scan: Scan } {
  const n = reader.n;
  const found: number[] = new Array(ranks.length);
  if (n === 0) return { found, scan: { min: Infinity, max: -Infinity, negativeEnd: 0, first: 0, last: 0 } };
  if (n <= gatherLimit) {
    // One read: select in memory.
    const all = reader.gatherAll();
    let min = Infinity;
    let max = -Infinity;
    let negativeEnd = 0;
    for (let i = 0; i < n; i++) {
      const v = all[i];
      if (v < min) min = v;
      if (v > max) max = v;
      if (v < 0 || (v === 0 && 1 / v < 0)) negativeEnd++;
    }
    orderStatistics(all, ranks, min, max, found);
    signZeroRanks(ranks, found, negativeEnd);
    return { found, scan: { min, max, negativeEnd, first: min, last: max } };
  }
  const scan = scanPass(reader);
  const keys = new KeyBlock();
  let pending: Range[] = [];
  const root: Range = { lo: scan.first, hi: scan.last, base: 0, count: n, ks: ranks.map((_, k) => k) };
  if (Object.is(root.lo, root.hi)) root.ks.forEach((k) => (found[k] = root.lo));
  else pending.push(root);
  let counting = 0;
  while (pending.length > 0) {
    const held = pending.reduce((s, r) => s + r.count, 0);
    if (held <= gatherLimit || counting >= MAX_COUNTING_PASSES) {
      gatherPass(reader, keys, pending, ranks, found);
      break;
    }
    pending = countingPass(reader, keys, pending, ranks, found);
    counting++;
    reader.counted();
  }
  signZeroRanks(ranks, found, scan.negativeEnd);
  return { found, scan };
}

/** A chunk converted to float64 a block at a time, with each value's ordered 64-bit key as two 32-bit words. */
class KeyBlock {
  readonly values = new Float64Array(BLOCK);
  readonly #words = new Uint32Array(this.values.buffer);
  /** Ordered key words of `values[i]`: a full sort's order is (high, low) lexicographic order. */
  readonly high = new Float64Array(BLOCK);
  readonly low = new Float64Array(BLOCK);

  /** Loads `chunk[from, from + BLOCK)`; returns how many values were loaded. */
  load(chunk: Samples, from: number): number {
    const size = Math.min(BLOCK, chunk.length - from);
    this.values.set(size === chunk.length ? chunk : chunk.subarray(from, from + size));
    const words = this.#words;
    for (let i = 0; i < size; i++) {
      const h = words[2 * i + HI];
      const l = words[2 * i + LO];
      // Negative: flip every bit (larger magnitude sorts first); positive: set the sign bit (above all negatives).
      if (h >= 0x80000000) {
        this.high[i] = 0xffffffff - h;
        this.low[i] = 0xffffffff - l;
      } else {
        this.high[i] = h + 0x80000000;
        this.low[i] = l;
      }
    }
    return size;
  }

  /** The key words of one value. */
  keyOf(v: number): [number, number] {
    const one = new Float64Array([v]);
    const words = new Uint32Array(one.buffer);
    const h = words[HI];
    const l = words[LO];
    return h >= 0x80000000 ? [0xffffffff - h, 0xffffffff - l] : [h + 0x80000000, l];
  }
}

/** The ranges' key bounds as flat arrays, for the per-value lookup. */
function rangeBounds(keys: KeyBlock, ranges: readonly Range[]) {
  const m = ranges.length;
  const loH = new Float64Array(m);
  const loL = new Float64Array(m);
  const hiH = new Float64Array(m);
  const hiL = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    [loH[j], loL[j]] = keys.keyOf(ranges[j].lo);
    [hiH[j], hiL[j]] = keys.keyOf(ranges[j].hi);
  }
  /** Index of the range holding key (h, l), or -1. Ranges are disjoint and ascending. */
  const find = (h: number, l: number): number => {
    for (let j = 0; j < m; j++) {
      const lh = loH[j];
      if (h < lh || (h === lh && l < loL[j])) return -1;
      const hh = hiH[j];
      if (h < hh || (h === hh && l <= hiL[j])) return j;
    }
    return -1;
  };
  return { loH, loL, hiH, hiL, find };
}

/**
 * Counts each range's values into buckets of its key range and returns the buckets holding wanted ranks as
 * the next ranges; those holding a single value resolve their ranks into `found` instead.
 */
function countingPass(
  reader: Reader,
  keys: KeyBlock,
  ranges: Range[],
  ranks: readonly number[],
  found: number[],
): Range[] {
  const m = ranges.length;
  const { loH, loL, hiH, hiL, find } = rangeBounds(keys, ranges);
  // Bucket = ⌊(key − lo) · 4096 / (span + 1)⌋: monotone in the key (the difference is rounded to float64
  // only above 2^53, which rounds monotonically), 0 for lo and ≥ 2048 for hi, so every pass splits a range.
  const scale = new Float64Array(m);
  for (let j = 0; j < m; j++) scale[j] = BUCKETS / ((hiH[j] - loH[j]) * TWO_32 + (hiL[j] - loL[j]) + 1);
  const counts = new Float64Array(m * BUCKETS);
  const bmin = new Float64Array(m * BUCKETS).fill(Infinity);
  const bmax = new Float64Array(m * BUCKETS).fill(-Infinity);
  const { values, high, low } = keys;
  reader.read((chunk) => {
    for (let from = 0; from < chunk.length; from += BLOCK) {
      const size = keys.load(chunk, from);
      for (let i = 0; i < size; i++) {
        const h = high[i];
        const l = low[i];
        const j = find(h, l);
        if (j < 0) continue;
        let b = (((h - loH[j]) * TWO_32 + (l - loL[j])) * scale[j]) | 0;
        if (b > LAST) b = LAST;
        const o = j * BUCKETS + b;
        counts[o]++;
        const v = values[i];
        // Full-sort order: −0 below +0.
        if (v < bmin[o] || (v === 0 && bmin[o] === 0 && 1 / v < 0)) bmin[o] = v;
        if (v > bmax[o] || (v === 0 && bmax[o] === 0 && 1 / v > 0)) bmax[o] = v;
      }
    }
  });
  const next: Range[] = [];
  for (let j = 0; j < m; j++) {
    const range = ranges[j];
    const offset = j * BUCKETS;
    let total = 0;
    for (let b = 0; b < BUCKETS; b++) total += counts[offset + b];
    if (total !== range.count) {
      throw new Error(
        `A value range held ${total} values on pass ${reader.passes}, not ${range.count}; the column changed.`,
      );
    }
    let bucket = 0;
    let before = 0; // values of the range in buckets below `bucket`
    let child: Range | undefined;
    for (const k of range.ks) {
      const r = ranks[k] - range.base;
      while (before + counts[offset + bucket] <= r) before += counts[offset + bucket++];
      if (!child || child.base !== range.base + before) {
        const o = offset + bucket;
        child = { lo: bmin[o], hi: bmax[o], base: range.base + before, count: counts[o], ks: [] };
        next.push(child);
      }
      child.ks.push(k);
    }
  }
  const unresolved: Range[] = [];
  for (const range of next) {
    if (!Object.is(range.lo, range.hi)) unresolved.push(range);
    else for (const k of range.ks) found[k] = range.lo;
  }
  return unresolved;
}

/** Copies out each range's values (all ranges together within the gather limit) and selects in memory. */
function gatherPass(
  reader: Reader,
  keys: KeyBlock,
  ranges: Range[],
  ranks: readonly number[],
  found: number[],
): void {
  const { find } = rangeBounds(keys, ranges);
  const buffers = ranges.map((r) => new Float64Array(r.count));
  reader.holding(ranges.reduce((s, r) => s + r.count, 0));
  const fill = new Float64Array(ranges.length);
  const { values, high, low } = keys;
  reader.read((chunk) => {
    for (let from = 0; from < chunk.length; from += BLOCK) {
      const size = keys.load(chunk, from);
      for (let i = 0; i < size; i++) {
        const j = find(high[i], low[i]);
        if (j < 0) continue;
        const at = fill[j]++;
        if (at < buffers[j].length) buffers[j][at] = values[i];
      }
    }
  });
  ranges.forEach((range, j) => {
    if (fill[j] !== range.count) {
      throw new Error(
        `A value range held ${fill[j]} values on pass ${reader.passes}, not ${range.count}; the column changed.`,
      );
    }
    const local = range.ks.map((k) => ranks[k] - range.base);
    const out: number[] = new Array(local.length);
    orderStatistics(buffers[j], local, range.lo, range.hi, out);
    range.ks.forEach((k, i) => (found[k] = out[i]));
  });
}
