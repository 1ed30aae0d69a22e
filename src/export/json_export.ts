/**
 * `profile_export_aiperf.json` exactly in AIPerf 0.13.0's layout (`schema_version` "1.4"): AIPerf's declared
 * metric fields first, then `input_config`, `run_info`, `was_cancelled`, `is_complete`, `error_summary`,
 * `start_time`, `end_time`, `warmup_metrics`, then every other metric — readable by tools written for AIPerf.
 *
 * Per metric: `unit` + `avg` always; record metrics add `p1…p99, min, max, std, count, sum` (AIPerf's field
 * order); aggregate/derived metrics never gain other fields. Missing or non-finite values are omitted.
 * Bookkeeping metrics AIPerf keeps internal (the first/last timestamps) are not top-level keys.
 *
 * Versions: `aiperf_version` names the AIPerf release whose export format this file follows (so AIPerf tooling
 * that gates on a version keeps working); the real producer and every infermeter-only fact live under one
 * `infermeter` key (`infermeter.version`, client CPU, …).
 */
import type { ErrorSummaryEntry, MetricResult, RunSummary } from "../metrics/run_summary.ts";
import type { Stats } from "../metrics/stats.ts";
import { isoUtcMicros } from "./epoch_ns.ts";
import type { InfermeterBlockJson, RunInfoJson, SummaryDocument } from "./summary_json_schema.ts";

import type { JsonObject, JsonValue } from "./json_value.ts";
export type { JsonObject, JsonValue };

/** The summary schema version this exporter writes (AIPerf 0.13.0's `JsonExportData.SCHEMA_VERSION`). */
export const SUMMARY_SCHEMA_VERSION = "1.4";

/** The AIPerf release whose `profile_export_aiperf.json` layout (schema 1.4) is reproduced. */
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
  /** UUID of the sweep this run belongs to; left out outside sweeps. @default null */
  readonly sweepId?: string | null;
  /** The resolved seed (drawn from entropy when the user gave none). */
  readonly randomSeed: number | null;
  /** @default 0 */
  readonly trial?: number;
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
  /**
   * Why the run ended before its stop conditions, when it did: Ctrl-C / SIGTERM (`cancelled`, with `wasCancelled`),
   * `--failed-request-threshold`, or the server going away. `is_complete` is false for all three.
   * @default wasCancelled ? "cancelled" : undefined
   */
  readonly incompleteReason?:
    | "cancelled"
    | "failed_request_threshold"
    | "server_gone"
    | "warmup_failed"
    | "threshold_abort"
    | "shards_lost";
  /** The resolved configuration, secrets removed (built by the caller). */
  readonly inputConfig: JsonObject;
  readonly runInfo: RunInfo;
  /** Metrics of the warmup phase only (`warmup_metrics`, schema 1.4); omitted when undefined. */
  readonly warmup?: RunSummary;
  /**
   * `pooled_spec_decode_acceptance_histogram`: verification steps by accepted drafts (`{"0": n0, "1": n1, …}`, zero
   * buckets left out) over the profiling phase's successful requests; omitted when no request reported any.
   */
  readonly pooledSpecDecodeHistogram?: Readonly<Record<string, number>>;
  /** infermeter-only facts (client CPU, engine overhead, ...), written under `infermeter` as given. */
  readonly infermeter?: JsonObject;
  /** Per-GPU telemetry summaries and energy efficiency (`telemetry_data`); omitted when undefined. */
  readonly telemetryData?: JsonObject;
  /** `--threshold` results (`thresholds`); omitted when none was given. */
  readonly thresholds?: readonly JsonObject[];
}

function finite(x: number | undefined): number | undefined {
  return x !== undefined && Number.isFinite(x) ? x : undefined;
}

/** A statistic as AIPerf writes it: absent when it does not exist (NaN) or is infinite (the "(error-adjusted)"
 * rows' avg, max, sum and the percentiles that fall on a failure: AIPerf drops non-finite values). */
function stat(x: number): number | undefined {
  return Number.isFinite(x) ? x : undefined;
}

/** A stats block in AIPerf's order: `unit, avg, p1…p99, min, max, std, count, sum`. */
export function statsJson(unit: string, s: Stats): JsonObject {
  return {
    unit,
    avg: stat(s.avg),
    p1: stat(s.p1),
    p5: stat(s.p5),
    p10: stat(s.p10),
    p25: stat(s.p25),
    p50: stat(s.p50),
    p75: stat(s.p75),
    p90: stat(s.p90),
    p95: stat(s.p95),
    p99: stat(s.p99),
    min: stat(s.min),
    max: stat(s.max),
    std: stat(s.std),
    count: stat(s.count),
    sum: stat(s.sum),
  };
}

/** One metric's block: the full stats for record metrics, `{unit, avg}` for aggregate/derived ones. */
export function metricJson(result: MetricResult): JsonObject {
  return result.stats !== undefined
    ? statsJson(result.unit, result.stats)
    : { unit: result.unit, avg: finite(result.value) };
}

