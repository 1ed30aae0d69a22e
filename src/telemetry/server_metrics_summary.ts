/**
 * Summarizes the scrapes of Prometheus endpoints over the profiling window, in AIPerf 0.13's
 * `server_metrics_export` shape (one entry per metric, one series per endpoint and label set):
 *
 * - counter: `total` = the increase from the baseline (the last scrape at or before the window's start, else the
 *   first) to the last scrape, summed scrape to scrape so a reset (the value dropping) counts the value after it
 *   as new increase (Prometheus `increase()` semantics); `rate` = total / seconds between those two scrapes.
 * - gauge (and untyped): `avg, min, max, std, p1…p99` over the values of the scrapes inside the window (the last
 *   scrape's value when none fell inside), population std and numpy-linear percentiles (`metrics/stats.ts`).
 * - histogram: `count`, `sum` = increases as for counters; `avg` = sum / count (exact); `count_rate`, `sum_rate`;
 *   `p…_estimate` by linear interpolation inside the bucket holding the rank (Prometheus `histogram_quantile`:
 *   the first bucket starts at 0, a rank in the +Inf bucket gives the highest finite bound); `buckets` = each
 *   cumulative bucket's increase, keyed by its `le`.
 *
 * Counter names lose their `_total` suffix (`vllm:prompt_tokens_total` → `vllm:prompt_tokens`), as AIPerf's
 * exports name them. Summary families are ignored, as AIPerf does.
 */
import { computeStats } from "../metrics/stats.ts";
import { inferUnit } from "./metric_unit.ts";
import { type HistogramSeries, type Labels, type MetricFamily, seriesKey } from "./prometheus_text.ts";
import type { Scrape } from "./prometheus_scraper.ts";

export type SummaryType = "counter" | "gauge" | "histogram";

export interface SeriesSummary {
  readonly endpointUrl: string;
  /** Omitted when the series has no labels. */
  readonly labels?: Labels;
  /** In AIPerf's field order for the type. */
  readonly stats: Readonly<Record<string, number>>;
  /** Histograms: each `le` bound's increase over the window. */
  readonly buckets?: Readonly<Record<string, number>>;
}

