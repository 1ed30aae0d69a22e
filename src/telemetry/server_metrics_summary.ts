/**
 * Summarizes the scrapes of Prometheus endpoints for `server_metrics_export`, the way AIPerf 0.13 does
 * (`server_metrics/export_stats.py`, `accumulator.py`): one entry per metric, one series per endpoint and label set.
 *
 * Which scrapes: a series' profiling scrapes are those taken from the start of the profiling phase on, through the
 * final scrape after the flush period (`TelemetryCollector.stop`); its reference is the scrape of that series just
 * before the first of them (none when the series first appeared inside the phase).
 *
 * - counter: `total` = increase from the reference (else the first profiling scrape) to the last scrape (a drop
 *   counts as a reset: what follows is new increase, where AIPerf keeps `max(last − reference, 0)`); `rate` =
 *   total / seconds from the reference to the last scrape.
 * - gauge (and untyped, as `unknown`): `avg, min, max, std, p1…p99` over the profiling scrapes' values, sample std
 *   (n − 1; 0 for one value) and numpy-linear percentiles.
 * - histogram: `count`, `sum` = increases as for counters (count truncated to an integer), `avg` = sum / count,
 *   `count_rate`, `sum_rate` over the counters' span, `p…_estimate` by AIPerf's estimator (`histogram_estimate.ts`),
 *   `buckets` = each bucket's increase, keyed by its `le` label as written, in ascending order (+Inf last). With no
 *   new observations only `count` (0) and the buckets.
 * - with a slice duration, `timeslices`: fixed slices from the first to the last profiling scrape (the last one
 *   partial, marked `is_complete: false`); counters: the increase over each slice and its rate (`rate_avg`,
 *   `rate_min`, `rate_max`, `rate_std` over the complete slices), gauges: avg/min/max of the scrapes inside it,
 *   histograms: count, sum, avg and bucket increases over it.
 *
 * Counter names lose their `_total` suffix (`vllm:prompt_tokens_total` → `vllm:prompt_tokens`), as AIPerf's exports
 * name them. Summary families are ignored, as AIPerf does.
 */
import { computeStats } from "../metrics/stats.ts";
import { inferUnit } from "./metric_unit.ts";
import type { Labels } from "./prometheus_text.ts";
import type { Scrape, ScrapeMeta } from "./prometheus_scraper.ts";
import { SeriesStore } from "./series_store.ts";
import {
  type BucketBound,
  estimatePercentiles,
  type HistogramPoint,
  learnBucketStatistics,
} from "./histogram_estimate.ts";
import type { Window } from "./window_summary.ts";

export type { EndpointScrapes, Window } from "./window_summary.ts";

/** One endpoint's server-metrics scrapes: the parsed scrapes, or their fetch facts with the series as columns. */
export type ServerEndpointScrapes =
  | { readonly url: string; readonly scrapes: readonly Scrape[]; readonly store?: undefined }
  | { readonly url: string; readonly scrapes: readonly ScrapeMeta[]; readonly store: SeriesStore };

export type SummaryType = "counter" | "gauge" | "histogram" | "unknown";

/** Bucket increases in ascending `le` (+Inf last), keyed by the `le` label as the server wrote it. */
export type BucketCounts = readonly (readonly [le: string, count: number])[];

export interface Timeslice {
  readonly startMs: number;
  readonly endMs: number;
  /** False for the last slice when it is shorter than the slice duration. */
  readonly complete: boolean;
  /** In AIPerf's field order: counter total, rate; gauge avg, min, max; histogram count, sum, avg. */
  readonly values: Readonly<Record<string, number>>;
  readonly buckets?: BucketCounts;
}

export interface SeriesSummary {
  readonly endpointUrl: string;
  /** Omitted when the series has no labels. */
  readonly labels?: Labels;
  /** In AIPerf's field order for the type; a field AIPerf leaves out is absent. */
  readonly stats: Readonly<Record<string, number>>;
  readonly buckets?: BucketCounts;
  readonly timeslices?: readonly Timeslice[];
}