/** The metrics AIPerf declares as fields of its JSON document, in its order. */
function declaredMetricsJson(metrics: readonly MetricResult[]): Record<string, JsonObject> {
  const byTag = new Map(metrics.filter((m) => !m.flags.jsonOnly).map((m) => [m.tag, m] as const));
  const out: Record<string, JsonObject> = {};
  for (const tag of AIPERF_METRIC_ORDER) {
    const m = byTag.get(tag);
    if (m !== undefined) out[tag] = metricJson(m);
  }
  return out;
}

/** Every other exported metric (AIPerf's extra fields), in display order. */
function otherMetricsJson(metrics: readonly MetricResult[]): Record<string, JsonObject> {
  const declared = new Set<string>(AIPERF_METRIC_ORDER);
  const out: Record<string, JsonObject> = {};
  for (const m of metrics) if (!m.flags.jsonOnly && !declared.has(m.tag)) out[m.tag] = metricJson(m);
  return out;
}

/** All exported metrics of a phase keyed by tag (`warmup_metrics`). */
function metricsJson(metrics: readonly MetricResult[]): Record<string, JsonObject> {
  return { ...declaredMetricsJson(metrics), ...otherMetricsJson(metrics) };
}

/** `error_summary`: `[{error_details: {code, type, message}, count}]` in first-seen order. */
export function errorSummaryJson(errors: readonly ErrorSummaryEntry[]): JsonValue[] {
  return errors.map(({ error, count }) => ({
    error_details: { code: error.code, type: error.type, message: error.message },
    count,
  }));
}

/**
 * The `run_info` block, written by the JSON export and answered by the API's `/api/run`, so both carry the same
 * keys: AIPerf 0.13 writes `benchmark_id`, `random_seed`, `trial`, `cli_command`, and `sweep_id` only in a sweep.
 */
export function runInfoJson(run: RunInfo, benchmarkId: string): RunInfoJson & JsonObject {
  return {
    benchmark_id: run.benchmarkId ?? benchmarkId,
    sweep_id: run.sweepId ?? undefined,
    random_seed: run.randomSeed,
    trial: run.trial ?? 0,
    cli_command: run.cliCommand,
    ...(run.server === undefined ? {} : { server: run.server }),
  };
}

/**
 * The summary document as an object (undefined fields are dropped when serialized). `extraEntries` (an accuracy
 * run's `accuracy.*`) follow the metrics, as in AIPerf's file.
 */
export function summaryJsonObject(
  summary: RunSummary,
  info: SummaryJsonInfo,
  extraEntries: JsonObject = {},
): SummaryDocument {
  const run = info.runInfo;
  const incomplete = info.incompleteReason ?? (info.wasCancelled ? "cancelled" : undefined);
  const extra: { -readonly [K in keyof InfermeterBlockJson]: InfermeterBlockJson[K] } = {
    version: info.infermeterVersion,
  };
  if (summary.scheduleLatenessMs !== undefined) extra.schedule_lateness = statsJson("ms", summary.scheduleLatenessMs);
  for (const m of summary.metrics) if (m.flags.jsonOnly) extra[m.tag] = metricJson(m);
  Object.assign(extra, info.infermeter);
  return {
    schema_version: SUMMARY_SCHEMA_VERSION,
    aiperf_version: info.aiperfVersion ?? AIPERF_COMPATIBLE_VERSION,
    benchmark_id: info.benchmarkId,
    ...declaredMetricsJson(summary.metrics),
    telemetry_data: info.telemetryData,
    input_config: info.inputConfig,
    run_info: runInfoJson(run, info.benchmarkId),
    was_cancelled: info.wasCancelled,
    is_complete: incomplete === undefined,
    incomplete_reason: incomplete,
    error_summary: errorSummaryJson(summary.errors),
    start_time: info.startTimeMs === undefined ? undefined : isoUtcMicros(info.startTimeMs),
    end_time: info.endTimeMs === undefined ? undefined : isoUtcMicros(info.endTimeMs),
    warmup_metrics: info.warmup === undefined ? undefined : metricsJson(info.warmup.metrics),
    pooled_spec_decode_acceptance_histogram: info.pooledSpecDecodeHistogram,
    thresholds: info.thresholds,
    ...otherMetricsJson(summary.metrics),
    ...extraEntries,
    infermeter: extra,
  };
}

/** `profile_export_aiperf.json` text: 2-space indented, like AIPerf's `orjson.OPT_INDENT_2`. */
export function renderSummaryJson(summary: RunSummary, info: SummaryJsonInfo, extraEntries?: JsonObject): string {
  return JSON.stringify(summaryJsonObject(summary, info, extraEntries), null, 2);
}

/** Writes the summary JSON to `path` (directory must exist). */
export async function writeSummaryJson(path: string, summary: RunSummary, info: SummaryJsonInfo): Promise<void> {
  await Deno.writeTextFile(path, renderSummaryJson(summary, info));
}
