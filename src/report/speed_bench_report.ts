/**
 * `speed-bench-report`: per-category SPEED-Bench runs (one `profile` per `speed_bench_*` type, or per `spec_al_*`
 * public dataset) assembled into AIPerf 0.13's matrix — one row per model, one column per category, and `Overall`,
 * the mean of the row's values.
 *
 * Per run, as AIPerf: the category is the dataset selector of `input_config.datasets[]` (`format` of a file dataset,
 * `dataset` of a public one) without its `speed_bench_` / `spec_al_` prefix; the model is
 * `input_config.models.items[0].name`. The value:
 * - `accept_length`: from the server metrics, SGLang's or TensorRT-LLM's `spec_accept_length` gauge (avg), else
 *   vLLM's counters `1 + spec_decode_num_accepted_tokens / spec_decode_num_drafts` (totals), else any metric whose
 *   name has "spec", "accept" and "length" (avg);
 * - `accept_rate`: the `spec_accept_rate` gauges (avg), else vLLM's `num_accepted_tokens / num_draft_tokens`;
 * - `throughput`: the run's `output_token_throughput` avg (tokens/s).
 * infermeter adds one fallback AIPerf lacks: a run without server metrics for it (none scraped, or a server that
 * reports acceptance only per request) takes the run's own per-request figures, `1 +
 * total_accepted_draft_tokens / total_spec_decode_steps` (`spec_decode_token_weighted_acceptance_length`, the same
 * formula as vLLM's counters) and `spec_decode_overall_draft_acceptance_rate / 100` (a fraction, as the servers').
 *
 * Columns: the qualitative categories, the throughput entropy tiers or the `spec_al_*` benchmarks in their set's
 * order when every category belongs to one set, else sorted. Values print with two decimals; a missing one is
 * empty in the CSV and `-` in the table.
 */
import { ReportError } from "./report_error.ts";
import { ENTROPY_TIERS, QUALITATIVE_CATEGORIES } from "../dataset/dataset_formats.ts";
import { runDirsUnder, serverMetricsJsonPathOf, summaryJsonPathOf } from "./run_files.ts";
import { renderBoxTable } from "../export/box_table.ts";
import { formatFixed } from "../export/number_format.ts";

export const SPEED_BENCH_METRICS = ["accept_length", "accept_rate", "throughput"] as const;
export type SpeedBenchMetric = (typeof SPEED_BENCH_METRICS)[number];

/** `spec_al_*` benchmarks, math → chat → code (AIPerf's order). */
export const SPEC_AL_BENCHMARKS = ["gsm8k", "math500", "mtbench", "humaneval", "mbpp"] as const;
const CATEGORY_PREFIXES = ["speed_bench_", "spec_al_"];

const ACCEPT_LENGTH_GAUGES = [
  "sglang:spec_accept_length",
  "vllm:spec_decode_mean_accepted_length",
  "trtllm:spec_accept_length",
];
const ACCEPT_RATE_GAUGES = [
  "sglang:spec_accept_rate",
  "vllm:spec_decode_draft_acceptance_rate",
  "trtllm:spec_accept_rate",
];

type Json = Record<string, unknown>;

function obj(v: unknown): Json | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? v as Json : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** The category of a run's summary JSON, or undefined when its dataset is not a SPEED-Bench one. */
export function runCategory(profile: Json): string | undefined {
  const datasets = obj(profile.input_config)?.datasets;
  if (!Array.isArray(datasets)) return undefined;
  for (const entry of datasets) {
    const e = obj(entry);
    const name = e?.format || e?.dataset;
    if (typeof name !== "string") continue;
    for (const prefix of CATEGORY_PREFIXES) if (name.startsWith(prefix)) return name.slice(prefix.length);
  }
  return undefined;
}

