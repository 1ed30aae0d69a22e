/**
 * The exports across several runs, in AIPerf's shapes:
 * - repeated runs: `aggregate/profile_export_aiperf_aggregate.json` (own `schema_version` "1.0": `metadata` with
 *   `aggregation_type: "confidence"`, run counts, failed runs, level, labels, cooldown; `metrics` keyed
 *   `<tag>_<stat>` with `mean, std, min, max, cv, se, ci_low, ci_high, t_critical, unit`) and `.csv` (metrics table,
 *   blank line, metadata rows);
 * - sweeps: `sweep_aggregate/profile_export_aiperf_sweep.json` (`aggregation_type: "sweep"`, `metadata` with the
 *   swept parameters, `per_combination_metrics`, `best_configurations`, `pareto_optimal`) and `.csv` (one row per
 *   combination with each statistic's mean/std/min/max/cv, then best configurations, Pareto points, metadata).
 * Non-finite numbers are written as null in JSON and as empty fields in CSV (AIPerf's convention).
 */
import type { ConfidenceAggregate, ConfidenceStats } from "../metrics/confidence_aggregate.ts";
import { AIPERF_COMPATIBLE_VERSION, type JsonObject, type JsonValue } from "./json_export.ts";

export const AGGREGATE_SCHEMA_VERSION = "1.0";

function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

/** One statistic's block. */
export function confidenceJson(s: ConfidenceStats): JsonObject {
  return {
    mean: finiteOrNull(s.mean),
    std: finiteOrNull(s.std),
    min: finiteOrNull(s.min),
    max: finiteOrNull(s.max),
    cv: finiteOrNull(s.cv),
    se: finiteOrNull(s.se),
    ci_low: finiteOrNull(s.ciLow),
    ci_high: finiteOrNull(s.ciHigh),
    t_critical: finiteOrNull(s.tCritical),
    unit: s.unit,
  };
}

function metricsJson(agg: ConfidenceAggregate): Record<string, JsonObject> {
  return Object.fromEntries([...agg.metrics].map(([key, s]) => [key, confidenceJson(s)]));
}

