/**
 * A finished run as its JSON summary export (`profile_export_aiperf.json`, ours or AIPerf 0.13's) describes it: the
 * statistics of every metric, the load it ran under, its identity and command line, its errors and the client's
 * own cost. `compare`, `plot` and the HTML report read runs through this and nothing else, so they work on AIPerf's
 * artifacts too.
 */
import { ReportError } from "./report_error.ts";
import { type InfermeterBlockJson, type SummaryDocumentHead, summaryProducer } from "../export/summary_json_schema.ts";
import { runManifest } from "./run_files.ts";
import { manifestPath } from "../export/run_manifest.ts";

/** One metric's statistics as exported: `avg` for single-valued metrics, the full set for distributions. */
export interface ExportedMetric {
  readonly tag: string;
  readonly unit: string;
  /** `avg`, `min`, `max`, `p1`…`p99`, `std`, `count`, `sum`: whichever the export has. */
  readonly stats: Readonly<Record<string, number>>;
}

/** One line of the error summary. */
export interface ExportedError {
  readonly code: number | undefined;
  readonly type: string;
  readonly message: string;
  readonly count: number;
}

/** What the client itself cost, from the `infermeter` block of our exports. */
export interface ClientCost {
  /** CPU of the whole process over the profiling phase, % of one core. */
  readonly percentOfCore?: number;
  readonly engineThreads?: number;
  /** An engine thread went over this % of a core (timestamps may lag). */
  readonly overThresholdPercent?: number;
  readonly peakRssBytes?: number;
  /** The engine's own time to dispatch each request (`dispatch_overhead_ms`), ms. */
  readonly dispatchP50Ms?: number;
  readonly dispatchP99Ms?: number;
  /** How late open-loop sends left against their schedule, ms. */
  readonly scheduleLatenessP50Ms?: number;
  readonly scheduleLatenessP99Ms?: number;
  /** Open-loop runs: whether the client held the schedule, and why not. */
  readonly scheduleHeld?: boolean;
  readonly scheduleWarning?: string;
}

/** What a run's JSON export says, read into typed fields. */
export interface RunExport {
  /** Where the JSON file is. */
  readonly jsonPath: string;
  /** The directory the run's artifacts are in. */
  readonly dir: string;
  /** Metrics in file order. */
  readonly metrics: ReadonlyMap<string, ExportedMetric>;
  readonly benchmarkId?: string;
  /** The redacted command line the run was started with. */
  readonly cliCommand?: string;
  readonly model?: string;
  readonly endpointType?: string;
  readonly url?: string;
  readonly streaming?: boolean;
  /** `--concurrency`, when the run set it. */
  readonly concurrency?: number;
  /** `--request-rate`, when the run set it. */
  readonly requestRate?: number;
  readonly startTime?: string;
  readonly endTime?: string;
  readonly cancelled: boolean;
  readonly errors: readonly ExportedError[];
  /** The client's own cost (infermeter's exports only). */
  readonly client?: ClientCost;
  /** Benchmark duration, s. */
  readonly durationSec?: number;
  /** The producing tool and its version (`infermeter 0.1.0`, `aiperf 0.13.0`). */
  readonly producer: string;
  /** `--threshold` results, as exported. */
  readonly thresholds: readonly { readonly text: string; readonly ok: boolean; readonly detail: string }[];
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

function num(x: unknown): number | undefined {
  return typeof x === "number" && Number.isFinite(x) ? x : undefined;
}

function str(x: unknown): string | undefined {
  return typeof x === "string" ? x : undefined;
}

function at(x: unknown, ...path: string[]): unknown {
  let v = x;
  for (const key of path) v = isObject(v) ? v[key] : undefined;
  return v;
}

/** A top-level entry is a metric when it has a unit and at least one numeric statistic. */
function readMetric(tag: string, value: unknown): ExportedMetric | undefined {
  if (!isObject(value) || typeof value.unit !== "string") return undefined;
  const stats: Record<string, number> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key !== "unit" && typeof v === "number") stats[key] = v;
  }
  return Object.keys(stats).length === 0 ? undefined : { tag, unit: value.unit, stats };
}

function readErrors(x: unknown): ExportedError[] {
  if (!Array.isArray(x)) return [];
  return x.filter(isObject).map((e) => {
    const detail = isObject(e.error_details) ? e.error_details : e;
    return {
      code: num(detail.code),
      type: str(detail.type) ?? "",
      message: str(detail.message) ?? "",
      count: num(e.count) ?? 0,
    };
  });
}

