/**
 * The numbers behind the distribution and over-time charts (pure functions, tested against hand-computed values):
 * histograms, empirical CDFs, and the interval of a time series.
 */

/** Equal-width bins over [min, max]; the last bin includes max. */
export interface Histogram {
  /** Lower edge of each bin; `edges[i + 1]` (or `max` for the last) is its upper edge. */
  readonly edges: readonly number[];
  readonly width: number;
  readonly counts: readonly number[];
}

/** Bins for `n` values: √n, between 5 and 40 (one bin when every value is the same). */
export function binCount(n: number): number {
  return Math.min(40, Math.max(5, Math.ceil(Math.sqrt(n))));
}

/**
 * Counts of `values` in `bins` equal-width bins from their minimum to their maximum. A value v goes into bin
 * `floor((v − min) / width)`, the maximum into the last bin.
 */
export function histogram(values: readonly number[] | Float64Array, bins = binCount(values.length)): Histogram {
  if (values.length === 0) return { edges: [], width: 0, counts: [] };
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (min === max) return { edges: [min], width: 0, counts: [values.length] };
  const width = (max - min) / bins;
  const counts = new Array<number>(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor((v - min) / width))]++;
  return { edges: counts.map((_, i) => min + i * width), width, counts };
}

/**
 * The empirical CDF as `[value, percent of values ≤ value]` points, at most `maxPoints` of them (evenly spaced ranks,
 * the largest value always kept).
 */
export function cdfPoints(values: readonly number[] | Float64Array, maxPoints = 400): [number, number][] {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  if (n === 0) return [];
  const step = Math.max(1, Math.ceil(n / maxPoints));
  const out: [number, number][] = [];
  for (let i = step - 1; i < n; i += step) out.push([sorted[i], ((i + 1) / n) * 100]);
  if (out[out.length - 1][1] !== 100) out.push([sorted[n - 1], 100]);
  return out;
}

/** Interval widths (s) a time series may use: the smallest that gives at most `maxIntervals` intervals wins. */
const NICE_INTERVALS = [0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600];

/**
 * The interval width (s) for a run of `durationSec`: at most `maxIntervals` intervals. Beyond the listed widths, whole
 * minutes (every width is then a multiple of the coarsest time grid, `time_grid.ts`).
 */
export function intervalFor(durationSec: number, maxIntervals = 60): number {
  return NICE_INTERVALS.find((w) => durationSec / w <= maxIntervals) ?? Math.ceil(durationSec / maxIntervals / 60) * 60;
}
