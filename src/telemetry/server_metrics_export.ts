/**
 * `server_metrics_export.json` and `server_metrics_export.csv` in AIPerf 0.13's layout (JSON `schema_version` 1.1,
 * CSV 1.0): the JSON holds `summary` (endpoints, window, per-endpoint fetch statistics), `metrics_phase` and
 * `metrics` (per metric: type, description, unit, series with stats, ascending buckets, time slices); the CSV has
 * one section per type (gauge, counter, histogram, unknown) separated by a blank line, labels as columns (AIPerf's
 * column order: labels grouped into families that occur together, each family's own labels before those shared
 * with another; rows sorted by which label columns they fill, then name, endpoint and labels), integers (counts) as
 * they are and other numbers with four decimals, then `_info` gauges transposed (one row per label). Comment lines
 * end in `\n`, rows in `\r\n` (Python's `csv.writer`), as AIPerf writes them.
 */
import { epochNsDigits, isoUtcMicros } from "../export/epoch_ns.ts";
import { AIPERF_COMPATIBLE_VERSION, type JsonObject } from "../export/json_export.ts";
import {
  type BucketCounts,
  type EndpointInfo,
  labelsRepr,
  type MetricSummary,
  type SeriesSummary,
  type SummaryType,
  type Timeslice,
  type Window,
} from "./server_metrics_summary.ts";

export interface ServerMetricsReport {
  readonly benchmarkId: string;
  readonly infermeterVersion: string;
  readonly endpointsConfigured: readonly string[];
  readonly endpointsSuccessful: readonly string[];
  readonly endpointInfo: Readonly<Record<string, EndpointInfo>>;
  readonly window: Window;
  readonly metrics: readonly MetricSummary[];
  readonly inputConfig: JsonObject;
}

export const SERVER_METRICS_JSON_SCHEMA = "1.1";
export const SERVER_METRICS_CSV_SCHEMA = "1.0";

/** Marks an exact epoch-ns integer for {@link renderServerMetricsJson}, which writes it unquoted. */
const NS = "\u0000ns:";

function ns(epochMs: number | undefined): string | undefined {
  return epochMs === undefined ? undefined : NS + epochNsDigits(epochMs, 0);
}

export function renderServerMetricsJson(report: ServerMetricsReport): string {
  const endpointInfo: Record<string, JsonObject> = {};
  for (const [url, info] of Object.entries(report.endpointInfo)) {
    endpointInfo[url] = {
      total_fetches: info.totalFetches,
      first_fetch_ns: ns(info.firstFetchMs),
      last_fetch_ns: ns(info.lastFetchMs),
      avg_fetch_latency_ms: info.avgFetchLatencyMs,
      unique_updates: info.uniqueUpdates,
      first_update_ns: ns(info.firstUpdateMs),
      last_update_ns: ns(info.lastUpdateMs),
      duration_seconds: info.durationSeconds,
      avg_update_interval_ms: info.avgUpdateIntervalMs,
      median_update_interval_ms: info.medianUpdateIntervalMs,
    };
  }
  const metrics: Record<string, unknown> = {};
  for (const m of report.metrics) {
    metrics[m.name] = {
      type: m.type,
      description: m.description,
      unit: m.unit,
      series: m.series.map((s) => ({
        endpoint_url: s.endpointUrl,
        labels: s.labels,
        stats: s.stats,
        buckets: orderedBuckets(s.buckets),
        timeslices: s.timeslices?.map((t) => timesliceJson(m.type, t)),
      })),
    };
  }
  const doc = {
    schema_version: SERVER_METRICS_JSON_SCHEMA,
    aiperf_version: AIPERF_COMPATIBLE_VERSION,
    infermeter_version: report.infermeterVersion,
    benchmark_id: report.benchmarkId,
    summary: {
      endpoints_configured: report.endpointsConfigured,
      endpoints_successful: report.endpointsSuccessful,
      start_time: isoUtcMicros(report.window.startMs),
      end_time: isoUtcMicros(report.window.endMs),
      endpoint_info: endpointInfo,
      phase_time_ranges: { profiling: { start_ns: ns(report.window.startMs), end_ns: ns(report.window.endMs) } },
    },
    metrics_phase: "profiling",
    metrics,
    input_config: report.inputConfig,
  };
  return stringifyOrdered(doc).replace(/"\\u0000ns:(\d+)"/g, "$1");
}