/** The first model of a run's summary JSON, or "unknown". */
export function runModel(profile: Json): string {
  const items = obj(obj(profile.input_config)?.models)?.items;
  if (!Array.isArray(items)) return "unknown";
  for (const item of items) {
    const name = obj(item)?.name;
    if (typeof name === "string" && name !== "") return name;
  }
  return "unknown";
}

/** A statistic of a server metric's first series. */
function seriesStat(metrics: Json, name: string, stat: string): number | undefined {
  const series = obj(metrics[name])?.series;
  return Array.isArray(series) ? num(obj(obj(series[0])?.stats)?.[stat]) : undefined;
}

/** Acceptance length from a server-metrics export (see the module comment for the order). */
export function serverAcceptLength(serverMetrics: Json): number | undefined {
  const metrics = obj(serverMetrics.metrics) ?? {};
  for (const name of ACCEPT_LENGTH_GAUGES) {
    const v = seriesStat(metrics, name, "avg");
    if (v !== undefined) return v;
  }
  const accepted = seriesStat(metrics, "vllm:spec_decode_num_accepted_tokens", "total");
  const drafts = seriesStat(metrics, "vllm:spec_decode_num_drafts", "total");
  if (accepted !== undefined && drafts !== undefined && drafts > 0) return accepted / drafts + 1;
  for (const name of Object.keys(metrics)) {
    const lower = name.toLowerCase();
    if (lower.includes("spec") && lower.includes("accept") && lower.includes("length")) {
      const v = seriesStat(metrics, name, "avg");
      if (v !== undefined) return v;
    }
  }
  return undefined;
}

/** Draft acceptance rate (a fraction) from a server-metrics export. */
export function serverAcceptRate(serverMetrics: Json): number | undefined {
  const metrics = obj(serverMetrics.metrics) ?? {};
  for (const name of ACCEPT_RATE_GAUGES) {
    const v = seriesStat(metrics, name, "avg");
    if (v !== undefined) return v;
  }
  const accepted = seriesStat(metrics, "vllm:spec_decode_num_accepted_tokens", "total");
  const draftTokens = seriesStat(metrics, "vllm:spec_decode_num_draft_tokens", "total");
  return accepted !== undefined && draftTokens !== undefined && draftTokens > 0 ? accepted / draftTokens : undefined;
}

function profileAvg(profile: Json, tag: string): number | undefined {
  return num(obj(profile[tag])?.avg);
}

/** A run's value of `metric`, from its summary JSON and (for acceptance) its server-metrics export. */
export function runValue(metric: SpeedBenchMetric, profile: Json, serverMetrics: Json | undefined): number | undefined {
  if (metric === "throughput") return profileAvg(profile, "output_token_throughput");
  if (metric === "accept_length") {
    return (serverMetrics && serverAcceptLength(serverMetrics)) ??
      profileAvg(profile, "spec_decode_token_weighted_acceptance_length");
  }
  const own = profileAvg(profile, "spec_decode_overall_draft_acceptance_rate");
  return (serverMetrics && serverAcceptRate(serverMetrics)) ?? (own === undefined ? undefined : own / 100);
}

/** model → category → value (undefined: the run had none). */
export type SpeedBenchMatrix = Map<string, Map<string, number | undefined>>;

/** The column order for the categories present (see the module comment). */
export function matrixColumns(matrix: SpeedBenchMatrix): string[] {
  const all = new Set<string>();
  for (const row of matrix.values()) for (const c of row.keys()) all.add(c);
  for (const set of [QUALITATIVE_CATEGORIES, ENTROPY_TIERS, SPEC_AL_BENCHMARKS] as readonly (readonly string[])[]) {
    if ([...all].every((c) => set.includes(c))) return set.filter((c) => all.has(c));
  }
  return [...all].sort();
}

