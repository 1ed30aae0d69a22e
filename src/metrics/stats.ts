/**
 * Exact summary statistics over all samples (design §3 "Statistics", AIPerf §2.7): avg = sum / n, population
 * standard deviation (ddof = 0), and percentiles by linear interpolation between closest ranks — numpy's
 * default method: virtual index `(n − 1) · q / 100`, interpolated with numpy's own `lerp` so results match
 * `numpy.percentile` bit for bit. No sampling, no sketches.
 *
 * Percentiles only need a few order statistics (the ranks either side of each virtual index), so instead of
 * sorting every sample they are selected: values are bucketed by value (a monotone map), only the buckets
 * that hold a requested rank are copied out and refined, and small remainders go to a multi-rank quickselect.
 * Each requested rank gets exactly the value a full sort would put there, in O(n) expected time. (V8's
 * `Float64Array.prototype.sort` takes ~0.35 s per million values here; selection takes ~15–40 ms.) Quickselect
 * ranges that recurse too deep fall back to the typed-array sort, so the worst case stays O(n log n).
 * Where −0 and +0 both occur, a rank holding zero gets the sign a full sort puts there (−0 first), so the
 * result does not depend on the samples' order. `chunked_stats.ts` computes the same statistics, bit for bit,
 * over a column read a chunk at a time.
 */

/** The statistics AIPerf reports for a distribution. */
/**
 * Sample storage: float64, or float32 for large list metrics (inter-chunk latencies), whose 24-bit mantissa
 * still resolves 100 ms to 6 ns. Every computation is done in float64.
 */
export type Samples = Float64Array | Float32Array;

export interface Stats {
  readonly avg: number;
  readonly min: number;
  readonly max: number;
  readonly p1: number;
  readonly p5: number;
  readonly p10: number;
  readonly p25: number;
  readonly p50: number;
  readonly p75: number;
  readonly p90: number;
  readonly p95: number;
  readonly p99: number;
  readonly std: number;
  readonly count: number;
  readonly sum: number;
}

export type PercentileKey = "p1" | "p5" | "p10" | "p25" | "p50" | "p75" | "p90" | "p95" | "p99";

/** Every statistic key, in AIPerf's CSV column order. */
export const STAT_KEYS = [
  "avg",
  "min",
  "max",
  "p1",
  "p5",
  "p10",
  "p25",
  "p50",
  "p75",
  "p90",
  "p95",
  "p99",
  "std",
] as const;

export type StatKey = (typeof STAT_KEYS)[number];

/** numpy's `_lerp`: `a + (b − a)·t`, computed from the nearer end for t ≥ 0.5 (monotone, exact at ends). */
export function lerp(a: number, b: number, t: number): number {
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/**
 * The q-th percentile (0–100) of an ascending-sorted array, numpy `method="linear"`.
 * @throws {RangeError} when the array is empty.
 */
export function percentileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError("Cannot take a percentile of no samples; check the count first.");
  const index = (n - 1) * (q / 100);
  const lo = Math.floor(index);
  const hi = Math.min(lo + 1, n - 1);
  const a = sorted[lo];
  const b = sorted[hi];
  return a === b ? a : lerp(a, b, index - lo);
}

/** A Neumaier-compensated running sum: `sum + c` is the total. Carried across chunks of one column. */
export interface NeumaierSum {
  sum: number;
  c: number;
}

/** Adds Σ x over `values` to `acc` (Neumaier): exact to within one rounding for any realistic benchmark data. */
export function compensatedSumInto(values: Samples, acc: NeumaierSum): void {
  let sum = acc.sum;
  let c = acc.c;
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    const t = sum + x;
    c += Math.abs(sum) >= Math.abs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  acc.sum = sum;
  acc.c = c;
}

