/**
 * Runs that are several profiles: a sweep (one point per list value, `sweep_plan.ts`), repeated runs
 * (`--num-profile-runs`), or both. Each run is an ordinary profile (`runProfileRun`) with its own artifact
 * directory, laid out as AIPerf does:
 * - repeated runs: `<base>/profile_runs/run_NNNN/`, then `<base>/aggregate/profile_export_aiperf_aggregate.{json,csv}`;
 * - a sweep: `<base>/<point>/` (repeated: `<base>/profile_runs/trial_NNNN/<point>/`, trials outermost; with
 *   `--parameter-sweep-mode independent` `<base>/<point>/profile_runs/trial_NNNN/`, points outermost), then
 *   `<base>/sweep_aggregate/profile_export_aiperf_sweep.{json,csv}` and a summary table on the console (unless
 *   `--no-sweep-table`).
 * A point or run that fails is reported and the rest go on; Ctrl-C stops everything (what ran is aggregated).
 * Seeds follow AIPerf (`sweep_seed.ts`): one base (`--random-seed`, else 42 with `--set-consistent-seed`), point N
 * of a sweep adding N unless `--parameter-sweep-same-seed`, every run of a point the same workload unless
 * `--vary-seed-per-trial`; by default only the first run warms up (`--profile-run-disable-warmup-after-first`). With
 * `--convergence-metric`, a point's runs stop early once they agree (`--num-profile-runs` is then the most).
 */
import { joinPath as join } from "../runtime/file_path.ts";
import type { ParsedProfile } from "../config/parse_profile_args.ts";
import type { ProfileConfig } from "../config/profile_config.ts";
import { artifactRunName, stimulusName } from "../export/artifact_paths.ts";
import { aggregateRuns, type ConfidenceAggregate, type RunResult } from "../metrics/confidence_aggregate.ts";
import {
  aggregateJsonObject,
  renderAggregateCsv,
  renderSweepCsv,
  sweepJsonObject,
  type SweepPoint,
} from "../export/aggregate_export.ts";
import { renderBoxTable } from "../export/box_table.ts";
import { formatFixed } from "../export/number_format.ts";
import type { Logger } from "../ui/logger.ts";
import { type ProfileEnd, type ProfileOutcome, type ProfileRunOptions, runProfileRun } from "./profile_run.ts";
import { isSweep, type SweepPlan } from "./sweep_plan.ts";
import { renderSweepReport, type SweepReportPoint } from "../report/sweep_report.ts";
import { findRunPaths, readRunExport } from "../report/run_export.ts";
import { HEADLINE_STATS, headlineLabel } from "../metrics/result_view.ts";
import { METRIC_REGISTRY } from "../metrics/metric_registry.ts";
import { writeFileAtomic } from "./outputs/output_writer.ts";
import {
  MANIFEST_FILE,
  MANIFEST_SCHEMA_VERSION,
  type ManifestFile,
  relativeTo,
  renderManifest,
} from "../export/run_manifest.ts";
import { VERSION } from "../base/version.ts";
import {
  ciWidthConverged,
  CONVERGENCE_DEFAULT_THRESHOLD,
  CONVERGENCE_MIN_RUNS,
  cvConverged,
  distributionConverged,
} from "../metrics/convergence.ts";
import { readMetricValues } from "../report/record_values.ts";
import { runSeed } from "./sweep_seed.ts";

/** How a multi-profile run ended, for the CLI's exit code. */
export type MultiRunEnd =
  /** Every run completed. */
  | "completed"
  /** Some runs failed, at least one completed. */
  | "partial"
  /** No run completed. */
  | "all_failed"
  | "cancelled";

export interface MultiRunOutcome {
  readonly end: MultiRunEnd;
  readonly baseDir: string;
  /** Each run's label, directory and how it ended (or the error that stopped it). */
  readonly runs: readonly {
    readonly label: string;
    readonly dir: string;
    readonly end?: ProfileEnd;
    readonly error?: string;
  }[];
}

/** A planned point, already parsed (a bad point fails before anything is sent). */
export interface ParsedPoint {
  readonly label: string;
  readonly values: Readonly<Record<string, number>>;
  readonly parsed: ParsedProfile;
}