/**
 * Reads the text of a JSON summary export.
 * @throws {ReportError} naming the file when it is not JSON or not a summary export.
 */
export function parseRunExport(text: string, jsonPath: string, dir = dirOf(jsonPath)): RunExport {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ReportError(`${jsonPath}: not valid JSON (${e instanceof Error ? e.message : String(e)}).`);
  }
  if (!isObject(json)) throw new ReportError(`${jsonPath}: not a profile export (the top level is not an object).`);
  const metrics = new Map<string, ExportedMetric>();
  for (const [tag, value] of Object.entries(json)) {
    const metric = readMetric(tag, value);
    if (metric !== undefined) metrics.set(tag, metric);
  }
  if (metrics.size === 0) {
    throw new ReportError(`${jsonPath}: not a profile export (no metric with a unit and statistics in it).`);
  }
  const config = json.input_config;
  const doc = json as Partial<SummaryDocumentHead>;
  const producer = summaryProducer(doc);
  return {
    jsonPath,
    dir,
    metrics,
    benchmarkId: str(json.benchmark_id) ?? str(at(json, "run_info", "benchmark_id")),
    cliCommand: str(at(json, "run_info", "cli_command")) ?? str(at(config, "cli_command")),
    model: modelOf(config),
    endpointType: str(at(config, "endpoint", "type")),
    url: str(at(config, "endpoint", "url")) ?? firstString(at(config, "endpoint", "urls")),
    streaming: typeof at(config, "endpoint", "streaming") === "boolean"
      ? at(config, "endpoint", "streaming") as boolean
      : undefined,
    concurrency: num(at(config, "loadgen", "concurrency")) ?? num(at(profilingPhase(config), "concurrency")),
    requestRate: num(at(config, "loadgen", "request_rate")) ?? num(at(profilingPhase(config), "rate")),
    startTime: str(doc.start_time),
    endTime: str(doc.end_time),
    cancelled: doc.was_cancelled === true,
    errors: readErrors(doc.error_summary),
    client: isObject(doc.infermeter) ? clientCost(doc.infermeter) : undefined,
    durationSec: num(at(json, "benchmark_duration", "avg")),
    producer,
    thresholds: (doc.thresholds ?? []).filter(isObject).map((t) => ({
      text: str(t.threshold) ?? "",
      ok: t.ok === true,
      detail: num(t.observed) === undefined
        ? "no value in this run"
        : `${str(t.stat)} ${num(t.observed)!.toFixed(2)} ${str(t.unit) ?? ""}`,
    })),
  };
}

function clientCost(x: Partial<InfermeterBlockJson>): ClientCost {
  const cpu = isObject(x.client_cpu) ? x.client_cpu : undefined;
  return {
    percentOfCore: num(cpu?.percent_of_core),
    engineThreads: num(x.workers),
    overThresholdPercent: cpu?.over_threshold === true ? num(cpu.threshold_percent) : undefined,
    peakRssBytes: num(x.peak_rss_bytes),
    dispatchP50Ms: num(at(x.dispatch_overhead_ms, "p50")),
    dispatchP99Ms: num(at(x.dispatch_overhead_ms, "p99")),
    scheduleLatenessP50Ms: num(at(x.schedule_lateness, "p50")),
    scheduleLatenessP99Ms: num(at(x.schedule_lateness, "p99")),
    // Only open-loop runs have a schedule to hold (a target rate).
    scheduleHeld: num(at(x.load, "target_rate")) === undefined ? undefined : at(x.load, "schedule_held") === true,
    scheduleWarning: str(at(x.load, "warning")),
  };
}

function firstString(x: unknown): string | undefined {
  return Array.isArray(x) && typeof x[0] === "string" ? x[0] : undefined;
}

/** Model names: ours under `endpoint.model_names`, AIPerf 0.13's under `models.items[].name`. */
function modelOf(config: unknown): string | undefined {
  const names = at(config, "endpoint", "model_names");
  if (Array.isArray(names)) return names.filter((n) => typeof n === "string").join(", ");
  const items = at(config, "models", "items");
  if (!Array.isArray(items)) return undefined;
  return items.map((item) => str(at(item, "name"))).filter((n) => n !== undefined).join(", ");
}

