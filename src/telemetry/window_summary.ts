/**
 * Counters and gauges of Prometheus endpoints summarized over a window (GPU telemetry: DCGM exporters):
 *
 * - counter: `total` = the increase from the baseline (the last scrape at or before the window's start, else the
 *   first) to the last scrape, summed scrape to scrape so a reset (the value dropping) counts the value after it
 *   as new increase (Prometheus `increase()` semantics); `rate` = total / seconds between those two scrapes.
 * - gauge (and untyped): `avg, min, max, std, p1…p99` over the values of the scrapes inside the window (the last
 *   scrape's value when none fell inside), population std and numpy-linear percentiles (`metrics/stats.ts`).
 *
 * Counter names lose their `_total` suffix (`DCGM_FI_…_total` → `DCGM_FI_…`). Histograms and summaries are left out
 * (server metrics, with AIPerf's histogram estimates, are `server_metrics_summary.ts`).
 */
import { computeStats } from "../metrics/stats.ts";
import { inferUnit } from "./metric_unit.ts";
import type { Labels } from "./prometheus_text.ts";
import type { Scrape, ScrapeMeta } from "./prometheus_scraper.ts";
import { WindowStore } from "./window_store.ts";

export type WindowType = "counter" | "gauge";

export interface WindowSeries {
  readonly endpointUrl: string;
  /** Omitted when the series has no labels. */
  readonly labels?: Labels;
  readonly stats: Readonly<Record<string, number>>;
}

export interface WindowMetric {
  readonly name: string;
  readonly type: WindowType;
  readonly description: string;
  readonly unit?: string;
  readonly series: readonly WindowSeries[];
}

export interface EndpointScrapes {
  readonly url: string;
  readonly scrapes: readonly Scrape[];
}

/** One endpoint's scrapes as a scraper keeps them: their fetch facts and their series as columns. */
export interface EndpointWindowStore {
  readonly url: string;
  readonly scrapes: readonly ScrapeMeta[];
  readonly store: WindowStore;
}

/** The profiling window, epoch ms. */
export interface Window {
  readonly startMs: number;
  readonly endMs: number;
}

/** The scrapes of a list as columns, in the list's order. */
export function windowStoreOf(scrapes: readonly Scrape[]): WindowStore {
  const store = new WindowStore();
  for (const s of scrapes) store.add(s.atMs, s.families);
  return store;
}

/** Every counter and gauge of every endpoint, summarized over `window`; metrics sorted by name. */
export function summarizeWindow(
  endpoints: readonly (EndpointScrapes | EndpointWindowStore)[],
  window: Window,
): WindowMetric[] {
  const byName = new Map<string, { type: WindowType; description: string; unit?: string; series: WindowSeries[] }>();
  for (const endpoint of endpoints) {
    const store = "store" in endpoint ? endpoint.store : windowStoreOf(endpoint.scrapes);
    const n = store.at.length;
    if (n === 0) continue;
    let baselineIndex = 0;
    for (let i = n - 1; i >= 0; i--) {
      if (store.at.at(i) <= window.startMs) {
        baselineIndex = i;
        break;
      }
    }
    const spanSec = (store.at.at(n - 1) - store.at.at(baselineIndex)) / 1000;
    // Gauges: the scrapes inside the window (from the baseline on), else the last one.
    const inWindow = (i: number) => {
      const at = store.at.at(i);
      return i >= baselineIndex && at >= window.startMs && at <= window.endMs;
    };
    let anyInWindow = false;
    for (let i = baselineIndex; i < n && !anyInWindow; i++) anyInWindow = inWindow(i);
    const gaugeScrape = anyInWindow ? inWindow : (i: number) => i === n - 1;
    for (const family of store.lastFamilies) {
      if (family.type === "summary" || family.type === "histogram") continue;
      const type: WindowType = family.type === "counter" ? "counter" : "gauge";
      const name = type === "counter" ? family.name.replace(/_total$/, "") : family.name;
      // A counter's unit from its sample name (`x_tokens_total` under `# TYPE x_tokens counter`), others' from the family.
      const unitName = type === "counter" ? (family.samples[0]?.name ?? family.name) : family.name;
      let entry = byName.get(name);
      if (entry === undefined) {
        entry = { type, description: family.help ?? "", unit: inferUnit(unitName), series: [] };
        byName.set(name, entry);
      }
      for (const sample of family.samples) {
        const points = store.points(family.name, sample.name, sample.labels);
        const values: number[] = [];
        for (let k = 0; k < (points?.scrape.length ?? 0); k++) {
          const i = points!.scrape.at(k);
          if (type === "counter" ? i >= baselineIndex : gaugeScrape(i)) values.push(points!.value.at(k));
        }
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