export interface MetricSummary {
  readonly name: string;
  readonly type: SummaryType;
  readonly description: string;
  readonly unit?: string;
  readonly series: readonly SeriesSummary[];
}

export interface SummaryOptions {
  /** `--slice-duration` in ms: also summarize fixed time slices. */
  readonly sliceDurationMs?: number;
}

const PERCENTILES = [1, 5, 10, 25, 50, 75, 90, 95, 99] as const;

interface ScalarPoint {
  readonly at: number;
  readonly value: number;
}

interface HistPoint {
  readonly at: number;
  /** Cumulative count per `le` label. */
  readonly buckets: ReadonlyMap<string, number>;
  readonly sum: number;
  readonly count: number;
}

interface SeriesDraft {
  readonly name: string;
  readonly type: SummaryType;
  readonly description: string;
  readonly labels: Labels;
  readonly scalar: ScalarPoint[];
  readonly hist: HistPoint[];
}

/** Every metric of every endpoint, summarized over the profiling phase; metrics sorted by name. */
export function summarizeServerMetrics(
  endpoints: readonly ServerEndpointScrapes[],
  window: Window,
  options: SummaryOptions = {},
): MetricSummary[] {
  const byName = new Map<string, { type: SummaryType; description: string; unit?: string; series: SeriesSummary[] }>();
  for (const endpoint of endpoints) {
    for (const draft of collectSeries(endpoint.store ?? storeOf(endpoint.scrapes))) {
      const summary = draft.type === "histogram"
        ? histogramSeries(draft.hist, window, options)
        : draft.type === "counter"
        ? counterSeries(draft.scalar, window, options)
        : gaugeSeries(draft.scalar, window, options);
      if (summary === undefined) continue;
      let entry = byName.get(draft.name);
      if (entry === undefined) {
        entry = {
          type: draft.type,
          description: draft.description,
          unit: inferUnit(draft.name, draft.description),
          series: [],
        };
        byName.set(draft.name, entry);
      }
      entry.series.push({
        endpointUrl: endpoint.url,
        ...(Object.keys(draft.labels).length > 0 ? { labels: draft.labels } : {}),
        ...summary,
      });
    }
  }
  return [...byName.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([name, e]) => ({
    name,
    type: e.type,
    description: e.description,
    unit: e.unit,
    series: [...e.series].sort((a, b) => {
      const ka = [a.endpointUrl, labelsRepr(a.labels)];
      const kb = [b.endpointUrl, labelsRepr(b.labels)];
      return ka[0] < kb[0] ? -1 : ka[0] > kb[0] ? 1 : ka[1] < kb[1] ? -1 : ka[1] > kb[1] ? 1 : 0;
    }),
  }));
}

/** Python's `str()` of a label dict, AIPerf's sort key for series and CSV rows ("" without labels). */
export function labelsRepr(labels: Labels | undefined): string {
  if (labels === undefined || Object.keys(labels).length === 0) return "";
  return `{${Object.entries(labels).map(([k, v]) => `'${k}': '${v}'`).join(", ")}}`;
}

/** The scrapes of a list, as columns (in time order, as they were taken). */
export function storeOf(scrapes: readonly Scrape[]): SeriesStore {
  const store = new SeriesStore();
  for (const scrape of [...scrapes].sort((a, b) => a.atMs - b.atMs)) store.add(scrape.atMs, scrape.families);
  return store;
}

