/**
 * Confidence intervals of one statistic of a sample, for deciding whether a measured value is clearly on one side of
 * a threshold: a seeded percentile bootstrap (resample with replacement, take the statistic, read the interval off
 * the resampled statistics' quantiles) for any statistic of per-request values, and the Wilson score interval for a
 * proportion (error rate, good-request fraction), whose counts are all a run keeps.
 */
import { SeededRandom } from "../base/seeded_random.ts";
import { percentileSorted } from "./stats.ts";

/** `avg`, `min`, `max` or a percentile `p1`…`p99`. */
export type SampleStat = string;

export interface Interval {
  readonly low: number;
  readonly high: number;
}

export interface BootstrapOptions {
  /** Two-sided level, e.g. 0.95. */
  readonly level: number;
  /** Seed of the resampling; the same seed and sample give the same interval. @default 1 */
  readonly seed?: number;
  /** Resamples for small samples; fewer for large ones (see {@link resampleCount}). @default 1000 */
  readonly resamples?: number;
}

/** Values drawn in all resamples together at most: keeps one interval under ~a second for 100k requests. */
const MAX_DRAWS = 20_000_000;
const MIN_RESAMPLES = 200;

/** The percentile `stat` names (`p95` → 95), or undefined for `avg`, `min`, `max`. */
function percentileOf(stat: SampleStat): number | undefined {
  const m = /^p(\d+(?:\.\d+)?)$/.exec(stat);
  return m === null ? undefined : Number(m[1]);
}

/**
 * The statistic of an ascending-sorted sample: `avg` (mean), `min`, `max`, or a percentile by linear interpolation
 * between closest ranks (the summaries' method).
 * @throws {RangeError} for an empty sample or an unknown statistic.
 */
export function sortedStat(sorted: ArrayLike<number>, stat: SampleStat): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError(`no values to take the ${stat} of`);
  if (stat === "min") return sorted[0];
  if (stat === "max") return sorted[n - 1];
  if (stat === "avg") {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += sorted[i];
    return sum / n;
  }
  const q = percentileOf(stat);
  if (q === undefined) throw new RangeError(`unknown statistic '${stat}' (avg, min, max or p1…p99)`);
  return percentileSorted(sorted, q);
}

/** Resamples used for a sample of `n`: `wanted`, fewer when n is large (never under 200). */
export function resampleCount(n: number, wanted = 1000): number {
  return Math.max(MIN_RESAMPLES, Math.min(wanted, Math.floor(MAX_DRAWS / Math.max(n, 1))));
}

/**
 * Percentile-bootstrap interval of `stat` over `values` at `level`. A sample of one value gives the degenerate
 * interval [v, v].
 * @throws {RangeError} for an empty sample.
 */
export function bootstrapInterval(values: ArrayLike<number>, stat: SampleStat, options: BootstrapOptions): Interval {
  const n = values.length;
  if (n === 0) throw new RangeError(`no values to bootstrap the ${stat} of`);
  if (n === 1) return { low: values[0], high: values[0] };
  const rng = new SeededRandom(options.seed ?? 1);
  const b = resampleCount(n, options.resamples);
  const draws = new Float64Array(b);
  const sample = new Float64Array(n);
  for (let r = 0; r < b; r++) {
    for (let i = 0; i < n; i++) sample[i] = values[rng.int(n)];
    sample.sort();
    draws[r] = sortedStat(sample, stat);
  }
  draws.sort();
  const alpha = (1 - options.level) / 2;
  return { low: percentileSorted(draws, alpha * 100), high: percentileSorted(draws, (1 - alpha) * 100) };
}

/** Standard normal quantile (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normal quantile of ${p}: p must be in (0, 1)`);
  const a = [
    -39.69683028665376,
    220.9460984245205,
    -275.9285104469687,
    138.357751867269,
    -30.66479806614716,
    2.506628277459239,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293,
    -0.3223964580411365,
    -2.400758277161838,
    -2.549732539343734,
    4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const pl = 0.02425;
  if (p < pl) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
      ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - pl) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/**
 * Wilson score interval of a proportion `successes / n` at `level`: `(p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) /
 * (1 + z²/n)`. Unlike the normal approximation it stays inside [0, 1] and is not [0, 0] when no event was seen.
 * @throws {RangeError} when n is not positive.
 */
export function wilsonInterval(successes: number, n: number, level: number): Interval {
  if (!(n > 0)) throw new RangeError(`a proportion needs at least one trial (got n = ${n})`);
  const z = normalQuantile(1 - (1 - level) / 2);
  const p = successes / n;
  const z2 = z * z;
  const center = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}