export interface MetricSummary {
  readonly name: string;
  readonly type: SummaryType;
  readonly description: string;
  readonly unit?: string;
  readonly series: readonly SeriesSummary[];
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

export interface EndpointScrapes {
  readonly url: string;
  readonly scrapes: readonly Scrape[];
}

/** The profiling window, epoch ms. */
export interface Window {
  readonly startMs: number;
  readonly endMs: number;
}

const PERCENTILES = [1, 5, 10, 25, 50, 75, 90, 95, 99] as const;

/** Every metric of every endpoint, summarized over `window`; metrics sorted by name. */
export function summarizeServerMetrics(endpoints: readonly EndpointScrapes[], window: Window): MetricSummary[] {
  const byName = new Map<string, { type: SummaryType; description: string; unit?: string; series: SeriesSummary[] }>();
  for (const endpoint of endpoints) {
    const scrapes = endpoint.scrapes;
    if (scrapes.length === 0) continue;
    const baselineIndex = Math.max(0, findLastIndex(scrapes, (s) => s.atMs <= window.startMs));
    const used = scrapes.slice(baselineIndex);
    const last = used[used.length - 1];
    const spanSec = (last.atMs - used[0].atMs) / 1000;
    const inWindow = used.filter((s) => s.atMs >= window.startMs && s.atMs <= window.endMs);
    const gaugeScrapes = inWindow.length > 0 ? inWindow : [last];
    for (const family of last.families) {
      if (family.type === "summary") continue;
      const type: SummaryType = family.type === "counter" || family.type === "histogram" ? family.type : "gauge";
      const name = type === "counter" ? family.name.replace(/_total$/, "") : family.name;
      // A counter's unit from its sample name (`x_tokens_total` under `# TYPE x_tokens counter`), others' from the family.
      const unitName = type === "counter" ? (family.samples[0]?.name ?? family.name) : family.name;
      let entry = byName.get(name);
      if (entry === undefined) {
        entry = { type, description: family.help ?? "", unit: inferUnit(unitName), series: [] };
        byName.set(name, entry);
      }
      if (type === "histogram") {
        for (const h of family.histograms ?? []) {
          const history = used.map((s) => histogramOf(s.families, family.name, h.labels));
          entry.series.push(histogramSummary(endpoint.url, h.labels, history, spanSec));
        }
        continue;
      }
      for (const sample of family.samples) {
        const values = (type === "counter" ? used : gaugeScrapes).map((s) =>
          valueOf(s.families, family.name, sample.name, sample.labels)
        );
        const stats = type === "counter" ? counterStats(values, spanSec) : gaugeStats(values);
        if (stats === undefined) continue;
        entry.series.push({
          endpointUrl: endpoint.url,
          ...(Object.keys(sample.labels).length > 0 ? { labels: sample.labels } : {}),
          stats,
        });
      }
    }
  }
  return [...byName.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    .map(([name, e]) => ({ name, type: e.type, description: e.description, unit: e.unit, series: e.series }));
}

/** Fetch statistics of one endpoint (AIPerf's `endpoint_info`). */
export function endpointInfo(scrapes: readonly Scrape[]): EndpointInfo {
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

/** Increase over consecutive values, a drop counting as a reset to zero; undefined values are skipped. */
export function increase(values: readonly (number | undefined)[]): number | undefined {
  let total = 0;
  let previous: number | undefined;
  let seen = false;
  for (const v of values) {
    if (v === undefined || Number.isNaN(v)) continue;
    if (previous !== undefined) total += v >= previous ? v - previous : v;
    previous = v;
    seen = true;
  }
  return seen ? total : undefined;
}

function counterStats(values: readonly (number | undefined)[], spanSec: number): Record<string, number> | undefined {
  const total = increase(values);
  if (total === undefined) return undefined;
  return { total, rate: spanSec > 0 ? total / spanSec : 0 };
}

function gaugeStats(values: readonly (number | undefined)[]): Record<string, number> | undefined {
  const present = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  const s = computeStats(Float64Array.from(present));
  if (s === undefined) return undefined;
  return {
    avg: s.avg,
    min: s.min,
    max: s.max,
    std: s.std,
    p1: s.p1,
    p5: s.p5,
    p10: s.p10,
    p25: s.p25,
    p50: s.p50,
    p75: s.p75,
    p90: s.p90,
    p95: s.p95,
    p99: s.p99,
  };
}

function histogramSummary(
  endpointUrl: string,
  labels: Labels,
  history: readonly (HistogramSeries | undefined)[],
  spanSec: number,
): SeriesSummary {
  const present = history.filter((h): h is HistogramSeries => h !== undefined);
  const count = increase(present.map((h) => h.count)) ?? 0;
  const sum = increase(present.map((h) => h.sum)) ?? 0;
  const bounds = present[present.length - 1]?.buckets.map((b) => b.le) ?? [];
  const cumulative = bounds.map((le) => increase(present.map((h) => h.buckets.find((b) => b.le === le)?.count)) ?? 0);
  const stats: Record<string, number> = {
    count,
    count_rate: spanSec > 0 ? count / spanSec : 0,
    sum,
    sum_rate: spanSec > 0 ? sum / spanSec : 0,
  };
  if (count > 0) {
    stats.avg = sum / count;
    for (const p of PERCENTILES) {
      const q = histogramQuantile(p / 100, bounds, cumulative);
      if (q !== undefined) stats[`p${p}_estimate`] = q;
    }
  }
  const buckets: Record<string, number> = {};
  bounds.forEach((le, i) => buckets[le === Infinity ? "+Inf" : String(le)] = cumulative[i]);
  return { endpointUrl, ...(Object.keys(labels).length > 0 ? { labels } : {}), stats, buckets };
}

/**
 * Prometheus `histogram_quantile`: the q-th quantile from cumulative bucket counts (ascending bounds, +Inf
 * last), by linear interpolation inside the bucket that holds rank `q · total`.
 */
export function histogramQuantile(
  q: number,
  bounds: readonly number[],
  cumulative: readonly number[],
): number | undefined {
  const total = cumulative[cumulative.length - 1];
  if (total === undefined || total <= 0) return undefined;
  const rank = q * total;
  let i = cumulative.findIndex((c) => c >= rank);
  if (i < 0) i = cumulative.length - 1;
  if (bounds[i] === Infinity) {
    const finite = bounds.filter((b) => Number.isFinite(b));
    return finite.length > 0 ? finite[finite.length - 1] : undefined;
  }
  const lower = i === 0 ? Math.min(0, bounds[0]) : bounds[i - 1];
  const below = i === 0 ? 0 : cumulative[i - 1];
  const inBucket = cumulative[i] - below;
  if (inBucket <= 0) return bounds[i];
  return lower + (bounds[i] - lower) * ((rank - below) / inBucket);
}

function valueOf(
  families: readonly MetricFamily[],
  family: string,
  sample: string,
  labels: Labels,
): number | undefined {
  const f = families.find((x) => x.name === family);
  if (f === undefined) return undefined;
  const key = seriesKey(sample, labels);
  return f.samples.find((s) => s.name === sample && seriesKey(s.name, s.labels) === key)?.value;
}

function histogramOf(families: readonly MetricFamily[], family: string, labels: Labels): HistogramSeries | undefined {
  const key = seriesKey("", labels);
  return families.find((x) => x.name === family)?.histograms?.find((h) => seriesKey("", h.labels) === key);
}

function findLastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i])) return i;
  return -1;
}
