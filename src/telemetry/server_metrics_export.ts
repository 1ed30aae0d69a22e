/**
 * `server_metrics_export.json` and `server_metrics_export.csv` in AIPerf 0.13's layout (JSON `schema_version` 1.1,
 * CSV 1.0): the JSON holds `summary` (endpoints, window, per-endpoint fetch statistics), `metrics_phase` and
 * `metrics` (per metric: type, description, unit, series with stats); the CSV has one section per type (gauge,
 * counter, histogram) separated by a blank line, labels as columns, numbers with four decimals. Comment lines end
 * in `\n`, rows in `\r\n` (Python's `csv.writer`), as AIPerf writes them.
 */
import { epochNsDigits, isoUtcMicros } from "../export/epoch_ns.ts";
import { AIPERF_COMPATIBLE_VERSION, type JsonObject } from "../export/json_export.ts";
import type { EndpointInfo, MetricSummary, SummaryType, Window } from "./server_metrics_summary.ts";

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
  const metrics: Record<string, JsonObject> = {};
  for (const m of report.metrics) {
    metrics[m.name] = {
      type: m.type,
      description: m.description,
      unit: m.unit,
      series: m.series.map((s) => ({
        endpoint_url: s.endpointUrl,
        labels: s.labels,
        stats: s.stats,
        buckets: s.buckets,
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
  return JSON.stringify(doc, null, 2).replace(/"\\u0000ns:(\d+)"/g, "$1");
}

const SECTION_STATS: Readonly<Record<SummaryType, readonly string[]>> = {
  gauge: ["avg", "min", "max", "std", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"],
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

export function renderServerMetricsCsv(report: ServerMetricsReport): string {
  let out = "# AIPerf Server Metrics Export (CSV)\n" +
    `# aiperf_version: ${AIPERF_COMPATIBLE_VERSION}\n` +
    `# schema_version: ${SERVER_METRICS_CSV_SCHEMA}\n` +
    `# benchmark_id: ${report.benchmarkId}\n` +
    "# Note: Same benchmark_id and version appear in JSON and Parquet exports\n" +
    "#\n";
  let first = true;
  for (const type of ["gauge", "counter", "histogram"] as const) {
    const metrics = report.metrics.filter((m) => m.type === type && m.series.length > 0);
    if (metrics.length === 0) continue;
    if (!first) out += "\r\n";
    first = false;
    const labelKeys = [...new Set(metrics.flatMap((m) => m.series.flatMap((s) => Object.keys(s.labels ?? {}))))]
      .sort();
    const stats = SECTION_STATS[type];
    const header = ["Endpoint", "Type", "Metric", "Unit", ...stats, ...labelKeys, "Description"];
    if (type === "histogram") header.push("buckets");
    out += csvRow(header);
    for (const m of metrics) {
      for (const s of m.series) {
        const row = [endpointHost(s.endpointUrl), type, m.name, m.unit ?? ""];
        for (const key of stats) row.push(s.stats[key] === undefined ? "" : s.stats[key].toFixed(4));
        for (const key of labelKeys) row.push(s.labels?.[key] ?? "");
        row.push(m.description);
        if (type === "histogram") {
          row.push(Object.entries(s.buckets ?? {}).map(([le, n]) => `${le}=${n.toFixed(4)}`).join(";"));
        }
        out += csvRow(row);
      }
    }
  }
  return out;
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