export { CONSISTENT_SEED } from "./sweep_seed.ts";

const WARMUP_KEYS = ["warmupRequestCount", "warmupDuration", "numWarmupSessions"] as const;

/** Where the whole run writes: the explicit directory, or `<artifacts>/<model>-<endpoint>-<stimulus or sweep>`. */
export function multiRunBaseDir(config: ProfileConfig, plan: SweepPlan): string {
  if (config.artifactDirExplicit) return config.artifactDir;
  if (!isSweep(plan)) return join(config.artifactDir, artifactRunName(config));
  const name = artifactRunName(config);
  const stem = name.slice(0, name.length - stimulusName(config.concurrency, config.requestRate).length - 1);
  if (plan.type === "scenarios") {
    return join(
      config.artifactDir,
      `${stem}-variants_${plan.points.map((p) => p.label).join("_")}`,
    );
  }
  const sweep = plan.parameters.map((p) => `${p.name}_sweep_${p.values.join("_")}`).join("-");
  return join(config.artifactDir, `${stem}-${sweep}`);
}

/** Sleeps `seconds`, or less when `stop` aborts. */
export function cooldown(seconds: number, stop: AbortSignal | undefined): Promise<void> {
  if (!(seconds > 0) || stop?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, seconds * 1000);
    function done() {
      clearTimeout(timer);
      stop?.removeEventListener("abort", done);
      resolve();
    }
    stop?.addEventListener("abort", done, { once: true });
  });
}

async function writeFile(dir: string, name: string, text: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await writeFileAtomic(join(dir, name), text);
}

