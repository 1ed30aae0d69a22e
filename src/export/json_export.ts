/**
 * `profile_export_aiperf.json` (AIPerf §3.3, `schema_version` "1.5"): provenance, one top-level key per metric
 * tag, the error summary and timestamps — readable by tools written for AIPerf.
 *
 * Per metric: `unit` + `avg` always; record metrics add `p1…p99, min, max, std, count, sum` (AIPerf's field
 * order); aggregate/derived metrics never gain other fields. Missing or non-finite values are omitted.
 *
 * Versions: `infermeter_version` names the real producer; `aiperf_version` names the AIPerf release whose
 * export format this file follows (so AIPerf tooling that gates on a version keeps working). infermeter-only
 * facts live under one `infermeter` key, present only when there is something to say.
 */
import type { ErrorSummaryEntry, MetricResult, RunSummary } from "../metrics/run_summary.ts";
import type { Stats } from "../metrics/stats.ts";
import { isoUtcMicros } from "./epoch_ns.ts";

export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue | undefined };

export type JsonObject = { readonly [key: string]: JsonValue | undefined };

/** The summary schema version this exporter writes. */
export const SUMMARY_SCHEMA_VERSION = "1.5";

/** The AIPerf release whose `profile_export_aiperf.json` layout (schema 1.5) is reproduced. */
export const AIPERF_COMPATIBLE_VERSION = "0.13.0";

/** AIPerf's declared metric field order in `JsonExportData`; other tags follow in display order. */
const AIPERF_METRIC_ORDER = [
  "request_throughput",
  "request_latency",
  "request_count",
  "time_to_first_token",
  "time_to_second_token",
  "inter_token_latency",
  "output_token_throughput",
  "output_token_throughput_per_user",
  "output_sequence_length",
  "input_sequence_length",
  "goodput",
  "good_request_count",
  "output_token_count",
  "reasoning_token_count",
  "min_request_timestamp",
  "max_response_timestamp",
  "inter_chunk_latency",
  "total_output_tokens",
  "total_reasoning_tokens",
  "benchmark_duration",
  "total_isl",
  "total_osl",
  "error_request_count",
  "error_isl",
  "total_error_isl",
] as const;

/** Reproducibility block (`run_info`, schema ≥ 1.3). */
export interface RunInfo {
  /** Defaults to the top-level benchmark id. */
  readonly benchmarkId?: string;
  /** UUID of the sweep this run belongs to; null outside sweeps. @default null */
  readonly sweepId?: string | null;
  /** The resolved seed (drawn from entropy when the user gave none). */
  readonly randomSeed: number | null;
  /** @default 0 */
  readonly trial?: number;
  /** @default "run_0001" */
  readonly runLabel?: string;
  /** The command line, already redacted. */
  readonly cliCommand: string | null;
  /** What the server said it is (`/v1/version`, `/v1/metadata`, vLLM `/version`), written as `server`; omitted when
   * it said nothing. */
  readonly server?: JsonObject;
}

export interface SummaryJsonInfo {
  readonly infermeterVersion: string;
  /** @default AIPERF_COMPATIBLE_VERSION */
  readonly aiperfVersion?: string;
  readonly benchmarkId: string;
  /** Epoch ms when the profiling phase started / ended; omitted when unknown. */
  readonly startTimeMs?: number;
  readonly endTimeMs?: number;
  readonly wasCancelled: boolean;
  /** The resolved configuration, secrets removed (built by the caller). */
  readonly inputConfig: JsonObject;
  readonly runInfo: RunInfo;
  /** Metrics of the warmup phase only (`warmup_metrics`, schema 1.4); omitted when undefined. */
  readonly warmup?: RunSummary;
  /** infermeter-only facts (client CPU, engine overhead, ...), written under `infermeter` as given. */
  readonly infermeter?: JsonObject;
  /** Per-GPU telemetry summaries and energy efficiency (`telemetry_data`); omitted when undefined. */
  readonly telemetryData?: JsonObject;
}

function finite(x: number | undefined): number | undefined {
  return x !== undefined && Number.isFinite(x) ? x : undefined;
}

