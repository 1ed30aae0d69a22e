/**
 * Confidence intervals of the difference between two runs' statistics, from their per-request data:
 *
 * - **Percentile bootstrap** (distributions: avg, std, percentiles): the replicates of each run
 *   (`bootstrap_stats.ts`) are paired, `d*_b = B*_b − A*_b` and `r*_b = d*_b / |A*_b|`, and the interval is the
 *   (1 − level)/2 and (1 + level)/2 quantiles of those. It assumes nothing about the shape of the distributions
 *   (latencies are skewed, multi-modal, heavy-tailed) and works for a p99 as for a mean, where Mann–Whitney would
 *   test medians only and a t-interval would assume normal statistics. The interval is placed around the exported
 *   difference: `[Δ + q_lo − d̂, Δ + q_hi − d̂]`, `d̂` the difference of the statistics recomputed from the records,
 *   so it is exactly the percentile interval whenever the records reproduce the export (they do for infermeter's
 *   and AIPerf's runs) and stays centred on the number shown otherwise.
 * - **Batch means** (throughputs, single values per run): the run's span between its first and last completion is
 *   cut into `k` equal windows; each window's rate is its completions (or tokens) over its length; the rate's
 *   standard error is `sd(window rates) / √k`. The difference's interval is Welch's:
 *   `Δ ± t(level, ν)·√(se_A² + se_B²)` with Welch–Satterthwaite's `ν`; relative bounds divide by |baseline|.
 *   (Bootstrapping requests would miss a throughput's noise entirely: a resample of a fixed request count over a
 *   fixed duration has the same request rate.)
 *
 * A difference is "≈ same" when its interval holds 0.
 */
import { percentileSorted } from "./stats.ts";
import { studentTQuantile } from "./student_t.ts";

export type IntervalMethod = "bootstrap" | "batch-means";

/** A confidence interval of `B − A` and of `(B − A) / |A|`. */
export interface DifferenceInterval {
  readonly low: number;
  readonly high: number;
  /** Undefined where the baseline is 0. */
  readonly relativeLow?: number;
  readonly relativeHigh?: number;
  readonly method: IntervalMethod;
  /** The confidence level, 0–1. */
  readonly level: number;
}

/** The fewest usable replicates an interval is drawn from (the others drew no value). */
const MIN_REPLICATES = 100;

function quantiles(values: number[], level: number): [number, number] | undefined {
  if (values.length < MIN_REPLICATES) return undefined;
  const sorted = Float64Array.from(values).sort();
  return [percentileSorted(sorted, 50 * (1 - level)), percentileSorted(sorted, 50 * (1 + level))];
}

/**
 * The bootstrap interval of a difference. `delta` and `base` are the exported difference and baseline value;
 * `observedA`/`observedB` the statistics recomputed from the records; `repA`/`repB` their replicates.
 */
export function bootstrapDifference(
  a: { readonly observed: number; readonly replicates: Float64Array },
  b: { readonly observed: number; readonly replicates: Float64Array },
  delta: number,
  base: number,
  level: number,
): DifferenceInterval | undefined {
  const n = Math.min(a.replicates.length, b.replicates.length);
  const diffs: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = a.replicates[i];
    const y = b.replicates[i];
    if (Number.isNaN(x) || Number.isNaN(y)) continue;
    diffs.push(y - x);
    if (x !== 0) ratios.push((y - x) / Math.abs(x));
  }
  const q = quantiles(diffs, level);
  if (q === undefined || !Number.isFinite(a.observed) || !Number.isFinite(b.observed)) return undefined;
  const dHat = b.observed - a.observed;
  const out: DifferenceInterval = { low: delta + q[0] - dHat, high: delta + q[1] - dHat, method: "bootstrap", level };
  const r = base === 0 || a.observed === 0 ? undefined : quantiles(ratios, level);
  if (r === undefined) return out;
  const rHat = dHat / Math.abs(a.observed);
  const relative = delta / Math.abs(base);
  return { ...out, relativeLow: relative + r[0] - rHat, relativeHigh: relative + r[1] - rHat };
}

/** A rate's standard error from its windows. */
export interface RateNoise {
  /** Standard error of the rate, per second. */
  readonly se: number;
  /** Degrees of freedom (windows − 1). */
  readonly df: number;
}

/** Windows a rate's span is cut into; fewer when the run has few completions (at least 4 per window on average). */
export const RATE_WINDOWS = 10;
const MIN_PER_WINDOW = 4;
const MIN_WINDOWS = 4;

/** Windows for `completions` completions: {@link RATE_WINDOWS}, fewer for few; undefined below four. */
export function rateWindows(completions: number): number | undefined {
  const k = Math.min(RATE_WINDOWS, Math.floor(completions / MIN_PER_WINDOW));
  return k < MIN_WINDOWS ? undefined : k;
}

/**
 * The batch-means standard error of a rate: `endsMs` are completion times (ms), `amounts` what each completion
 * adds (1 for requests, its tokens for token rates). Undefined with too few completions for four windows.
 */
export function rateNoise(endsMs: Float64Array, amounts: Float64Array): RateNoise | undefined {
  const n = endsMs.length;
  const k = rateWindows(n);
  if (k === undefined) return undefined;
  let first = Infinity;
  let last = -Infinity;
  for (const t of endsMs) {
    first = Math.min(first, t);
    last = Math.max(last, t);
  }
  const span = last - first;
  if (!(span > 0)) return undefined;
  const sums = new Float64Array(k);
  for (let i = 0; i < n; i++) sums[Math.min(k - 1, Math.floor((endsMs[i] - first) / span * k))] += amounts[i];
  return windowsNoise(sums, span);
}

/** The batch-means standard error of a rate from what each of its equal windows over `spanMs` counted. */
export function windowsNoise(sums: Float64Array, spanMs: number): RateNoise | undefined {
  const k = sums.length;
  if (k < MIN_WINDOWS || !(spanMs > 0)) return undefined;
  const width = spanMs / k / 1000;
  let mean = 0;
  for (const s of sums) mean += s / width;
  mean /= k;
  let ss = 0;
  for (const s of sums) ss += (s / width - mean) ** 2;
  return { se: Math.sqrt(ss / (k - 1)) / Math.sqrt(k), df: k - 1 };
}

/** Welch's interval of a difference of two rates with batch-means errors. */
export function rateDifference(
  a: RateNoise,
  b: RateNoise,
  delta: number,
  base: number,
  level: number,
): DifferenceInterval {
  const va = a.se * a.se;
  const vb = b.se * b.se;
  const v = va + vb;
  // Welch–Satterthwaite; two runs without any spread have no noise at all (ν is then irrelevant).
  const df = v === 0 ? Math.max(a.df + b.df, 1) : (v * v) / (va * va / a.df + vb * vb / b.df);
  const half = v === 0 ? 0 : studentTQuantile((1 + level) / 2, df) * Math.sqrt(v);
  const out: DifferenceInterval = { low: delta - half, high: delta + half, method: "batch-means", level };
  if (base === 0) return out;
  return { ...out, relativeLow: (delta - half) / Math.abs(base), relativeHigh: (delta + half) / Math.abs(base) };
}

/** Whether an interval holds 0: the difference is within the noise. */
export function withinNoise(i: DifferenceInterval): boolean {
  return i.low <= 0 && i.high >= 0;
}