export async function runMultiProfile(
  plan: SweepPlan,
  points: readonly ParsedPoint[],
  o: ProfileRunOptions,
): Promise<MultiRunOutcome> {
  const logger: Logger = o.logger;
  const first = points[0].parsed.config;
  const trials = first.numProfileRuns;
  const sweep = isSweep(plan);
  const base = multiRunBaseDir(first, plan);
  const results = points.map(() => [] as RunResult[]);
  const runs: { label: string; dir: string; end?: ProfileEnd; error?: string }[] = [];
  /** The point each entry of `runs` ran. */
  const pointIndex: number[] = [];
  /** Points whose repeated runs converged (`--convergence-metric`): their remaining runs are skipped. */
  const converged = points.map(() => false);
  const completedDirs = points.map(() => [] as string[]);
  let cancelled = false;
  if (
    first.convergenceMetric !== undefined && first.convergenceMode === "distribution" && first.exportLevel === "summary"
  ) {
    logger.warning(
      "--convergence-mode distribution compares the runs' per-request records, which --export-level summary does " +
        "not write: every run will be made; use --export-level records.",
    );
  }
  logger.info(
    (sweep ? `Sweep over ${plan.parameters.map((p) => p.name).join(" × ")}: ${points.length} points` : "Profile") +
      (trials > 1 ? `, ${trials} runs each` : "") + `; results in ${base}/`,
  );

  // The (point, run) pairs in running order: runs outermost (repeated), or points outermost (independent).
  const independent = sweep && first.parameterSweepMode === "independent";
  const order: [number, number][] = [];
  if (independent) { for (let i = 0; i < points.length; i++) for (let t = 0; t < trials; t++) order.push([i, t]); }
  else for (let t = 0; t < trials; t++) for (let i = 0; i < points.length; i++) order.push([i, t]);

  let previous: [number, number] | undefined;
  for (const [i, trial] of order) {
    if (o.stop?.aborted) {
      cancelled = true;
      break;
    }
    const point = points[i];
    if (converged[i]) continue;
    if (previous !== undefined) {
      await cooldown(
        previous[0] === i ? first.profileRunCooldownSeconds : first.parameterSweepCooldownSeconds,
        o.stop,
      );
    }
    previous = [i, trial];
    if (o.stop?.aborted) {
      cancelled = true;
      break;
    }
    const runLabel = `run_${String(trial + 1).padStart(4, "0")}`;
    const trialDir = `trial_${String(trial + 1).padStart(4, "0")}`;
    const dir = !sweep
      ? join(base, "profile_runs", runLabel)
      : trials === 1
      ? join(base, point.label)
      : independent
      ? join(base, point.label, "profile_runs", trialDir)
      : join(base, "profile_runs", trialDir, point.label);
    const label = sweep ? (trials > 1 ? `${point.label}/${runLabel}` : point.label) : runLabel;
    logger.info(
      `── ${sweep ? `point ${point.label}` : ""}${sweep && trials > 1 ? ", " : ""}${
        trials > 1 ? `run ${trial + 1} of ${trials}` : ""
      } ──`,
    );
    pointIndex.push(i);
    const seed = runSeed(point.parsed.config, { index: i, label: point.label }, trial, { sweep, trials });
    // Each run prints its headline only (its console file keeps the whole text); the summary follows at the end.
    const outcome = await runOne(point, trial, seed, dir, { ...o, printed: o.printed ?? "headline" })
      .catch((err: Error) => err);
    if (outcome instanceof Error) {
      logger.error(`${label} failed: ${outcome.message}`);
      runs.push({ label, dir, error: outcome.message });
      results[i].push({ label: runLabel, error: outcome.message });
      continue;
    }
    runs.push({ label, dir, end: outcome.end });
    if (outcome.end === "cancelled" || outcome.end === "interrupted_before_start") {
      cancelled = true;
      break;
    }
    if (outcome.end === "completed" && outcome.summary !== undefined) {
      results[i].push({ label: runLabel, summary: outcome.summary });
      completedDirs[i].push(dir);
      if (trial + 1 < trials && await hasConverged(first, results[i], completedDirs[i])) {
        converged[i] = true;
        logger.info(
          `${sweep ? `${point.label}: ` : ""}${first.convergenceMetric} converged by ${first.convergenceMode} after ` +
            `${completedDirs[i].length} runs; the remaining runs are skipped.`,
        );
      }
    } else {
      logger.error(`${label} did not complete (${outcome.end}); the ${sweep ? "sweep" : "runs"} go on.`);
      results[i].push({ label: runLabel, error: outcome.end });
    }
  }

  const aggregates = results.map((r) => aggregateRuns(r, first.confidenceLevel));
  const files = trials > 1 && !sweep
    ? await writeAggregate(base, aggregates[0], first, o)
    : sweep
    ? await writeSweep(base, plan, points, aggregates, runs.map((r, i) => ({ ...r, point: pointIndex[i] })), o)
    : [];
  await writeFile(
    base,
    MANIFEST_FILE,
    renderManifest({
      producer: "infermeter",
      version: VERSION,
      schema_version: MANIFEST_SCHEMA_VERSION,
      kind: "sweep",
      files,
      points: runs.map((r, i) => ({
        label: r.label,
        dir: relativeTo(base, r.dir),
        values: sweep ? points[pointIndex[i]].values : {},
        end: r.end ?? r.error ?? "failed",
      })),
    }),
  ).catch((err) => logger.error(`could not write ${join(base, MANIFEST_FILE)}: ${(err as Error).message}`));

  const okRuns = runs.filter((r) => r.end === "completed").length;
  const end: MultiRunEnd = cancelled
    ? "cancelled"
    : okRuns === runs.length
    ? "completed"
    : okRuns > 0
    ? "partial"
    : "all_failed";
  return { end, baseDir: base, runs };
}

/** Repeated runs: the aggregate across runs (AIPerf's files) and its confidence table. */
async function writeAggregate(
  base: string,
  agg: ConfidenceAggregate,
  config: ProfileConfig,
  o: ProfileRunOptions,
): Promise<ManifestFile[]> {
  const cooldownSeconds = config.profileRunCooldownSeconds;
  if (agg.successfulLabels.length === 0) return [];
  const dir = join(base, "aggregate");
  await writeFile(
    dir,
    "profile_export_aiperf_aggregate.json",
    JSON.stringify(aggregateJsonObject(agg, cooldownSeconds), null, 2),
  );
  await writeFile(dir, "profile_export_aiperf_aggregate.csv", renderAggregateCsv(agg, cooldownSeconds));
  (o.print ?? console.log)(renderConfidenceTable(agg, consoleWidth(config)));
  o.logger.info(`Aggregate across runs: ${dir}/`);
  return [
    { role: "aggregate_json", label: "Aggregate JSON", path: "aggregate/profile_export_aiperf_aggregate.json" },
    { role: "aggregate_csv", label: "Aggregate CSV", path: "aggregate/profile_export_aiperf_aggregate.csv" },
  ];
}