/** A stats block in AIPerf's order: `unit, avg, p1…p99, min, max, std, count, sum`. */
export function statsJson(unit: string, s: Stats): JsonObject {
  return {
    unit,
    avg: finite(s.avg),
    p1: finite(s.p1),
    p5: finite(s.p5),
    p10: finite(s.p10),
    p25: finite(s.p25),
    p50: finite(s.p50),
    p75: finite(s.p75),
    p90: finite(s.p90),
    p95: finite(s.p95),
    p99: finite(s.p99),
    min: finite(s.min),
    max: finite(s.max),
    std: finite(s.std),
    count: s.count,
    sum: finite(s.sum),
  };
}

/** One metric's block: the full stats for record metrics, `{unit, avg}` for aggregate/derived ones. */
export function metricJson(result: MetricResult): JsonObject {
  return result.stats !== undefined
    ? statsJson(result.unit, result.stats)
    : { unit: result.unit, avg: finite(result.value) };
}

/** The metrics block keyed by tag, in AIPerf's field order, then the rest in display order. */
function metricsJson(metrics: readonly MetricResult[]): Record<string, JsonObject> {
  const byTag = new Map(metrics.map((m) => [m.tag, m] as const));
  const out: Record<string, JsonObject> = {};
  for (const tag of AIPERF_METRIC_ORDER) {
    const m = byTag.get(tag);
    if (m !== undefined) out[tag] = metricJson(m);
  }
  for (const m of metrics) if (!(m.tag in out)) out[m.tag] = metricJson(m);
  return out;
}

/** `error_summary`: `[{error_details: {code, type, message}, count}]` in first-seen order. */
export function errorSummaryJson(errors: readonly ErrorSummaryEntry[]): JsonValue[] {
  return errors.map(({ error, count }) => ({
    error_details: { code: error.code, type: error.type, message: error.message },
    count,
  }));
}

/** The summary document as an object (undefined fields are dropped when serialized). */
export function summaryJsonObject(summary: RunSummary, info: SummaryJsonInfo): JsonObject {
  const run = info.runInfo;
  const extra: Record<string, JsonValue | undefined> = {};
  if (summary.scheduleLatenessMs !== undefined) extra.schedule_lateness = statsJson("ms", summary.scheduleLatenessMs);
  Object.assign(extra, info.infermeter);
  return {
    schema_version: SUMMARY_SCHEMA_VERSION,
    aiperf_version: info.aiperfVersion ?? AIPERF_COMPATIBLE_VERSION,
    infermeter_version: info.infermeterVersion,
    benchmark_id: info.benchmarkId,
    ...metricsJson(summary.metrics),
    input_config: info.inputConfig,
    run_info: {
      benchmark_id: run.benchmarkId ?? info.benchmarkId,
      sweep_id: run.sweepId ?? null,
      random_seed: run.randomSeed,
      trial: run.trial ?? 0,
      run_label: run.runLabel ?? "run_0001",
      variation_label: "base",
      variation_index: 0,
      variation_values: {},
      cli_command: run.cliCommand,
      ...(run.server === undefined ? {} : { server: run.server }),
    },
    was_cancelled: info.wasCancelled,
    error_summary: errorSummaryJson(summary.errors),
    start_time: info.startTimeMs === undefined ? undefined : isoUtcMicros(info.startTimeMs),
    end_time: info.endTimeMs === undefined ? undefined : isoUtcMicros(info.endTimeMs),
    warmup_metrics: info.warmup === undefined ? undefined : metricsJson(info.warmup.metrics),
    telemetry_data: info.telemetryData,
    infermeter: Object.keys(extra).length > 0 ? extra : undefined,
  };
}

/** `profile_export_aiperf.json` text: 2-space indented, like AIPerf's `orjson.OPT_INDENT_2`. */
export function renderSummaryJson(summary: RunSummary, info: SummaryJsonInfo): string {
  return JSON.stringify(summaryJsonObject(summary, info), null, 2);
}

/** Writes the summary JSON to `path` (directory must exist). */
export async function writeSummaryJson(path: string, summary: RunSummary, info: SummaryJsonInfo): Promise<void> {
  await Deno.writeTextFile(path, renderSummaryJson(summary, info));
}