/** Each series' points, in the order series first appeared; one series materialized at a time. */
function* collectSeries(store: SeriesStore): Generator<SeriesDraft> {
  for (const s of store.series()) {
    const n = s.at.length;
    if (s.kind === "scalar") {
      const scalar: ScalarPoint[] = new Array(n);
      for (let i = 0; i < n; i++) scalar[i] = { at: s.at.at(i), value: s.value.at(i) };
      yield { name: s.name, type: s.type, description: s.description, labels: s.labels, scalar, hist: [] };
      continue;
    }
    const hist: HistPoint[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const buckets = new Map<string, number>();
      for (const [le, column] of s.buckets) {
        const count = column.at(i);
        if (!Number.isNaN(count)) buckets.set(le, count);
      }
      hist[i] = { at: s.at.at(i), buckets, sum: s.sum.at(i), count: s.count.at(i) };
    }
    yield { name: s.name, type: "histogram", description: s.description, labels: s.labels, scalar: [], hist };
  }
}

/** The profiling scrapes of a series and the one before them (its reference). */
function phaseOf<T extends { at: number }>(points: readonly T[], window: Window) {
  const first = points.findIndex((p) => p.at >= window.startMs);
  if (first < 0) return undefined;
  const inPhase = points.slice(first);
  const reference = first > 0 ? points[first - 1] : undefined;
  const startMs = inPhase[0].at;
  const lastAt = inPhase[inPhase.length - 1].at;
  // AIPerf's range is [first, last] profiling scrape, at least 1 ns long.
  const endMs = lastAt > startMs ? lastAt : startMs + 1e-6;
  return { reference, inPhase, filtered: reference === undefined ? inPhase : [reference, ...inPhase], startMs, endMs };
}

/** Slice boundaries from `startMs` to `endMs` (AIPerf `_compute_timeslice_boundaries`). */
export function sliceBoundaries(startMs: number, endMs: number, sliceMs: number) {
  const out: { start: number; end: number; complete: boolean }[] = [];
  for (let s = startMs; s < endMs; s += sliceMs) {
    const end = s + sliceMs;
    out.push({ start: s, end: Math.min(end, endMs), complete: end <= endMs });
  }
  const last = out[out.length - 1];
  if (last !== undefined && last.complete && last.end < endMs) {
    out.push({ start: last.end, end: endMs, complete: false });
  }
  return out;
}

/** Index of the last point at or before `t` (numpy `searchsorted(side="right") − 1`), clipped to the points. */
function atOrBefore(points: readonly { at: number }[], t: number): number {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid].at <= t) lo = mid + 1;
    else hi = mid;
  }
  return Math.max(0, Math.min(lo - 1, points.length - 1));
}

/** Index of the first point at or after `t` (numpy `searchsorted(side="left")`). */
function firstAtOrAfter(points: readonly { at: number }[], t: number): number {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid].at < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Increase over consecutive values, a drop counting as a reset to zero. */
function increase(values: readonly number[]): number {
  let total = 0;
  for (let i = 1; i < values.length; i++) total += values[i] >= values[i - 1] ? values[i] - values[i - 1] : values[i];
  return total;
}

type Summary = Pick<SeriesSummary, "stats" | "buckets" | "timeslices">;

function counterSeries(points: readonly ScalarPoint[], window: Window, o: SummaryOptions): Summary | undefined {
  const phase = phaseOf(points, window);
  if (phase === undefined) return undefined;
  const { reference, inPhase, filtered } = phase;
  const base = reference ?? inPhase[0];
  const last = inPhase[inPhase.length - 1];
  const total = increase([base, ...inPhase.slice(reference === undefined ? 1 : 0)].map((p) => p.value));
  const seconds = (last.at - base.at) / 1000;
  const stats: Record<string, number> = { total, rate: seconds > 0 ? total / seconds : 0 };
  if (o.sliceDurationMs === undefined || filtered.length < 2) return { stats };
  const timeslices = sliceBoundaries(phase.startMs, phase.endMs, o.sliceDurationMs).map((b): Timeslice => {
    const delta = Math.max(
      0,
      filtered[atOrBefore(filtered, b.end)].value - filtered[atOrBefore(filtered, b.start)].value,
    );
    const sec = (b.end - b.start) / 1000;
    return {
      startMs: b.start,
      endMs: b.end,
      complete: b.complete,
      values: { total: delta, rate: sec > 0 ? delta / sec : 0 },
    };
  });
  const rates = timeslices.filter((t) => t.complete).map((t) => t.values.rate);
  if (rates.length > 0) {
    const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
    stats.rate_avg = mean;
    stats.rate_min = Math.min(...rates);
    stats.rate_max = Math.max(...rates);
    stats.rate_std = rates.length > 1
      ? Math.sqrt(rates.reduce((a, r) => a + (r - mean) ** 2, 0) / (rates.length - 1))
      : 0;
  }
  return timeslices.length > 0 ? { stats, timeslices } : { stats };
}