/** A sweep: AIPerf's sweep aggregate files, the summary table (one row per point) and the sweep's report.html. */
async function writeSweep(
  base: string,
  plan: SweepPlan,
  points: readonly ParsedPoint[],
  aggregates: readonly ConfidenceAggregate[],
  runs: readonly { dir: string; end?: ProfileEnd; error?: string; point: number }[],
  o: ProfileRunOptions,
): Promise<ManifestFile[]> {
  const sweepPoints: SweepPoint[] = points.map((p, i) => ({ parameters: p.values, aggregate: aggregates[i] }));
  const params = plan.parameters.map((p) => ({ name: p.name, values: p.values }));
  const dir = join(base, "sweep_aggregate");
  await writeFile(
    dir,
    "profile_export_aiperf_sweep.json",
    JSON.stringify(sweepJsonObject(params, plan.type, sweepPoints), null, 2),
  );
  await writeFile(dir, "profile_export_aiperf_sweep.csv", renderSweepCsv(params, sweepPoints));
  if (!points[0].parsed.config.noSweepTable) (o.print ?? console.log)(renderSweepTable(points, aggregates));
  const files: ManifestFile[] = [
    { role: "sweep_json", label: "Sweep JSON", path: "sweep_aggregate/profile_export_aiperf_sweep.json" },
    { role: "sweep_csv", label: "Sweep CSV", path: "sweep_aggregate/profile_export_aiperf_sweep.csv" },
  ];
  // The report draws each point's last completed run.
  const reportPoints: SweepReportPoint[] = [];
  for (let i = 0; i < points.length; i++) {
    const last = runs.findLast((r) => r.point === i && r.end === "completed");
    const json = last === undefined ? undefined : (await findRunPaths([last.dir]).catch(() => []))[0];
    const run = json === undefined ? undefined : await readRunExport(json).catch(() => undefined);
    reportPoints.push({ label: points[i].label, run, failure: run === undefined ? "failed" : undefined });
  }
  try {
    await writeFileAtomic(join(base, "report.html"), await renderSweepReport(reportPoints));
    files.push({ role: "report_html", label: "HTML Report", path: "report.html" });
  } catch (err) {
    o.logger.warning(`the sweep's report.html could not be written: ${(err as Error).message}`);
  }
  o.logger.info(`Sweep summary: ${dir}/ and ${join(base, "report.html")}`);
  return files;
}

/**
 * Whether a point's completed runs agree well enough to stop (`--convergence-metric` and `--convergence-mode`,
 * AIPerf's adaptive multi-run; `metrics/convergence.ts`). Checked after each completed run from the second on.
 */
async function hasConverged(
  c: ProfileConfig,
  results: readonly RunResult[],
  dirs: readonly string[],
): Promise<boolean> {
  const metric = c.convergenceMetric;
  if (metric === undefined) return false;
  const threshold = c.convergenceThreshold ?? CONVERGENCE_DEFAULT_THRESHOLD[c.convergenceMode];
  if (c.convergenceMode === "distribution") {
    if (dirs.length < CONVERGENCE_MIN_RUNS) return false;
    const read = (dir: string) => readMetricValues(dir, [metric]).then((v) => v?.get(metric) ?? []).catch(() => []);
    const earlier = (await Promise.all(dirs.slice(0, -1).map(read))).flat();
    return distributionConverged(earlier, await read(dirs[dirs.length - 1]), threshold);
  }
  const values = results.flatMap((r) => {
    const m = r.summary?.metrics.find((x) => x.tag === metric);
    const v = m?.stats !== undefined ? (m.stats as unknown as Record<string, number>)[c.convergenceStat] : m?.value;
    return typeof v === "number" && Number.isFinite(v) ? [v] : [];
  });
  return c.convergenceMode === "cv"
    ? cvConverged(values, threshold)
    : ciWidthConverged(values, c.confidenceLevel, threshold);
}