/** `profile_export_aiperf_aggregate.json` as an object. */
export function aggregateJsonObject(agg: ConfidenceAggregate, cooldownSeconds: number): JsonObject {
  return {
    schema_version: AGGREGATE_SCHEMA_VERSION,
    aiperf_version: AIPERF_COMPATIBLE_VERSION,
    metadata: {
      aggregation_type: "confidence",
      num_profile_runs: agg.numRuns,
      num_successful_runs: agg.successfulLabels.length,
      failed_runs: agg.failedRuns.map((f) => ({ label: f.label, error: f.error })),
      confidence_level: agg.confidenceLevel,
      run_labels: [...agg.successfulLabels],
      cooldown_seconds: cooldownSeconds,
      ...(agg.successfulLabels.length === 1 ? { single_run: true } : {}),
    },
    metrics: metricsJson(agg),
  };
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csvRow(fields: readonly (string | number)[]): string {
  return fields.map((f) => csvField(String(f))).join(",");
}

/** AIPerf's `_format_number`: fixed decimals, empty when not finite. */
function fmt(x: number | undefined, decimals = 2): string {
  return x !== undefined && Number.isFinite(x) ? x.toFixed(decimals) : "";
}

/** `profile_export_aiperf_aggregate.csv` text. */
export function renderAggregateCsv(agg: ConfidenceAggregate, cooldownSeconds: number): string {
  const lines = [
    csvRow(["metric", "mean", "std", "min", "max", "cv", "se", "ci_low", "ci_high", "t_critical", "unit"]),
  ];
  for (const [key, s] of agg.metrics) {
    lines.push(csvRow([
      key,
      fmt(s.mean),
      fmt(s.std),
      fmt(s.min),
      fmt(s.max),
      fmt(s.cv, 4),
      fmt(s.se, 4),
      fmt(s.ciLow),
      fmt(s.ciHigh),
      fmt(s.tCritical, 4),
      s.unit,
    ]));
  }
  lines.push("");
  lines.push(csvRow(["Aggregation Type", "confidence"]));
  lines.push(csvRow(["Total Runs", agg.numRuns]));
  lines.push(csvRow(["Successful Runs", agg.successfulLabels.length]));
  lines.push(csvRow(["Confidence Level", agg.confidenceLevel]));
  lines.push(csvRow(["Run Labels", JSON.stringify(agg.successfulLabels)]));
  lines.push(csvRow(["Cooldown Seconds", cooldownSeconds]));
  return lines.join("\r\n") + "\r\n";
}

/** One sweep point: its parameter values and its runs' aggregate (one run: point values). */
export interface SweepPoint {
  readonly parameters: Readonly<Record<string, number>>;
  readonly aggregate: ConfidenceAggregate;
}

export interface SweepParameter {
  readonly name: string;
  readonly values: readonly number[];
}

const THROUGHPUT = "request_throughput_avg";

/** AIPerf's latency objective: the p99 of the first latency metric present in every point. */
function latencyKey(points: readonly SweepPoint[]): string | undefined {
  for (const key of ["request_latency_p99", "time_to_first_token_p99", "inter_token_latency_p99"]) {
    if (points.length > 0 && points.every((p) => p.aggregate.metrics.has(key))) return key;
  }
  return undefined;
}

function bestConfigurations(points: readonly SweepPoint[]): Record<string, JsonObject> {
  const ok = points.filter((p) => p.aggregate.successfulLabels.length > 0);
  const best: Record<string, JsonObject> = {};
  if (ok.length > 0 && ok.every((p) => p.aggregate.metrics.has(THROUGHPUT))) {
    const top = ok.reduce((a, b) =>
      b.aggregate.metrics.get(THROUGHPUT)!.mean > a.aggregate.metrics.get(THROUGHPUT)!.mean ? b : a
    );
    const s = top.aggregate.metrics.get(THROUGHPUT)!;
    best.best_throughput = { parameters: { ...top.parameters }, metric: finiteOrNull(s.mean), unit: s.unit };
  }
  const lat = latencyKey(ok);
  if (lat !== undefined) {
    const top = ok.reduce((a, b) => b.aggregate.metrics.get(lat)!.mean < a.aggregate.metrics.get(lat)!.mean ? b : a);
    const s = top.aggregate.metrics.get(lat)!;
    best.best_latency_p99 = { parameters: { ...top.parameters }, metric: finiteOrNull(s.mean), unit: s.unit };
  }
  return best;
}

/** Points no other point beats on both throughput (higher) and p99 latency (lower). */
export function paretoOptimal(points: readonly SweepPoint[]): SweepPoint[] {
  const lat = latencyKey(points);
  const ok = points.filter((p) => p.aggregate.metrics.has(THROUGHPUT) && lat !== undefined);
  if (lat === undefined) return [];
  const tp = (p: SweepPoint) => p.aggregate.metrics.get(THROUGHPUT)!.mean;
  const lt = (p: SweepPoint) => p.aggregate.metrics.get(lat)!.mean;
  return ok.filter((p) =>
    !ok.some((q) => q !== p && tp(q) >= tp(p) && lt(q) <= lt(p) && (tp(q) > tp(p) || lt(q) < lt(p)))
  );
}

/** `profile_export_aiperf_sweep.json` as an object. */
export function sweepJsonObject(
  params: readonly SweepParameter[],
  sweepType: string,
  points: readonly SweepPoint[],
): JsonObject {
  const runs = points.reduce((n, p) => n + p.aggregate.numRuns, 0);
  const ok = points.reduce((n, p) => n + p.aggregate.successfulLabels.length, 0);
  const failed: JsonValue[] = points.flatMap((p) =>
    p.aggregate.failedRuns.map((f) => ({ label: f.label, error: f.error, parameters: { ...p.parameters } }))
  );
  return {
    aggregation_type: "sweep",
    num_profile_runs: runs,
    num_successful_runs: ok,
    failed_runs: failed,
    metadata: {
      sweep_parameters: params.map((p) => ({ name: p.name, values: [...p.values] })),
      num_combinations: points.length,
      sweep_type: sweepType,
    },
    per_combination_metrics: points.map((p) => ({
      parameters: { ...p.parameters },
      metrics: metricsJson(p.aggregate),
    })),
    best_configurations: bestConfigurations(points),
    pareto_optimal: paretoOptimal(points).map((p) => ({ ...p.parameters })),
  };
}

/** `profile_export_aiperf_sweep.csv` text (AIPerf's sections). */
export function renderSweepCsv(params: readonly SweepParameter[], points: readonly SweepPoint[]): string {
  const names = params.map((p) => p.name);
  const keys = [...new Set(points.flatMap((p) => [...p.aggregate.metrics.keys()]))].sort();
  const lines: string[] = [];
  if (points.length > 0) {
    lines.push(
      csvRow([...names, ...keys.flatMap((k) => [`${k}_mean`, `${k}_std`, `${k}_min`, `${k}_max`, `${k}_cv`])]),
    );
    for (const p of points) {
      const row: string[] = names.map((n) => String(p.parameters[n] ?? ""));
      for (const k of keys) {
        const s = p.aggregate.metrics.get(k);
        row.push(
          ...(s === undefined ? ["", "", "", "", ""] : [fmt(s.mean), fmt(s.std), fmt(s.min), fmt(s.max), fmt(s.cv, 4)]),
        );
      }
      lines.push(csvRow(row));
    }
  }
  lines.push("", csvRow(["Best Configurations"]));
  const best = bestConfigurations(points);
  if (Object.keys(best).length > 0) {
    lines.push(csvRow(["Configuration", ...names, "Metric", "Unit"]));
    for (const [name, b] of Object.entries(best)) {
      const parameters = b.parameters as Record<string, number>;
      const title = name.split("_").map((w) => w[0].toUpperCase() + w.slice(1)).join(" ");
      lines.push(
        csvRow([title, ...names.map((n) => String(parameters[n] ?? "")), fmt(b.metric as number), String(b.unit)]),
      );
    }
  }
  lines.push("", csvRow(["Pareto Optimal Points"]));
  const pareto = paretoOptimal(points);
  if (pareto.length > 0) {
    lines.push(csvRow(names));
    for (const p of pareto) lines.push(csvRow(names.map((n) => String(p.parameters[n] ?? ""))));
  } else lines.push("None");
  const runs = points.reduce((n, p) => n + p.aggregate.numRuns, 0);
  const ok = points.reduce((n, p) => n + p.aggregate.successfulLabels.length, 0);
  lines.push(
    "",
    csvRow(["Metadata"]),
    csvRow(["Field", "Value"]),
    csvRow(["Aggregation Type", "sweep"]),
    csvRow(["Sweep Parameters", names.join(", ")]),
    csvRow(["Number of Combinations", points.length]),
    csvRow(["Number of Profile Runs", runs]),
    csvRow(["Number of Successful Runs", ok]),
  );
  return lines.join("\r\n") + "\r\n";
}