function gaugeSeries(points: readonly ScalarPoint[], window: Window, o: SummaryOptions): Summary | undefined {
  const phase = phaseOf(points, window);
  if (phase === undefined) return undefined;
  const values = phase.inPhase.map((p) => p.value);
  const s = computeStats(Float64Array.from(values));
  if (s === undefined) return undefined;
  const n = values.length;
  const stats: Record<string, number> = {
    avg: s.avg,
    min: s.min,
    max: s.max,
    // Sample standard deviation (numpy ddof=1), as AIPerf.
    std: n > 1 ? Math.sqrt(values.reduce((a, v) => a + (v - s.avg) ** 2, 0) / (n - 1)) : 0,
  };
  for (const p of PERCENTILES) stats[`p${p}`] = s[`p${p}` as keyof typeof s] as number;
  if (o.sliceDurationMs === undefined || n < 2) return { stats };
  const inPhase = phase.inPhase;
  const bounds = sliceBoundaries(phase.startMs, phase.endMs, o.sliceDurationMs);
  const timeslices: Timeslice[] = [];
  bounds.forEach((b, i) => {
    const from = firstAtOrAfter(inPhase, b.start);
    // The last slice ends at the last scrape, which it includes.
    const to = i === bounds.length - 1 && b.end === inPhase[n - 1].at ? n : firstAtOrAfter(inPhase, b.end);
    if (from >= to) return;
    const slice = values.slice(from, to);
    timeslices.push({
      startMs: b.start,
      endMs: b.end,
      complete: b.complete,
      values: {
        avg: slice.reduce((a, v) => a + v, 0) / slice.length,
        min: Math.min(...slice),
        max: Math.max(...slice),
      },
    });
  });
  return timeslices.length > 0 ? { stats, timeslices } : { stats };
}

/** The `le` labels of a histogram point in ascending bound order, +Inf last. */
function sortedLes(point: HistPoint): BucketBound[] {
  return [...point.buckets.keys()].map((le) => ({ le, bound: le === "+Inf" ? Infinity : Number(le) }))
    .sort((a, b) => a.bound - b.bound);
}

/** Bucket increases from `a` to `b`; undefined when one went down (a reset). */
function bucketDeltas(les: readonly BucketBound[], a: HistPoint, b: HistPoint): number[] | undefined {
  const out: number[] = [];
  for (const { le } of les) {
    const d = (b.buckets.get(le) ?? 0) - (a.buckets.get(le) ?? 0);
    if (d < 0) return undefined;
    out.push(Math.trunc(d));
  }
  return out;
}