/** One profile run of a point, with its directory, seed and warmup set. */
function runOne(
  point: ParsedPoint,
  trial: number,
  seed: number | undefined,
  dir: string,
  o: ProfileRunOptions,
): Promise<ProfileOutcome> {
  const c = point.parsed.config;
  const config: Record<string, unknown> = { ...c, artifactDir: dir, artifactDirExplicit: true };
  if (seed !== undefined) config.randomSeed = seed;
  if (c.numProfileRuns > 1 && trial > 0 && c.profileRunDisableWarmupAfterFirst) {
    for (const k of WARMUP_KEYS) delete config[k];
  }
  return runProfileRun({ ...point.parsed, config: config as unknown as ProfileConfig }, o);
}

function cell(agg: ConfidenceAggregate, key: string): string {
  const s = agg.metrics.get(key);
  if (s === undefined) return "";
  return agg.successfulLabels.length > 1 && Number.isFinite(s.ciLow)
    ? `${formatFixed(s.mean)} ±${formatFixed(s.ciHigh - s.mean)}`
    : formatFixed(s.mean);
}

/** The headline figures of the result view, as `<tag>_<stat>` keys of the aggregates, with their column titles. */
const TABLE_KEYS: readonly [string, string][] = Object.entries(HEADLINE_STATS).flatMap(([tag, stats]) =>
  stats.map((stat): [string, string] => {
    const unit = METRIC_REGISTRY.get(tag)?.unit === "ms" ? " ms" : "";
    return [`${tag}_${stat}`, stat === "avg" ? headlineLabel(tag) : `${headlineLabel(tag)} ${stat}${unit}`];
  })
);

/** Which sweep columns a narrow console leaves out first (lowest first); the others always stay. */
const DROP_ORDER: Readonly<Record<string, number>> = {
  inter_token_latency_p50: 1,
  request_latency_p50: 2,
  time_to_first_token_p50: 3,
  inter_token_latency_p99: 4,
  request_latency_p99: 5,
  time_to_first_token_p99: 6,
};

/** `--console-width`, else the terminal's width, else AIPerf's 140. */
function consoleWidth(config: ProfileConfig): number {
  return config.consoleWidth ?? (Deno.stdout.isTerminal() ? Math.max(80, Deno.consoleSize().columns) : 140);
}

function renderSweepTable(points: readonly ParsedPoint[], aggs: readonly ConfidenceAggregate[]): string {
  const keys = TABLE_KEYS.filter(([k]) => aggs.some((a) => a.metrics.has(k)));
  const rows = points.map((p, i) => {
    const a = aggs[i];
    const status = a.failedRuns.length === 0 ? "ok" : a.successfulLabels.length === 0 ? "failed" : "partial";
    return [p.label, status, ...keys.map(([k]) => cell(a, k))];
  });
  return renderBoxTable(
    [
      { header: "Point", justify: "left" },
      { header: "Status", justify: "left" },
      // On a narrow console medians give way before tails, ITL before the others; throughputs always stay.
      ...keys.map(([k, h]) => ({ header: h, ...(DROP_ORDER[k] === undefined ? {} : { dropOrder: DROP_ORDER[k] }) })),
    ],
    rows,
    { title: "infermeter | Sweep Summary", maxWidth: consoleWidth(points[0].parsed.config) },
  );
}

function renderConfidenceTable(agg: ConfidenceAggregate, width: number): string {
  const keys = TABLE_KEYS.filter(([k]) => agg.metrics.has(k));
  const rows = keys.map(([k, h]) => {
    const s = agg.metrics.get(k)!;
    return [
      h,
      formatFixed(s.mean),
      formatFixed(s.std),
      Number.isFinite(s.ciLow) ? `[${formatFixed(s.ciLow)}, ${formatFixed(s.ciHigh)}]` : "",
      Number.isFinite(s.cv) ? formatFixed(s.cv * 100) + "%" : "",
    ];
  });
  return renderBoxTable(
    [{ header: "Metric", justify: "left" }, { header: "mean" }, { header: "std" }, {
      header: `${agg.confidenceLevel * 100}% CI`,
    }, { header: "CV" }],
    rows,
    { title: `infermeter | ${agg.successfulLabels.length} of ${agg.numRuns} runs`, maxWidth: width },
  );
}