/** A JSON object whose keys keep their order (bucket bounds like `"1"` would otherwise jump ahead in JavaScript). */
class Ordered {
  constructor(readonly entries: readonly (readonly [string, unknown])[]) {}
}

function orderedBuckets(buckets: BucketCounts | undefined): Ordered | undefined {
  return buckets === undefined ? undefined : new Ordered(buckets);
}

function timesliceJson(type: SummaryType, t: Timeslice): Ordered {
  const entries: [string, unknown][] = [["start_ns", ns(t.startMs)], ["end_ns", ns(t.endMs)]];
  if (!t.complete) entries.push(["is_complete", false]);
  for (const [k, v] of Object.entries(t.values)) entries.push([k, v]);
  if (type === "histogram" && t.buckets !== undefined) entries.push(["buckets", new Ordered(t.buckets)]);
  return new Ordered(entries);
}

/** `JSON.stringify(value, null, 2)`, with {@link Ordered} objects written in their own key order. */
function stringifyOrdered(value: unknown, indent = ""): string {
  if (value instanceof Ordered) return objectText(value.entries, indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const inner = indent + "  ";
    return `[\n${value.map((v) => inner + (stringifyOrdered(v, inner) ?? "null")).join(",\n")}\n${indent}]`;
  }
  if (value !== null && typeof value === "object") return objectText(Object.entries(value), indent);
  return JSON.stringify(value);
}

function objectText(entries: readonly (readonly [string, unknown])[], indent: string): string {
  const inner = indent + "  ";
  const parts = entries.filter(([, v]) => v !== undefined).map(([k, v]) =>
    `${inner}${JSON.stringify(k)}: ${stringifyOrdered(v, inner)}`
  );
  return parts.length === 0 ? "{}" : `{\n${parts.join(",\n")}\n${indent}}`;
}