/** `Model, <columns…>, Overall` rows, models in name order; `missing` for an absent value. */
export function matrixRows(matrix: SpeedBenchMatrix, columns: readonly string[], missing: string): string[][] {
  return [...matrix.keys()].sort().map((model) => {
    const row = matrix.get(model)!;
    const values = columns.map((c) => row.get(c));
    const present = values.filter((v): v is number => v !== undefined);
    const overall = present.length === 0 ? undefined : present.reduce((a, b) => a + b, 0) / present.length;
    return [model, ...[...values, overall].map((v) => v === undefined ? missing : formatFixed(v, 2))];
  });
}

/** The CSV file's text. */
export function renderSpeedBenchCsv(matrix: SpeedBenchMatrix, columns: readonly string[]): string {
  const quote = (cell: string) => /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
  const lines = [["Model", ...columns, "Overall"], ...matrixRows(matrix, columns, "")];
  return lines.map((cells) => cells.map(quote).join(",") + "\r\n").join("");
}

const TITLES: Readonly<Record<SpeedBenchMetric, string>> = {
  accept_length: "Acceptance Length Report",
  accept_rate: "Acceptance Rate Report",
  throughput: "Throughput Report (tokens/sec)",
};

/** The console table. */
export function renderSpeedBenchTable(
  matrix: SpeedBenchMatrix,
  columns: readonly string[],
  metric: SpeedBenchMetric,
  maxWidth = 140,
): string {
  return renderBoxTable(
    [
      { header: "Model", justify: "left" },
      ...columns.map((c) => ({ header: c, justify: "right" as const })),
      { header: "Overall", justify: "right" },
    ],
    matrixRows(matrix, columns, "-"),
    { title: TITLES[metric], maxWidth },
  );
}

async function readJson(path: string, warn: (line: string) => void): Promise<Json | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) warn(`Warning: failed to read ${path}: ${(err as Error).message}`);
    return undefined;
  }
  try {
    return obj(JSON.parse(text)) ?? (warn(`Warning: failed to read ${path}: not a JSON object`), undefined);
  } catch (err) {
    warn(`Warning: failed to read ${path}: ${(err as Error).message}`);
    return undefined;
  }
}

export interface SpeedBenchInput {
  readonly paths: readonly string[];
  readonly metric: SpeedBenchMetric;
  /** Warnings (skipped paths and runs), one line each. */
  readonly warn: (line: string) => void;
}

/** The matrix of the runs found under `paths`, and how many run directories were found. */
export async function buildSpeedBenchMatrix(
  input: SpeedBenchInput,
): Promise<{ readonly runs: number; readonly matrix: SpeedBenchMatrix }> {
  const dirs: string[] = [];
  for (const path of input.paths) {
    let info: Deno.FileInfo | undefined;
    try {
      info = await Deno.stat(path);
    } catch {
      info = undefined;
    }
    if (!info?.isDirectory) {
      input.warn(`Warning: ${path} is not a directory, skipping`);
      continue;
    }
    dirs.push(...await runDirsUnder(path));
  }
  if (dirs.length === 0) {
    throw new ReportError(
      `no run directories found in ${input.paths.join(", ")} (a run directory holds run_manifest.json or ` +
        "profile_export_aiperf.json; give runs or the folders that hold them)",
    );
  }
  const matrix: SpeedBenchMatrix = new Map();
  for (const dir of dirs) {
    const summaryPath = await summaryJsonPathOf(dir);
    const profile = await readJson(summaryPath, input.warn);
    if (profile === undefined) {
      input.warn(`Warning: no ${summaryPath.slice(summaryPath.lastIndexOf("/") + 1)} in ${dir}, skipping`);
      continue;
    }
    const category = runCategory(profile);
    if (category === undefined) {
      input.warn(`Warning: cannot determine category from ${dir}, skipping`);
      continue;
    }
    const serverMetrics = input.metric === "throughput"
      ? undefined
      : await readJson(await serverMetricsJsonPathOf(dir), input.warn);
    const model = runModel(profile);
    if (!matrix.has(model)) matrix.set(model, new Map());
    matrix.get(model)!.set(category, runValue(input.metric, profile, serverMetrics));
  }
  return { runs: dirs.length, matrix };
}
