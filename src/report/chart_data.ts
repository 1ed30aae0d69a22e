/**
 * The numbers behind each chart, computed from per-request points (pure functions, tested against hand-computed
 * values): histograms, empirical CDFs, and per-interval series of throughput and requests in flight.
 */
import type { RequestPoint } from "./run_records.ts";

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
export function histogram(values: readonly number[], bins = binCount(values.length)): Histogram {
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
export function cdfPoints(values: readonly number[], maxPoints = 400): [number, number][] {
  const sorted = [...values].sort((a, b) => a - b);
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

/** The interval width (s) for a run of `durationSec`: at most `maxIntervals` intervals. */
export function intervalFor(durationSec: number, maxIntervals = 60): number {
  return NICE_INTERVALS.find((w) => durationSec / w <= maxIntervals) ?? Math.ceil(durationSec / maxIntervals);
}

/** Per-interval series over a run, each point at its interval's start time (s). */
export interface TimeSeries {
  readonly intervalSec: number;
  /** Start of each interval, s since the first request. */
  readonly times: readonly number[];
  /** Output tokens received per second in each interval. */
  readonly outputTokensPerSec: readonly number[];
  /** Requests completed successfully per second in each interval. */
  readonly requestsPerSec: readonly number[];
  /** Mean number of requests in flight over each interval (busy request-time / interval). */
  readonly inFlight: readonly number[];
}

/**
 * Throughput and concurrency over time. Output tokens are counted when their chunk arrived (a request's tokens
 * spread evenly over its chunks, so a multi-token chunk counts all its tokens then); in flight is exact: the time
 * each request spent between send and end within the interval, summed, divided by the interval.
 */
export function timeSeries(points: readonly RequestPoint[], intervalSec?: number): TimeSeries {
  let endMs = 0;
  for (const p of points) endMs = Math.max(endMs, p.endMs);
  const w = intervalSec ?? intervalFor(endMs / 1000);
  const wMs = w * 1000;
  const n = Math.max(1, Math.ceil(endMs / wMs));
  const tokens = new Array<number>(n).fill(0);
  const done = new Array<number>(n).fill(0);
  const busy = new Array<number>(n).fill(0);
  const bucket = (t: number) => Math.min(n - 1, Math.max(0, Math.floor(t / wMs)));
  for (const p of points) {
    for (let b = bucket(p.startMs); b <= bucket(p.endMs); b++) {
      busy[b] += Math.max(0, Math.min(p.endMs, (b + 1) * wMs) - Math.max(p.startMs, b * wMs));
    }
    if (p.failed) continue;
    done[bucket(p.endMs)]++;
    const chunks = p.chunkTimesMs;
    if (chunks !== undefined && chunks.length > 0 && p.outputTokens !== undefined) {
      const perChunk = p.outputTokens / chunks.length;
      for (const t of chunks) tokens[bucket(t)] += perChunk;
    } else if (p.outputTokens !== undefined) {
      tokens[bucket(p.endMs)] += p.outputTokens;
    }
  }
  return {
    intervalSec: w,
    times: tokens.map((_, i) => i * w),
    outputTokensPerSec: tokens.map((t) => t / w),
    requestsPerSec: done.map((d) => d / w),
    inFlight: busy.map((b) => b / wMs),
  };
}

/** At most `max` items, evenly spaced, in order (charts of huge runs stay light; every item when fewer). */
export function thinOut<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  const out: T[] = [];
  const step = items.length / max;
  for (let i = 0; i < max; i++) out.push(items[Math.floor(i * step)]);
  return out;
}
