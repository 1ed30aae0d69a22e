/**
 * Bootstrap replicates of a run's statistics, for the noise of a comparison (`compare`).
 *
 * The unit resampled is the request: each replicate draws `n` of the run's `n` records with replacement (seeded,
 * so the same runs always give the same replicates) and recomputes every statistic of every metric over the drawn
 * records that have the metric, with the definitions of `stats.ts` — avg = sum / count, population std, percentiles
 * by numpy's linear interpolation at virtual index `(count − 1)·q/100`. Resampling records jointly keeps the
 * metrics of one request together, and failed requests (which have no latency) change the count as they would.
 *
 * A replicate never sorts: each metric's values are sorted once with their record indices, a replicate is the
 * number of times each record was drawn, and the order statistics a percentile needs are found by binary search
 * in the cumulative counts along the sorted order — O(n) per replicate and metric.
 *
 * min and max are not bootstrapped: a resample can never go beyond the observed extremes, so the bootstrap
 * distribution of an extreme is degenerate and its interval means nothing.
 */
import type { SeededRandom } from "../base/seeded_random.ts";
import { lerp } from "./stats.ts";

/** A run's per-request values, one column per metric, one slot per record (NaN where a record has none). */
export interface RecordColumns {
  /** Number of records: the resampling unit. */
  readonly size: number;
  readonly columns: ReadonlyMap<string, Float64Array>;
}

/** Whether the bootstrap can bound a statistic: the mean, the standard deviation and percentiles (`p50`, `p99.9`). */
export function bootstrappable(stat: string): boolean {
  return stat === "avg" || stat === "std" || percentileOf(stat) !== undefined;
}

function percentileOf(stat: string): number | undefined {
  const m = /^p(\d{1,2}(?:\.\d+)?)$/.exec(stat);
  if (m === null) return undefined;
  const q = Number(m[1]);
  return q > 0 && q < 100 ? q : undefined;
}

/** Statistics per metric tag and stat: the observed value, and one value per replicate (NaN: no value drawn). */
export interface BootstrapResult {
  readonly observed: ReadonlyMap<string, ReadonlyMap<string, number>>;
  readonly replicates: ReadonlyMap<string, ReadonlyMap<string, Float64Array>>;
  readonly resamples: number;
}

/** One metric's values in ascending order, with the record each came from. */
interface SortedColumn {
  readonly values: Float64Array;
  readonly records: Int32Array;
  /** The observed mean, subtracted before squaring so the std does not cancel catastrophically. */
  readonly shift: number;
}

function sortColumn(column: Float64Array): SortedColumn | undefined {
  const records: number[] = [];
  for (let i = 0; i < column.length; i++) if (!Number.isNaN(column[i])) records.push(i);
  if (records.length === 0) return undefined;
  records.sort((a, b) => column[a] - column[b] || a - b);
  const values = new Float64Array(records.length);
  let sum = 0;
  records.forEach((r, j) => {
    values[j] = column[r];
    sum += column[r];
  });
  return { values, records: Int32Array.from(records), shift: sum / records.length };
}

/**
 * The statistics of one replicate of one metric. `counts[r]` is how often record `r` was drawn; `cumulative` is
 * scratch space of the column's length.
 */
function replicateStats(
  col: SortedColumn,
  counts: Uint32Array,
  cumulative: Float64Array,
  stats: readonly string[],
  out: (stat: string, value: number) => void,
): void {
  const { values, records, shift } = col;
  let total = 0;
  let sum = 0;
  let sumSq = 0;
  for (let j = 0; j < values.length; j++) {
    const c = counts[records[j]];
    total += c;
    cumulative[j] = total;
    if (c !== 0) {
      const d = values[j] - shift;
      sum += c * d;
      sumSq += c * d * d;
    }
  }
  // The value at 0-based rank `k` of the drawn multiset: the first sorted position whose cumulative count exceeds k.
  const atRank = (k: number): number => {
    let lo = 0;
    let hi = values.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid] > k) hi = mid;
      else lo = mid + 1;
    }
    return values[lo];
  };
  for (const stat of stats) {
    if (total === 0) {
      out(stat, NaN);
      continue;
    }
    if (stat === "avg") out(stat, shift + sum / total);
    else if (stat === "std") {
      const mean = sum / total;
      out(stat, Math.sqrt(Math.max(0, sumSq / total - mean * mean)));
    } else {
      const q = percentileOf(stat);
      if (q === undefined) continue;
      const index = (total - 1) * (q / 100);
      const lo = Math.floor(index);
      const a = atRank(lo);
      const b = atRank(Math.min(lo + 1, total - 1));
      out(stat, a === b ? a : lerp(a, b, index - lo));
    }
  }
}

/**
 * The observed statistics and `resamples` bootstrap replicates of each of `tags` (those the records have) for
 * each of `stats` that {@linkcode bootstrappable} allows.
 */
export function bootstrapStatistics(
  records: RecordColumns,
  tags: readonly string[],
  stats: readonly string[],
  resamples: number,
  rng: SeededRandom,
): BootstrapResult {
  const usable = stats.filter(bootstrappable);
  const sorted = new Map<string, SortedColumn>();
  for (const tag of tags) {
    const column = records.columns.get(tag);
    const col = column === undefined ? undefined : sortColumn(column);
    if (col !== undefined) sorted.set(tag, col);
  }
  const n = records.size;
  const scratch = new Float64Array(n);
  const observed = new Map<string, Map<string, number>>();
  const replicates = new Map<string, Map<string, Float64Array>>();
  const ones = new Uint32Array(n).fill(1);
  for (const [tag, col] of sorted) {
    const own = new Map<string, number>();
    replicateStats(col, ones, scratch, usable, (stat, v) => own.set(stat, v));
    observed.set(tag, own);
    replicates.set(tag, new Map(usable.map((stat) => [stat, new Float64Array(resamples)])));
  }
  if (sorted.size === 0 || n === 0) return { observed, replicates, resamples };
  const counts = new Uint32Array(n);
  for (let b = 0; b < resamples; b++) {
    counts.fill(0);
    // u32 · n / 2^32 is exact below n = 2^21 and biased by under n / 2^32 above: far below the resampling noise.
    for (let i = 0; i < n; i++) counts[Math.floor(rng.nextUint32() * n / 4294967296)]++;
    for (const [tag, col] of sorted) {
      const reps = replicates.get(tag)!;
      replicateStats(col, counts, scratch, usable, (stat, v) => reps.get(stat)![b] = v);
    }
  }
  return { observed, replicates, resamples };
}
