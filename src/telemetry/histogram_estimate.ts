/**
 * Percentile estimates from a Prometheus histogram, by AIPerf 0.13's method (`server_metrics/histogram_percentiles`,
 * after HistogramTools, arXiv 2504.00001), so `server_metrics_export` estimates agree with AIPerf's:
 *
 * 1. Learn where observations sit inside each bucket: in every scrape interval whose new observations all fell in
 *    one bucket, their mean is exact (`Δsum / Δcount`); a bucket's learned mean is the count-weighted mean of those,
 *    its variance the sample variance (n − 1) of those means once there are three.
 * 2. Estimate each finite bucket's sum (count × learned mean when it lies strictly inside the bucket, else the
 *    midpoint), and back-calculate the +Inf bucket from the exact total sum: its ⌈count⌉ observations spread evenly
 *    from the highest finite bound to `2 · avg − bound` around `avg = (sum − finite sum) / count` (1.5 × the bound
 *    when that avg is not above it; one observation sits at the avg).
 * 3. Place each finite bucket's ⌊count⌋ observations: a two-point mass (F3) when four learned standard deviations
 *    span under 1 % of the bucket; a 50/50 blend of the variance-shaped and the shifted-uniform placements when
 *    under 20 % and the mean is within 30 % of the width from the centre; the variance-shaped placement otherwise
 *    when a variance is known; else evenly spaced fractions `(i + ½) / n` shifted to centre on the learned mean, or
 *    on the overall average in a bucket holding ≥ 95 % of the observations (the midpoint when neither applies), all
 *    clipped to the bucket.
 * 4. Shift each bucket's observations (by at most 40 % of its width, clipped to it) so they add up to the exact sum,
 *    unless already within 0.1 %; then take numpy-linear percentiles of all observations.
 *
 * A histogram whose sum is 0 has every estimate 0. More than 100,000 observations are scaled down in proportion
 * (counts and sum alike) first. A bucket's bounds are (previous finite bound, bound], the first starting at 0.
 */

/** A bucket's `le` label as written (`"0.3"`, `"1"`, `"+Inf"`), and its bound. */
export interface BucketBound {
  readonly le: string;
  readonly bound: number;
}

/** One scrape of a histogram: cumulative counts per bucket (in `BucketBound` order), sum and count. */
export interface HistogramPoint {
  readonly cumulative: readonly number[];
  readonly sum: number;
  readonly count: number;
}

/** What the scrape intervals taught about one bucket. */
export interface BucketStatistics {
  readonly observationCount: number;
  readonly weightedMeanSum: number;
  /** The mean of each single-bucket interval. */
  readonly means: readonly number[];
}

export const ESTIMATED_PERCENTILES = [1, 5, 10, 25, 50, 75, 90, 95, 99] as const;
const MAX_OBSERVATIONS = 100_000;
const MIN_VARIANCE_INTERVALS = 3;

/** Learns per-bucket means from the intervals between consecutive `points` (index = bucket index). */
export function learnBucketStatistics(points: readonly HistogramPoint[]): Map<number, BucketStatistics> {
  const stats = new Map<number, { observationCount: number; weightedMeanSum: number; means: number[] }>();
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    const countDelta = Math.trunc(b.count - a.count);
    if (countDelta <= 0) continue;
    const sumDelta = b.sum - a.sum;
    let active = -1;
    let activeCount = 0;
    let previous = 0;
    for (let k = 0; k < b.cumulative.length; k++) {
      const cumulativeDelta = Math.max(0, (b.cumulative[k] ?? 0) - (a.cumulative[k] ?? 0));
      const own = Math.max(0, k === 0 ? cumulativeDelta : cumulativeDelta - previous);
      previous = cumulativeDelta;
      if (own > 0) {
        active = k;
        activeCount++;
      }
    }
    if (activeCount !== 1) continue;
    const mean = sumDelta / countDelta;
    let s = stats.get(active);
    if (s === undefined) {
      s = { observationCount: 0, weightedMeanSum: 0, means: [] };
      stats.set(active, s);
    }
    s.observationCount += countDelta;
    s.weightedMeanSum += mean * countDelta;
    s.means.push(mean);
  }
  return stats;
}

function learnedMean(s: BucketStatistics | undefined): number | undefined {
  return s === undefined || s.observationCount === 0 ? undefined : s.weightedMeanSum / s.observationCount;
}