/** Adds Σ (x − mean)² over `values` to `acc` (Neumaier), the second pass of the two-pass variance numpy uses. */
export function sumSquaredDeviationsInto(values: Samples, mean: number, acc: NeumaierSum): void {
  let sum = acc.sum;
  let c = acc.c;
  for (let i = 0; i < values.length; i++) {
    const d = values[i] - mean;
    const x = d * d;
    const t = sum + x;
    c += sum >= x ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  acc.sum = sum;
  acc.c = c;
}

/** Each reported percentile: its key and level q (0–100). */
export const PERCENTILES: readonly (readonly [PercentileKey, number])[] = [
  ["p1", 1],
  ["p5", 5],
  ["p10", 10],
  ["p25", 25],
  ["p50", 50],
  ["p75", 75],
  ["p90", 90],
  ["p95", 95],
  ["p99", 99],
];

function insertionSort(a: Samples, lo: number, hi: number): void {
  for (let i = lo + 1; i <= hi; i++) {
    const x = a[i];
    let j = i - 1;
    while (j >= lo && a[j] > x) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = x;
  }
}

/**
 * Rearranges `a` so that `a[r]` is the r-th smallest value for every rank in `ranks` (ascending), as if the
 * array had been sorted. Hoare partitioning around a median-of-three pivot, recursing only into the sides
 * that contain requested ranks.
 */
export function selectRanks(a: Samples, ranks: readonly number[]): void {
  if (a.length < 2 || ranks.length === 0) return;
  const depthLimit = 2 * Math.ceil(Math.log2(a.length)) + 8;
  // Explicit stack of [lo, hi, firstRank, endRank, depth] ranges.
  const stack: number[] = [0, a.length - 1, 0, ranks.length, depthLimit];
  while (stack.length > 0) {
    const depth = stack.pop()!;
    const rEnd = stack.pop()!;
    const rStart = stack.pop()!;
    const hi = stack.pop()!;
    const lo = stack.pop()!;
    if (rStart >= rEnd || lo >= hi) continue;
    if (hi - lo < 24) {
      insertionSort(a, lo, hi);
      continue;
    }
    if (depth === 0) {
      a.subarray(lo, hi + 1).sort();
      continue;
    }
    const mid = lo + ((hi - lo) >> 1);
    const x = a[lo], y = a[mid], z = a[hi];
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    // Now a[lo..j] ≤ pivot, a[i..hi] ≥ pivot, and everything strictly between j and i equals the pivot.
    let leftEnd = rStart;
    while (leftEnd < rEnd && ranks[leftEnd] <= j) leftEnd++;
    let rightStart = leftEnd;
    while (rightStart < rEnd && ranks[rightStart] < i) rightStart++;
    stack.push(lo, j, rStart, leftEnd, depth - 1);
    stack.push(i, hi, rightStart, rEnd, depth - 1);
  }
}

/** Buckets per bucketing pass of {@linkcode orderStatistics}. */
export const BUCKETS = 4096;

/**
 * The values at `ranks` (ascending, distinct) of `a` as if sorted, into `out[k]` for `ranks[k]`. Buckets the
 * values by value into `BUCKETS` equal-width ranges (a monotone map, so a rank's value lies in the bucket
 * covering that rank), copies out only the buckets that hold requested ranks and repeats on them; small or
 * stubborn inputs go to {@linkcode selectRanks}. Two linear passes per level, a few levels at most.
 */
export function orderStatistics(
  a: Samples,
  ranks: readonly number[],
  min: number,
  max: number,
  out: number[],
  depth = 0,
): void {
  const n = a.length;
  const scale = BUCKETS / (max - min);
  if (min === max) {
    for (let k = 0; k < ranks.length; k++) out[k] = min;
    return;
  }
  if (n <= 2 * BUCKETS || depth >= 6 || !Number.isFinite(scale)) {
    selectRanks(a, ranks);
    for (let k = 0; k < ranks.length; k++) out[k] = a[ranks[k]];
    return;
  }
  const last = BUCKETS - 1;
  const counts = new Int32Array(BUCKETS);
  for (let i = 0; i < n; i++) {
    const b = ((a[i] - min) * scale) | 0;
    counts[b < last ? b : last]++;
  }
  // Which bucket holds each rank, and where each needed bucket goes in the gathered array.
  const start = new Int32Array(BUCKETS).fill(-1);
  const needed: number[] = []; // bucket per distinct needed bucket, ascending
  const rankBucket: number[] = []; // bucket of each rank
  let bucket = 0;
  let before = 0; // values in buckets < bucket
  let size = 0;
  const localRank: number[] = [];
  for (const r of ranks) {
    while (before + counts[bucket] <= r) before += counts[bucket++];
    if (start[bucket] < 0) {
      start[bucket] = size;
      size += counts[bucket];
      needed.push(bucket);
    }
    rankBucket.push(bucket);
    localRank.push(r - before);
  }
  const sub = new Float64Array(size);
  const fill = Int32Array.from(start);
  const lo = new Float64Array(BUCKETS).fill(Infinity);
  const hi = new Float64Array(BUCKETS).fill(-Infinity);
  for (let i = 0; i < n; i++) {
    const v = a[i];
    let b = ((v - min) * scale) | 0;
    if (b > last) b = last;
    const o = fill[b];
    if (o >= 0) {
      sub[o] = v;
      fill[b] = o + 1;
      if (v < lo[b]) lo[b] = v;
      if (v > hi[b]) hi[b] = v;
    }
  }
  // Each needed bucket is solved on its own: its own range, often a single repeated value.
  for (const b of needed) {
    const ks: number[] = [];
    for (let k = 0; k < ranks.length; k++) if (rankBucket[k] === b) ks.push(k);
    const part: number[] = new Array(ks.length);
    const region = sub.subarray(start[b], start[b] + counts[b]);
    orderStatistics(region, ks.map((k) => localRank[k]), lo[b], hi[b], part, depth + 1);
    ks.forEach((k, j) => (out[k] = part[j]));
  }
}

/**
 * Statistics of `values`, reordering them in place (the caller gives up the order). Use this on buffers
 * you own to avoid a copy; see {@linkcode computeStats} otherwise. Values must be finite. Returns undefined
 * for no samples.
 */
export function computeStatsInPlace(values: Samples): Stats | undefined {
  const n = values.length;
  if (n === 0) return undefined;
  let min = values[0];
  let max = values[0];
  for (let i = 1; i < n; i++) {
    const v = values[i];
    if (v < min) min = v;
    else if (v > max) max = v;
  }
  const acc: NeumaierSum = { sum: 0, c: 0 };
  compensatedSumInto(values, acc);
  const sum = acc.sum + acc.c;
  // Two-pass population variance: Σ(x − avg)² / n, as numpy.std does.
  const sq: NeumaierSum = { sum: 0, c: 0 };
  sumSquaredDeviationsInto(values, sum / n, sq);
  const ranks = percentileRanks(n);
  const found: number[] = new Array(ranks.length);
  orderStatistics(values, ranks, min, max, found);
  if (found.includes(0)) {
    // Selection compares −0 and +0 as equal, so which zero lands at a rank depends on the partitioning;
    // give each zero rank the sign a full sort (−0 before +0) puts there.
    let below = 0;
    let negativeZeros = 0;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v < 0) below++;
      else if (v === 0 && 1 / v < 0) negativeZeros++;
    }
    signZeroRanks(ranks, found, below + negativeZeros);
  }
  return assembleStats(n, min, max, sum, sq.sum + sq.c, ranks, found);
}