const GAUGE_STATS = ["avg", "min", "max", "std", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"];
const SECTION_STATS: Readonly<Record<SummaryType, readonly string[]>> = {
  gauge: GAUGE_STATS,
  unknown: GAUGE_STATS,
  counter: ["total", "rate", "rate_avg", "rate_min", "rate_max", "rate_std"],
  histogram: [
    "count",
    "count_rate",
    "sum",
    "sum_rate",
    "avg",
    "p1_estimate",
    "p5_estimate",
    "p10_estimate",
    "p25_estimate",
    "p50_estimate",
    "p75_estimate",
    "p90_estimate",
    "p95_estimate",
    "p99_estimate",
  ],
};

/** Stats AIPerf holds as integers (written without decimals). */
const INTEGER_STATS: Readonly<Partial<Record<SummaryType, ReadonlySet<string>>>> = { histogram: new Set(["count"]) };

interface CsvRow {
  readonly metric: MetricSummary;
  readonly series: SeriesSummary;
}

export function renderServerMetricsCsv(report: ServerMetricsReport): string {
  let out = "# AIPerf Server Metrics Export (CSV)\n" +
    `# aiperf_version: ${AIPERF_COMPATIBLE_VERSION}\n` +
    `# schema_version: ${SERVER_METRICS_CSV_SCHEMA}\n` +
    `# benchmark_id: ${report.benchmarkId}\n` +
    "# Note: Same benchmark_id and version appear in JSON and Parquet exports\n" +
    "#\n";
  const isInfo = (r: CsvRow) => r.metric.type === "gauge" && r.metric.name.endsWith("_info");
  const rowsOf = (type: SummaryType) =>
    report.metrics.filter((m) => m.type === type).flatMap((metric) =>
      metric.series.map((series) => ({ metric, series }))
    );
  let first = true;
  for (const type of ["gauge", "counter", "histogram", "unknown"] as const) {
    const rows = rowsOf(type).filter((r) => !isInfo(r));
    if (rows.length === 0) continue;
    if (!first) out += "\r\n";
    first = false;
    out += csvSection(type, rows);
  }
  const info = rowsOf("gauge").filter(isInfo).sort((a, b) =>
    compareTuples([a.metric.name, a.series.endpointUrl], [b.metric.name, b.series.endpointUrl])
  );
  if (info.length > 0) {
    if (!first) out += "\r\n";
    out += csvRow(["Endpoint", "Metric", "Key", "Value", "Description"]);
    for (const r of info) {
      const labels = r.series.labels ?? {};
      for (const key of Object.keys(labels).sort()) {
        out += csvRow([endpointHost(r.series.endpointUrl), r.metric.name, key, labels[key], r.metric.description]);
      }
    }
  }
  return out;
}

function csvSection(type: SummaryType, rows: readonly CsvRow[]): string {
  const labelKeys = labelColumnOrder(rows.map((r) => Object.keys(r.series.labels ?? {})));
  const stats = SECTION_STATS[type];
  const header = ["Endpoint", "Type", "Metric", "Unit", ...stats, ...labelKeys, "Description"];
  if (type === "histogram") header.push("buckets");
  let out = csvRow(header);
  const sortKey = (r: CsvRow) => [
    labelKeys.map((k) => (r.series.labels?.[k] !== undefined ? "1" : "0")).join(""),
    r.metric.name,
    endpointHost(r.series.endpointUrl),
    labelsRepr(r.series.labels),
  ];
  for (const r of [...rows].sort((a, b) => compareTuples(sortKey(a), sortKey(b)))) {
    const { metric: m, series: s } = r;
    const row = [endpointHost(s.endpointUrl), type, m.name, m.unit ?? ""];
    const integers = INTEGER_STATS[type];
    for (const key of stats) row.push(formatNumber(s.stats[key], integers?.has(key) ?? false));
    for (const key of labelKeys) row.push(s.labels?.[key] ?? "");
    row.push(m.description);
    if (type === "histogram") row.push((s.buckets ?? []).map(([le, n]) => `${le}=${formatNumber(n, true)}`).join(";"));
    out += csvRow(row);
  }
  return out;
}

/** AIPerf's `_format_number`: empty for none, integers as they are, other numbers with four decimals. */
function formatNumber(value: number | undefined, integer: boolean): string {
  if (value === undefined) return "";
  return integer ? String(Math.trunc(value)) : value.toFixed(4);
}

/**
 * AIPerf's label column order: labels that occur together are one family (union-find over each row's sorted
 * labels); families in order of their smallest label, within one the labels of a single row set first, then the
 * "bridge" labels that several rows' label sets share, each group sorted.
 */
export function labelColumnOrder(labelSets: readonly (readonly string[])[]): string[] {
  const sets = labelSets.filter((s) => s.length > 0).map((s) => new Set(s));
  const all = new Set(sets.flatMap((s) => [...s]));
  if (all.size === 0) return [];
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    if (!parent.has(x)) parent.set(x, x);
    const p = parent.get(x)!;
    return p === x ? x : find(p);
  };
  for (const set of sets) {
    const sorted = [...set].sort();
    for (let i = 1; i < sorted.length; i++) parent.set(find(sorted[i]), find(sorted[i - 1]));
  }
  const families = new Map<string, string[]>();
  for (const label of all) {
    const root = find(label);
    families.set(root, [...(families.get(root) ?? []), label]);
  }
  const bridges = new Set([...all].filter((l) => sets.filter((s) => s.has(l)).length > 1));
  const out: string[] = [];
  const byMin = [...families.values()].sort((a, b) => compareTuples([min(a)], [min(b)]));
  for (const family of byMin) {
    out.push(...family.filter((l) => !bridges.has(l)).sort());
    out.push(...family.filter((l) => bridges.has(l)).sort());
  }
  return out;
}

function min(xs: readonly string[]): string {
  return [...xs].sort()[0];
}

function compareTuples(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] < b[i]) return -1;
    if (a[i] > b[i]) return 1;
  }
  return a.length - b.length;
}

/** `host:port` of an endpoint URL, as AIPerf's CSV names endpoints. */
function endpointHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function csvRow(fields: readonly string[]): string {
  return fields.map((f) => /[",\r\n]/.test(f) ? `"${f.replaceAll('"', '""')}"` : f).join(",") + "\r\n";
}