function learnedVariance(s: BucketStatistics | undefined): number | undefined {
  if (s === undefined || s.means.length < MIN_VARIANCE_INTERVALS) return undefined;
  const n = s.means.length;
  const mean = s.means.reduce((a, b) => a + b, 0) / n;
  return s.means.reduce((a, m) => a + (m - mean) ** 2, 0) / (n - 1);
}

const clip = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** `n` evenly spaced values from `a` to `b` inclusive (numpy `linspace`). */
function linspace(a: number, b: number, n: number): number[] {
  if (n === 1) return [a];
  const step = (b - a) / (n - 1);
  return Array.from({ length: n }, (_, i) => (i === n - 1 ? b : a + i * step));
}

/** Two-point mass at the lower bound and at `mean + variance / (mean − lower)`, matching both moments. */
function f3(count: number, lower: number, upper: number, mean: number, variance: number): number[] {
  const a = clip(mean - lower > 0 ? mean + variance / (mean - lower) : upper, lower, upper);
  const denominator = variance + (mean - lower) ** 2;
  const px = clip(denominator > 0 ? variance / denominator : 0.5, 0, 1);
  const nx = Math.trunc(count * px);
  return Array.from({ length: count }, (_, i) => (i < nx ? lower : a));
}

/** From the mean toward each edge, at most three learned standard deviations away. */
function varianceShaped(count: number, lower: number, upper: number, mean: number, std: number): number[] {
  const toLower = Math.min(std > 0 ? (mean - lower) / std : 3, 3);
  const toUpper = Math.min(std > 0 ? (upper - mean) / std : 3, 3);
  return Array.from({ length: count }, (_, i) => {
    const f = (i + 0.5) / count;
    const x = f < 0.5 ? mean - toLower * std * (1 - 2 * f) : mean + toUpper * std * (2 * f - 1);
    return clip(x, lower, upper);
  });
}

function shiftedUniform(count: number, lower: number, upper: number, center: number): number[] {
  const shift = center - (lower + upper) / 2;
  return Array.from(
    { length: count },
    (_, i) => clip(lower + (upper - lower) * ((i + 0.5) / count) + shift, lower, upper),
  );
}