/**
 * The ranks either side of each percentile's virtual index (n − 1)·q/100 (n ≥ 1), ascending and distinct:
 * the order statistics {@linkcode assembleStats} needs.
 */
export function percentileRanks(n: number): number[] {
  const rankSet = new Set<number>();
  for (const [, q] of PERCENTILES) {
    const lo = Math.floor((n - 1) * (q / 100));
    rankSet.add(lo);
    rankSet.add(Math.min(lo + 1, n - 1));
  }
  return [...rankSet].sort((a, b) => a - b);
}

/**
 * Gives every zero in `found` (the values at `ranks`) the sign a full sort puts at its rank: −0 below
 * `negativeEnd` (the count of values that sort before +0: negatives and −0s), +0 from there on.
 */
export function signZeroRanks(ranks: readonly number[], found: number[], negativeEnd: number): void {
  for (let k = 0; k < ranks.length; k++) {
    if (found[k] === 0) found[k] = ranks[k] < negativeEnd ? -0 : 0;
  }
}

/**
 * The {@linkcode Stats} of `n` samples from their min, max, compensated sum, Σ(x − avg)² and the values
 * `found` at {@linkcode percentileRanks}`(n)` = `ranks`.
 */
export function assembleStats(
  n: number,
  min: number,
  max: number,
  sum: number,
  sumSq: number,
  ranks: readonly number[],
  found: readonly number[],
): Stats {
  const avg = sum / n;
  const valueAt = new Map(ranks.map((r, k) => [r, found[k]] as const));
  const at = (q: number) => {
    const index = (n - 1) * (q / 100);
    const lo = Math.floor(index);
    const a = valueAt.get(lo)!;
    const b = valueAt.get(Math.min(lo + 1, n - 1))!;
    return a === b ? a : lerp(a, b, index - lo);
  };
  return {
    avg,
    min,
    max,
    p1: at(1),
    p5: at(5),
    p10: at(10),
    p25: at(25),
    p50: at(50),
    p75: at(75),
    p90: at(90),
    p95: at(95),
    p99: at(99),
    std: Math.sqrt(sumSq / n),
    count: n,
    sum,
  };
}

/** Statistics of `values` (left untouched: a Float64Array copy is sorted). Undefined for no samples. */
export function computeStats(values: Samples | readonly number[]): Stats | undefined {
  return computeStatsInPlace(Float64Array.from(values));
}