function histogramSeries(points: readonly HistPoint[], window: Window, o: SummaryOptions): Summary | undefined {
  const phase = phaseOf(points, window);
  if (phase === undefined) return undefined;
  const { reference, inPhase, filtered } = phase;
  const base = reference ?? inPhase[0];
  const last = inPhase[inPhase.length - 1];
  const les = sortedLes(last);
  const sum = Math.max(0, last.sum - base.sum);
  const count = Math.max(0, Math.trunc(last.count - base.count));
  const deltas = bucketDeltas(les, base, last);
  const buckets: BucketCounts | undefined = deltas?.map((d, i) => [les[i].le, d] as const);
  const timeslices = o.sliceDurationMs === undefined || filtered.length < 2
    ? undefined
    : histogramTimeslices(filtered, les, phase.startMs, phase.endMs, o.sliceDurationMs);
  const extra = { ...(buckets !== undefined ? { buckets } : {}), ...(timeslices?.length ? { timeslices } : {}) };
  if (count === 0) return { stats: { count: 0 }, ...extra };
  const seconds = (last.at - base.at) / 1000;
  const stats: Record<string, number> = { count, sum, avg: sum / count };
  if (seconds > 0) {
    stats.count_rate = count / seconds;
    stats.sum_rate = sum / seconds;
  }
  if (deltas !== undefined && deltas.length > 0) {
    const history: HistogramPoint[] = filtered.map((p) => ({
      cumulative: les.map(({ le }) => p.buckets.get(le) ?? 0),
      sum: p.sum,
      count: p.count,
    }));
    Object.assign(stats, estimatePercentiles(les, deltas, sum, count, learnBucketStatistics(history)) ?? {});
  }
  return { stats, ...extra };
}

function histogramTimeslices(
  filtered: readonly HistPoint[],
  les: readonly BucketBound[],
  startMs: number,
  endMs: number,
  sliceMs: number,
): Timeslice[] {
  const out: Timeslice[] = [];
  for (const b of sliceBoundaries(startMs, endMs, sliceMs)) {
    const a = filtered[atOrBefore(filtered, b.start)];
    const z = filtered[atOrBefore(filtered, b.end)];
    const sum = z.sum - a.sum;
    const count = z.count - a.count;
    if (sum < 0 || count < 0) continue;
    const deltas = bucketDeltas(les, a, z);
    out.push({
      startMs: b.start,
      endMs: b.end,
      complete: b.complete,
      values: { count: Math.trunc(count), sum, avg: count > 0 ? sum / count : 0 },
      ...(deltas !== undefined ? { buckets: deltas.map((d, i) => [les[i].le, d] as const) } : {}),
    });
  }
  return out;
}

export interface EndpointInfo {
  readonly totalFetches: number;
  readonly firstFetchMs?: number;
  readonly lastFetchMs?: number;
  readonly avgFetchLatencyMs?: number;
  readonly uniqueUpdates: number;
  readonly firstUpdateMs?: number;
  readonly lastUpdateMs?: number;
  readonly durationSeconds?: number;
  readonly avgUpdateIntervalMs?: number;
  readonly medianUpdateIntervalMs?: number;
}

/** Fetch statistics of one endpoint (AIPerf's `endpoint_info`). */
export function endpointInfo(scrapes: readonly ScrapeMeta[]): EndpointInfo {
  if (scrapes.length === 0) return { totalFetches: 0, uniqueUpdates: 0 };
  const updates: number[] = [];
  let previous: number | undefined;
  for (const s of scrapes) {
    if (s.fingerprint !== previous) updates.push(s.atMs);
    previous = s.fingerprint;
  }
  const intervals = updates.slice(1).map((t, i) => t - updates[i]);
  const sorted = [...intervals].sort((a, b) => a - b);
  const median = sorted.length === 0
    ? undefined
    : sorted.length % 2 === 1
    ? sorted[(sorted.length - 1) / 2]
    : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  return {
    totalFetches: scrapes.length,
    firstFetchMs: scrapes[0].atMs,
    lastFetchMs: scrapes[scrapes.length - 1].atMs,
    avgFetchLatencyMs: scrapes.reduce((a, s) => a + s.latencyMs, 0) / scrapes.length,
    uniqueUpdates: updates.length,
    firstUpdateMs: updates[0],
    lastUpdateMs: updates[updates.length - 1],
    durationSeconds: (updates[updates.length - 1] - updates[0]) / 1000,
    avgUpdateIntervalMs: intervals.length === 0 ? undefined : intervals.reduce((a, b) => a + b, 0) / intervals.length,
    medianUpdateIntervalMs: median,
  };
}