/** numpy's default (linear) percentile of sorted values. */
function percentileOfSorted(sorted: Float64Array, p: number): number {
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

/**
 * The p1…p99 estimates of a histogram's observations over a window: `deltas` = each bucket's cumulative increase
 * (in `bounds` order, +Inf last), `sum` and `count` their exact totals, `stats` from {@link learnBucketStatistics}.
 * Undefined without observations, or with a sum that is negative or not finite.
 */
export function estimatePercentiles(
  bounds: readonly BucketBound[],
  deltas: readonly number[],
  sum: number,
  count: number,
  stats: ReadonlyMap<number, BucketStatistics>,
): Record<string, number> | undefined {
  if (count <= 0 || bounds.length === 0) return undefined;
  if (!Number.isFinite(sum) || sum < 0) return undefined;
  const out: Record<string, number> = {};
  if (sum === 0) {
    for (const p of ESTIMATED_PERCENTILES) out[`p${p}_estimate`] = 0;
    return out;
  }
  const finite = bounds.map((b, i) => ({ ...b, index: i })).filter((b) => b.le !== "+Inf");
  if (finite.length === 0) return undefined;
  finite.sort((a, b) => a.bound - b.bound);
  const maxFinite = finite[finite.length - 1].bound;
  const infIndex = bounds.findIndex((b) => b.le === "+Inf");

  // Per-bucket counts from cumulative ones (finite in bound order, then +Inf).
  const own = new Map<number, number>();
  let previous = 0;
  for (const b of finite) {
    own.set(b.index, deltas[b.index] - previous);
    previous = deltas[b.index];
  }
  if (infIndex >= 0) own.set(infIndex, deltas[infIndex] - previous);
  let total = 0;
  for (const c of own.values()) total += c;
  let targetSum = sum;
  if (total > MAX_OBSERVATIONS) {
    const ratio = MAX_OBSERVATIONS / total;
    for (const [k, c] of own) own.set(k, c * ratio);
    targetSum *= ratio;
  }
  const rawInf = infIndex >= 0 ? own.get(infIndex) ?? 0 : 0;
  const infCount = rawInf > 0 ? Math.ceil(rawInf) : 0;

  const bucket = (i: number) => {
    const lower = i === 0 ? 0 : finite[i - 1].bound;
    return { lower, upper: finite[i].bound };
  };
  const meanInside = (i: number): number | undefined => {
    const m = learnedMean(stats.get(finite[i].index));
    const { lower, upper } = bucket(i);
    return m !== undefined && lower < m && m < upper ? m : undefined;
  };

  let estimatedFiniteSum = 0;
  finite.forEach((b, i) => {
    const c = own.get(b.index) ?? 0;
    if (c <= 0) return;
    const { lower, upper } = bucket(i);
    estimatedFiniteSum += c * (meanInside(i) ?? (lower + upper) / 2);
  });

  let infObservations: number[] = [];
  if (infCount > 0) {
    const infSum = targetSum - estimatedFiniteSum;
    let infAvg = infSum <= 0 ? maxFinite * 1.5 : infSum / infCount;
    if (infSum > 0 && infAvg <= maxFinite) infAvg = maxFinite * 1.5;
    let upperEstimate = 2 * infAvg - maxFinite;
    if (upperEstimate <= maxFinite) upperEstimate = maxFinite * 2;
    infObservations = infCount === 1 ? [infAvg] : linspace(maxFinite, upperEstimate, infCount);
  }
  const finiteSum = targetSum - infObservations.reduce((a, b) => a + b, 0);
  const observations = [
    ...finiteObservations(
      finite.map((b, i) => ({
        ...bucket(i),
        count: own.get(b.index) ?? 0,
        stats: stats.get(b.index),
        meanInside: meanInside(i),
      })),
      finiteSum,
    ),
    ...infObservations,
  ];
  if (observations.length === 0) return undefined;
  const sorted = Float64Array.from(observations).sort();
  for (const p of ESTIMATED_PERCENTILES) out[`p${p}_estimate`] = percentileOfSorted(sorted, p);
  return out;
}

interface FiniteBucket {
  readonly lower: number;
  readonly upper: number;
  readonly count: number;
  readonly stats?: BucketStatistics;
  readonly meanInside?: number;
}

/** Step 3 and 4: the finite buckets' observations, adjusted toward `targetSum`. */
function finiteObservations(buckets: readonly FiniteBucket[], targetSum: number): number[] {
  const total = buckets.reduce((a, b) => a + b.count, 0);
  const avg = total > 0 ? targetSum / total : 0;
  let dominant = -1;
  if (total > 0) {
    const max = Math.max(...buckets.map((b) => b.count));
    if (max / total >= 0.95) dominant = buckets.findIndex((b) => b.count === max);
  }
  const observations: number[] = [];
  const ranges: { start: number; count: number; lower: number; upper: number }[] = [];
  buckets.forEach((b, i) => {
    const n = Math.trunc(b.count);
    if (n <= 0) return;
    const { lower, upper } = b;
    const width = upper - lower;
    const midpoint = (lower + upper) / 2;
    const mean = b.meanInside;
    const variance = learnedVariance(b.stats);
    let values: number[];
    if (mean !== undefined && variance !== undefined && variance > 0) {
      const std = Math.sqrt(variance);
      const spread = (4 * std) / width;
      const offset = Math.abs(mean - midpoint) / width;
      if (spread < 0.01) values = f3(n, lower, upper, mean, variance);
      else if (spread < 0.2 && offset < 0.3) {
        const uniform = shiftedUniform(n, lower, upper, mean);
        const shaped = varianceShaped(n, lower, upper, mean, std);
        values = uniform.map((u, k) => clip(0.5 * u + 0.5 * shaped[k], lower, upper));
      } else values = varianceShaped(n, lower, upper, mean, std);
    } else {
      let center = mean ?? midpoint;
      if (i === dominant && lower < avg && avg < upper) center = avg;
      values = shiftedUniform(n, lower, upper, center);
    }
    ranges.push({ start: observations.length, count: n, lower, upper });
    observations.push(...values);
  });
  const generated = observations.reduce((a, b) => a + b, 0);
  if (generated <= 0 || targetSum <= 0) return observations;
  const discrepancy = targetSum - generated;
  if (Math.abs(discrepancy) / targetSum < 0.001) return observations;
  for (const r of ranges) {
    let bucketSum = 0;
    for (let k = r.start; k < r.start + r.count; k++) bucketSum += observations[k];
    const maxShift = (r.upper - r.lower) * 0.4;
    const shift = clip((discrepancy * (bucketSum / generated)) / r.count, -maxShift, maxShift);
    for (let k = r.start; k < r.start + r.count; k++) observations[k] = clip(observations[k] + shift, r.lower, r.upper);
  }
  return observations;
}