/** AIPerf 0.13 declares its load as a list of phases; the profiling one carries the concurrency or rate. */
function profilingPhase(config: unknown): unknown {
  const phases = at(config, "phases");
  return Array.isArray(phases) ? phases.find((p) => at(p, "kind") === "profiling") : undefined;
}

function dirOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "." : i === 0 ? "/" : path.slice(0, i);
}

/** Names of JSON files in an artifact directory that are never the summary export. */
const NOT_SUMMARY = new Set([
  "inputs.json",
  "server_metrics_export.json",
  "run_manifest.json",
  "kube_run.json",
  "peer_metrics.json",
]);
/** Endings of the other JSON exports (also under `--profile-export-prefix`). */
const NOT_SUMMARY_SUFFIXES = ["_timeslices.json", "_server_metrics.json", "_aggregate.json", "_sweep.json"];
const SUMMARY_NAME = "profile_export_aiperf.json";

/** The summary export's path in `dir`, or undefined when there is none (several candidates are an error). */
export async function findRunExport(dir: string): Promise<string | undefined> {
  const candidates: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile || !entry.name.endsWith(".json") || NOT_SUMMARY.has(entry.name)) continue;
      if (NOT_SUMMARY_SUFFIXES.some((suffix) => entry.name.endsWith(suffix))) continue;
      if (entry.name === SUMMARY_NAME) return `${dir}/${SUMMARY_NAME}`;
      candidates.push(entry.name);
    }
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw new ReportError(`${dir}: no such directory.`);
    if (e instanceof Deno.errors.NotADirectory) return undefined;
    throw e;
  }
  const exports = candidates.filter((name) => name.startsWith("profile_export") || !name.includes("inputs"));
  if (exports.length === 1) return `${dir}/${exports[0]}`;
  if (exports.length > 1) {
    throw new ReportError(
      `${dir}: several JSON files could be the summary export (${exports.sort().join(", ")}); ` +
        "give the one to use as the path.",
    );
  }
  return undefined;
}

/** Folders of a multi-run directory that hold no run of their own (aggregates, charts, logs). */
const NOT_RUN_DIRS = new Set(["sweep_aggregate", "aggregate", "plots", "logs"]);

/**
 * The runs under each path: a summary JSON file, a run's artifact directory, or a sweep or repeated-run directory
 * (its manifest's points in order; without a manifest, its subdirectories that hold runs, in name order, skipping
 * aggregates).
 * @throws {ReportError} for a path with no run in it.
 */
export async function findRunPaths(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const raw of paths) {
    const path = raw.length > 1 ? raw.replace(/\/+$/, "") : raw;
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(path);
    } catch {
      throw new ReportError(`${path}: no such file or directory.`);
    }
    if (info.isFile) {
      out.push(path);
      continue;
    }
    const found = await runsIn(path, 0);
    if (found.length === 0) {
      throw new ReportError(`${path}: no profile export (${SUMMARY_NAME}) in it or in its subdirectories.`);
    }
    out.push(...found);
  }
  return out;
}

/** The summary exports of the runs in `dir`: its own, its manifest's points', or its subdirectories' (3 levels). */
async function runsIn(dir: string, depth: number): Promise<string[]> {
  const manifest = await runManifest(dir);
  if (manifest?.kind === "run") {
    const json = manifestPath(dir, manifest, "summary_json");
    return json === undefined ? [] : [json];
  }
  if (manifest?.kind === "sweep" && manifest.points !== undefined) {
    const found: string[] = [];
    for (const point of manifest.points) found.push(...await runsIn(`${dir}/${point.dir}`, depth + 1));
    return found;
  }
  const own = await findRunExport(dir);
  if (own !== undefined) return [own];
  if (depth >= 3) return [];
  const children: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory && !NOT_RUN_DIRS.has(entry.name)) children.push(entry.name);
  }
  const found: string[] = [];
  for (const child of children.sort()) found.push(...await runsIn(`${dir}/${child}`, depth + 1));
  return found;
}

/** Reads one run's summary export. */
export async function readRunExport(jsonPath: string): Promise<RunExport> {
  let text: string;
  try {
    text = await Deno.readTextFile(jsonPath);
  } catch (e) {
    throw new ReportError(`${jsonPath}: cannot read it (${e instanceof Error ? e.message : String(e)}).`);
  }
  return parseRunExport(text, jsonPath);
}
