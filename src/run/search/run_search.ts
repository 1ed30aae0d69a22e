/**
 * A search (`--search-recipe`): probes chosen by a boundary planner, or a grid fixed in advance, each an ordinary
 * profile run (`runProfileRun`) in its own directory of the search directory, laid out as AIPerf does:
 * - boundary styles: `<base>/search_iter_NNNN/profile_runs/run_NNNN/`, and `<base>/search_history.json`;
 * - grids: `<base>/concurrency_C/` (`shape_ISL_OSL_cC/` for a Pareto sweep); further runs of a point in
 *   `<base>/profile_runs/trial_NNNN/<point>/`;
 * then `<base>/sweep_aggregate/` (AIPerf's sweep aggregate and the recipe's artifact), `search_answer.json`,
 * `report.html` and `run_manifest.json` (kind "sweep", one point per run).
 *
 * Beyond AIPerf: a probe whose verdict is within noise (an SLA statistic's confidence interval holds its threshold,
 * `probe_verdict.ts`) is run again, up to {@link NOISE_REPEATS} times, and judged on all its runs pooled before the
 * search decides on it. The console shows each probe's headline and verdict, then the answer.
 */
import { joinPath as join } from "../../runtime/file_path.ts";
import type { ParsedProfile } from "../../config/parse_profile_args.ts";
import type { ProfileConfig } from "../../config/profile_config.ts";
import type { SearchSpec } from "../../config/search_recipes.ts";
import { describeSla, slaMetricName } from "../../config/sla_filter.ts";
import { aggregateRuns, type RunResult } from "../../metrics/confidence_aggregate.ts";
import type { RunSummary } from "../../metrics/run_summary.ts";
import { renderSweepCsv, sweepJsonObject, type SweepParameter } from "../../export/aggregate_export.ts";
import {
  MANIFEST_FILE,
  MANIFEST_SCHEMA_VERSION,
  type ManifestFile,
  relativeTo,
  renderManifest,
} from "../../export/run_manifest.ts";
import { artifactRunName, stimulusName } from "../../export/artifact_paths.ts";
import { VERSION } from "../../base/version.ts";
import { InputError } from "../../base/input_error.ts";
import { findRunPaths, readRunExport } from "../../report/run_export.ts";
import { renderSweepReport, type SweepReportPoint } from "../../report/sweep_report.ts";
import { writeFileAtomic } from "../outputs/output_writer.ts";
import { type ProfileEnd, type ProfileRunOptions, runProfileRun } from "../profile_run.ts";
import { CONSISTENT_SEED, cooldown } from "../sweep.ts";
import { deriveVariationSeed } from "../sweep_seed.ts";
import { describeObserved, digitsFor, judgeProbe, type ProbeJudgement, type ProbeTrial } from "./probe_verdict.ts";
import { type BoundaryPlanner, boundaryPlanner } from "./sla_planners.ts";
import { concurrencyOf, type SearchProbe, summariesOf } from "./search_probe.ts";
import {
  degradationKnee,
  degradationKneeJson,
  markPareto,
  paretoSweepJson,
  runsStat,
  searchHistoryJson,
  slaBreachJson,
} from "./search_artifacts.ts";
import { bestAnswer, boundaryAnswer, kneeAnswer, paretoAnswer, type SearchAnswer } from "./search_answer.ts";
import { BayesPlanner } from "./bayes_planner.ts";
import { MultiTierPlanner } from "./multi_tier_planner.ts";
import { sameFilter, tieredAnswer, tieredHistoryJson, tierVerdicts } from "./tier_artifacts.ts";
import type { SlaFilter } from "../../config/sla_filter.ts";
import { bayesHistoryJson, probeObjective } from "./bayes_artifacts.ts";
import { hashString } from "../../base/seeded_random.ts";
import { describeValues } from "./probe_values.ts";
import { formatGrouped } from "../../export/number_format.ts";
import { decodeItlSurfaceJson, prefillCurveJson } from "./curve_artifacts.ts";
import { curveAnswer, surfaceAnswer } from "./curve_answer.ts";

/** Most extra runs of a probe whose verdict is within noise. */
export const NOISE_REPEATS = 2;

export type { ProbeValues } from "./probe_values.ts";
import type { ProbeValues } from "./probe_values.ts";

export interface SearchInputsOfRun {
  readonly spec: SearchSpec;
  /** The command as parsed (its first sweep point when `--concurrency` was a list). */
  readonly parsed: ParsedProfile;
  /** Parses the command line of one probe: the user's, with the probe's values in place of theirs. */
  readonly parseProbe: (values: ProbeValues) => Promise<ParsedProfile>;
}

export type SearchEnd = "completed" | "all_failed" | "unreachable" | "cancelled";

export interface SearchOutcome {
  readonly end: SearchEnd;
  readonly baseDir: string;
  readonly answer?: string;
}

/** Where a search writes: the explicit directory, or `<artifacts>/<model>-<endpoint>-<recipe>`. */
export function searchBaseDir(config: ProfileConfig, recipe: string): string {
  if (config.artifactDirExplicit) return config.artifactDir;
  const name = artifactRunName(config);
  const stem = name.slice(0, name.length - stimulusName(config.concurrency, config.requestRate).length - 1);
  return join(config.artifactDir, `${stem}-${recipe}`);
}

const pad4 = (n: number) => String(n).padStart(4, "0");

interface RunRecord {
  readonly label: string;
  readonly dir: string;
  readonly end: string;
  readonly values: Readonly<Record<string, number>>;
}

/** Runs the search and writes its files; throws InputError when a probe's input is bad (every probe would be). */
export async function runSearch(s: SearchInputsOfRun, o: ProfileRunOptions): Promise<SearchOutcome> {
  const { spec } = s;
  const config = s.parsed.config;
  const base = searchBaseDir(config, spec.recipe);
  const print = o.print ?? console.log;
  const trialsPerProbe = config.numProfileRuns;
  const seed = config.randomSeed ?? (config.setConsistentSeed ? CONSISTENT_SEED : undefined);
  const level = config.confidenceLevel;
  const probes: SearchProbe[] = [];
  // Every filter a probe is judged on: the search's own, then each SLO tier's (once each).
  const judged: SlaFilter[] = [...spec.filters];
  for (const f of (spec.tiers ?? []).flatMap((t) => t.filters)) {
    if (!judged.some((g) => sameFilter(f, g))) judged.push(f);
  }
  const allRuns: RunRecord[] = [];
  let stopped: "cancelled" | "unreachable" | undefined;

  o.logger.info(
    `Search ${spec.recipe} (${spec.style})` +
      (spec.filters.length > 0 ? ` within ${spec.filters.map(describeSla).join(", ")}` : "") +
      `; results in ${base}/`,
  );

  /** Runs (and repeats while within noise) one probe. */
  async function probe(values: ProbeValues, label: string, dirOf: (run: number) => string): Promise<SearchProbe> {
    const index = probes.length;
    const shown = describeValues(values);
    const trials: ProbeTrial[] = [];
    const runs: { label: string; dir: string; end: string; summary?: RunSummary }[] = [];
    const judge = () =>
      judgeProbe(trials, judged, {
        level,
        seed: (seed ?? 0) + (values.concurrency ?? 0) * 7919 + (values.isl ?? 0) * 31 + (values.osl ?? 0) +
          otherValuesHash(values),
        objective: spec.objective.metric,
      });
    const runOnce = async () => {
      const n = runs.length + 1;
      if (n > 1) await cooldown(config.profileRunCooldownSeconds, o.stop);
      const dir = dirOf(n);
      const runLabel = `run_${pad4(n)}`;
      o.logger.info(`── probe ${index + 1}: ${shown}${n > 1 ? `, run ${n}` : ""} ──`);
      const parsed = await s.parseProbe(values);
      const runConfig: Record<string, unknown> = { ...parsed.config, artifactDir: dir, artifactDirExplicit: true };
      // Every probe sends the same workload; --vary-seed-per-trial gives each run of a probe its own (AIPerf's SHA-256).
      if (seed !== undefined) {
        runConfig.randomSeed = config.varySeedPerTrial ? deriveVariationSeed(seed, `${label}:trial:${n - 1}`) : seed;
      }
      let end: ProfileEnd | string;
      let summary: RunSummary | undefined;
      try {
        const outcome = await runProfileRun(
          { ...parsed, config: runConfig as unknown as ProfileConfig },
          { ...o, printed: o.printed ?? "headline" },
        );
        end = outcome.end;
        summary = outcome.end === "cancelled" || outcome.end === "interrupted_before_start"
          ? undefined
          : outcome.summary;
        if (outcome.end === "cancelled" || outcome.end === "interrupted_before_start") stopped = "cancelled";
        if (outcome.end === "unreachable") stopped = "unreachable";
      } catch (err) {
        if (err instanceof InputError) throw err;
        end = (err as Error).message;
        o.logger.error(`${label} ${runLabel} failed: ${end}`);
      }
      trials.push({ dir, summary });
      runs.push({ label: runLabel, dir, end: String(end), summary });
      const pointLabel = dir === join(base, label) ? label : `${label}/${runLabel}`;
      allRuns.push({ label: pointLabel, dir, end: String(end), values: { ...values } });
    };
    for (let t = 0; t < trialsPerProbe && stopped === undefined; t++) await runOnce();
    let judgement: ProbeJudgement = await judge();
    let repeats = 0;
    while (
      judged.length > 0 && judgement.withinNoise && repeats < NOISE_REPEATS && stopped === undefined &&
      !o.stop?.aborted
    ) {
      repeats++;
      print(`  ~ ${shown}: within noise (${noisy(judgement)}); running it again`);
      await runOnce();
      judgement = await judge();
    }
    const p: SearchProbe = { index, label, values: { ...values }, runs, judgement, repeats, nonMonotonic: false };
    if (stopped === undefined && spec.tiers !== undefined && judgement.runs > 0) {
      const verdicts = tierVerdicts(spec, judgement);
      print(
        `${verdicts.some((v) => v) ? "✓" : "✗"} ${shown}: ${
          spec.tiers.map((t, i) => `${t.label} ${verdicts[i] ? "✓" : "✗"}`).join(", ")
        } (${judgement.filters.map(describeObserved).join(", ")})`,
      );
    } else if (stopped === undefined && (judged.length > 0 || judgement.runs === 0)) {
      print(verdictLine(shown, judgement));
    }
    return p;
  }

  let answer: SearchAnswer | undefined;
  let reason: string | undefined;
  let planner: BoundaryPlanner | undefined;
  const files: ManifestFile[] = [];
  const aggregateDir = join(base, "sweep_aggregate");
  const writeJson = async (dir: string, name: string, json: unknown) => {
    await Deno.mkdir(dir, { recursive: true });
    await writeFileAtomic(join(dir, name), JSON.stringify(json, null, 2) + "\n");
  };

  for (const notice of spec.notices ?? []) o.logger.warning(notice);
  const p = spec.probes;
  if (p.kind === "tiers") {
    const tiers = spec.tiers!;
    const multi = new MultiTierPlanner(tiers.map((t) => t.label), p);
    for (let v = multi.next(); v !== undefined && stopped === undefined && !o.stop?.aborted; v = multi.next()) {
      if (probes.length > 0) await cooldown(config.parameterSweepCooldownSeconds, o.stop);
      const label = `search_iter_${pad4(probes.length)}`;
      const result = await probe({ concurrency: v }, label, (n) => join(base, label, "profile_runs", `run_${pad4(n)}`));
      const verdicts = tierVerdicts(spec, result.judgement);
      // AIPerf: a probe is feasible when any tier passes.
      const feasible = verdicts.some((x) => x);
      probes.push({ ...result, judgement: { ...result.judgement, feasible } });
      if (stopped !== undefined) break;
      multi.tell(v, verdicts, result.index);
      await writeJson(base, "search_history.json", tieredHistoryJson(spec, probes, multi, undefined));
    }
    reason = stopped ?? (o.stop?.aborted ? "cancelled" : multi.reason);
    await writeJson(base, "search_history.json", tieredHistoryJson(spec, probes, multi, reason));
    files.push({ role: "search_history_json", label: "Search history", path: "search_history.json" });
    answer = tieredAnswer(spec, probes, multi, reason);
  } else if (p.kind === "bayesian") {
    const bayes = new BayesPlanner({
      dims: p.dims.map((d) => ({ name: d.name, lo: d.lo, hi: d.hi, int: d.kind === "int" })),
      maxIterations: p.maxIterations,
      initialPoints: p.initialPoints,
      seed: p.seed,
      direction: spec.objective.direction ?? "maximize",
      terminator: p.terminator,
    });
    for (let v = bayes.next(); v !== undefined && stopped === undefined && !o.stop?.aborted; v = bayes.next()) {
      if (probes.length > 0) await cooldown(config.parameterSweepCooldownSeconds, o.stop);
      const label = `search_iter_${pad4(probes.length)}`;
      const result = await probe(v, label, (n) => join(base, label, "profile_runs", `run_${pad4(n)}`));
      if (stopped !== undefined) {
        probes.push(result);
        break;
      }
      const objective = await probeObjective(result, spec.objective, p.pooled, o.logger);
      bayes.tell(v, {
        objective,
        feasible: result.judgement.feasible,
        margins: result.judgement.filters.map((j) => j.margin),
      });
      probes.push({ ...result, judgement: { ...result.judgement, objective } });
      if (judged.length === 0) {
        const shown = objective === undefined ? "not measured" : formatGrouped(objective, digitsFor(objective));
        print(`· ${describeValues(v)}: ${spec.objective.stat} ${spec.objective.metric} ${shown}`);
      }
      await writeJson(base, "search_history.json", bayesHistoryJson(spec, probes, undefined));
    }
    reason = stopped ?? (o.stop?.aborted ? "cancelled" : bayes.reason);
    await writeJson(base, "search_history.json", bayesHistoryJson(spec, probes, reason));
    files.push({ role: "search_history_json", label: "Search history", path: "search_history.json" });
    if (spec.answer === "best") {
      answer = bestAnswer(spec, probes, reason);
    } else {
      const sorted = [...probes].sort((a, b) => concurrencyOf(a) - concurrencyOf(b));
      const highest = sorted.findLast((x) => x.judgement.feasible);
      const failing = sorted.find((x) =>
        !x.judgement.feasible && (highest === undefined || concurrencyOf(x) > concurrencyOf(highest))
      );
      answer = boundaryAnswer(spec, probes, highest, failing, reason, { lo: p.dims[0].lo, hi: p.dims[0].hi });
    }
  } else if (p.kind === "boundary") {
    planner = boundaryPlanner(p.style, p);
    for (let v = planner.next(); v !== undefined && stopped === undefined && !o.stop?.aborted; v = planner.next()) {
      if (probes.length > 0) await cooldown(config.parameterSweepCooldownSeconds, o.stop);
      const label = `search_iter_${pad4(probes.length)}`;
      const result = await probe({ concurrency: v }, label, (n) => join(base, label, "profile_runs", `run_${pad4(n)}`));
      if (stopped !== undefined) {
        probes.push(result);
        break;
      }
      const nonMonotonic = planner.tell(v, {
        feasible: result.judgement.feasible,
        margins: result.judgement.filters.map((j) => j.margin),
      });
      if (nonMonotonic) {
        o.logger.warning(`${label} (concurrency ${v}) contradicts the probes around it; the bracket is kept.`);
      }
      probes.push({ ...result, nonMonotonic });
      await writeJson(base, "search_history.json", searchHistoryJson(spec, probes, planner, undefined));
    }
    reason = stopped ?? (o.stop?.aborted ? "cancelled" : planner.reason);
    await writeJson(base, "search_history.json", searchHistoryJson(spec, probes, planner, reason));
    files.push({ role: "search_history_json", label: "Search history", path: "search_history.json" });
    const highest = probes.findLast((x) => x.judgement.feasible && concurrencyOf(x) === planner!.feasibleMax);
    const failing = probes.findLast((x) => !x.judgement.feasible && concurrencyOf(x) === planner!.infeasibleMin);
    answer = boundaryAnswer(spec, probes, highest, failing, reason, p);
  } else {
    const cells = p.kind === "grid"
      ? p.concurrencies.map((c) => ({ values: { concurrency: c }, label: `concurrency_${c}` }))
      : p.cells.map((c) => ({ values: c, label: shapeLabel(c, p.naming) }));
    for (const cell of cells) {
      if (stopped !== undefined || o.stop?.aborted) break;
      if (probes.length > 0) await cooldown(config.parameterSweepCooldownSeconds, o.stop);
      const dirOf = (n: number) =>
        trialsPerProbe === 1 && n === 1
          ? join(base, cell.label)
          : join(base, "profile_runs", `trial_${pad4(n)}`, cell.label);
      probes.push(await probe(cell.values, cell.label, dirOf));
    }
    reason = stopped ?? (o.stop?.aborted ? "cancelled" : undefined);
    if (spec.postProcess === "sla_breach") {
      await writeJson(aggregateDir, "sla_breach.json", slaBreachJson(spec, probes));
      files.push({ role: "sla_breach_json", label: "SLA breach", path: "sweep_aggregate/sla_breach.json" });
      const sorted = [...probes].sort((a, b) => concurrencyOf(a) - concurrencyOf(b));
      const highest = sorted.findLast((x) => x.judgement.feasible);
      const failing = sorted.find((x) =>
        !x.judgement.feasible && (highest === undefined || concurrencyOf(x) > concurrencyOf(highest))
      );
      const grid = p.kind === "grid" ? p.concurrencies : [];
      const range = { lo: grid[0] ?? 1, hi: grid[grid.length - 1] ?? 1 };
      answer = boundaryAnswer(spec, probes, highest, failing, reason, range);
    } else if (spec.postProcess === "degradation_knee") {
      const d = spec.degradation!;
      const points = [...probes].sort((a, b) => concurrencyOf(a) - concurrencyOf(b)).flatMap((x) => {
        const y = runsStat(summariesOf(x), d.metricTag, d.stat);
        return y === undefined ? [] : [[concurrencyOf(x), y] as const];
      });
      await writeJson(aggregateDir, "degradation_knee.json", degradationKneeJson(spec, points));
      files.push({
        role: "degradation_knee_json",
        label: "Degradation knee",
        path: "sweep_aggregate/degradation_knee.json",
      });
      const { baseline, knee } = degradationKnee(points, d.threshold);
      answer = kneeAnswer(spec, probes, baseline, knee);
    } else if (spec.postProcess === "ttft_curve_fit") {
      const points = probes.flatMap((x) => {
        const y = runsStat(summariesOf(x), "time_to_first_token", "avg");
        return x.values.isl === undefined || y === undefined ? [] : [[x.values.isl, y] as const];
      });
      await writeJson(aggregateDir, "prefill_curve.json", prefillCurveJson(points));
      files.push({ role: "prefill_curve_json", label: "Prefill curve", path: "sweep_aggregate/prefill_curve.json" });
      answer = curveAnswer(spec, probes, points);
    } else if (spec.postProcess === "itl_surface_fit") {
      const triples = probes.flatMap((x) => {
        const y = runsStat(summariesOf(x), "inter_token_latency", "avg");
        return x.values.osl === undefined || y === undefined ? [] : [[concurrencyOf(x), x.values.osl, y] as const];
      });
      await writeJson(aggregateDir, "decode_itl_surface.json", decodeItlSurfaceJson(triples));
      files.push({
        role: "decode_itl_surface_json",
        label: "Decode ITL surface",
        path: "sweep_aggregate/decode_itl_surface.json",
      });
      answer = surfaceAnswer(spec, probes, triples);
    } else {
      const cellsOut = markPareto(probes.map((x) => ({
        isl: x.values.isl,
        osl: x.values.osl,
        concurrency: concurrencyOf(x),
        x: runsStat(summariesOf(x), "time_to_first_token", "p95"),
        y: runsStat(summariesOf(x), "output_token_throughput", "avg"),
      })));
      await writeJson(aggregateDir, "pareto_sweep.json", paretoSweepJson(cellsOut));
      files.push({ role: "pareto_sweep_json", label: "Pareto sweep", path: "sweep_aggregate/pareto_sweep.json" });
      answer = paretoAnswer(spec, probes, cellsOut);
    }
  }

  if (stopped !== undefined || o.stop?.aborted) {
    // The search did not finish: say so first, so the figures are read as what was known when it stopped.
    const sentence = `${stopped === "unreachable" ? "the server could not be reached" : "interrupted"} before the ` +
      `search ended; so far: ${answer.sentence}`;
    answer = {
      sentence,
      json: { ...(answer.json as Record<string, unknown>), answer: sentence } as SearchAnswer["json"],
    };
  }
  files.unshift(...await writeSweepAggregate(base, spec, probes, level));
  await writeJson(base, "search_answer.json", answer.json);
  files.push({ role: "search_answer_json", label: "Search answer", path: "search_answer.json" });
  const report = await writeReport(base, spec, probes, answer.sentence).catch((err: Error) => {
    o.logger.warning(`the search's report.html could not be written: ${err.message}`);
    return undefined;
  });
  if (report !== undefined) files.push(report);
  await writeFileAtomic(
    join(base, MANIFEST_FILE),
    renderManifest({
      producer: "infermeter",
      version: VERSION,
      schema_version: MANIFEST_SCHEMA_VERSION,
      kind: "sweep",
      files,
      points: allRuns.map((r) => ({ label: r.label, dir: relativeTo(base, r.dir), values: r.values, end: r.end })),
    }),
  ).catch((err) => o.logger.error(`could not write ${join(base, MANIFEST_FILE)}: ${(err as Error).message}`));

  print(answer.sentence);
  o.logger.info(`Search results: ${base}/ (search_answer.json, report.html)`);
  const completed = probes.some((x) => x.judgement.runs > 0);
  const end: SearchEnd = stopped === "unreachable"
    ? "unreachable"
    : stopped === "cancelled" || o.stop?.aborted
    ? "cancelled"
    : completed
    ? "completed"
    : "all_failed";
  return { end, baseDir: base, answer: answer.sentence };
}

/** A stable number from the values other than concurrency, ISL and OSL (seeds a probe's bootstrap). */
function otherValuesHash(v: ProbeValues): number {
  const rest = Object.entries(v).filter(([k]) => k !== "concurrency" && k !== "isl" && k !== "osl");
  return rest.length === 0 ? 0 : hashString(JSON.stringify(rest)) % 1_000_003;
}

/** A grid cell's directory: AIPerf's `isl_256__concurrency_1` when the recipe names its axes, else `shape_…`. */
function shapeLabel(c: ProbeValues, naming: readonly ("isl" | "osl" | "concurrency")[] | undefined): string {
  if (naming === undefined) return `shape_${c.isl}_${c.osl}_c${c.concurrency}`;
  return naming.map((n) => `${n}_${c[n]}`).join("__");
}

/** `✓ concurrency 8: p95 TTFT 31.2 ms ± 0.4` / `✗ concurrency 12: fails TTFT (p95 TTFT 91.2 ms ± 3.1)`. */
function verdictLine(shown: string, j: ProbeJudgement): string {
  if (j.runs === 0) return `✗ ${shown}: no run completed`;
  const figures = j.filters.map(describeObserved).join(", ");
  if (j.feasible) return `✓ ${shown} within SLO: ${figures}${j.withinNoise ? " (within noise)" : ""}`;
  const failed = [...new Set(j.filters.filter((f) => !f.meets).map((f) => slaMetricName(f.filter)))].join(" and ");
  return `✗ ${shown} fails ${failed}: ${figures}${j.withinNoise ? " (within noise)" : ""}`;
}

function noisy(j: ProbeJudgement): string {
  return j.filters.filter((f) => f.withinNoise).map((f) => `${describeObserved(f)} against ${describeSla(f.filter)}`)
    .join(", ");
}

/** AIPerf's sweep aggregate over the probes (each probe's runs aggregated), parameters as the probes set them. */
async function writeSweepAggregate(
  base: string,
  spec: SearchSpec,
  probes: readonly SearchProbe[],
  level: number,
): Promise<ManifestFile[]> {
  if (probes.length === 0) return [];
  const names = [...new Set(["isl", "osl", "concurrency", ...probes.flatMap((p) => Object.keys(p.values))])]
    .filter((n) => probes.some((p) => p.values[n] !== undefined));
  const params: SweepParameter[] = names.map((name) => ({
    name,
    values: [...new Set(probes.map((p) => p.values[name]))].sort((a, b) => a - b),
  }));
  const points = probes.map((p) => {
    const results: RunResult[] = p.runs.map((r) =>
      r.summary !== undefined ? { label: r.label, summary: r.summary } : { label: r.label, error: r.end }
    );
    return { parameters: p.values, aggregate: aggregateRuns(results, level) };
  });
  const type = spec.probes.kind === "boundary" || spec.probes.kind === "bayesian"
    ? "adaptive_search"
    : spec.probes.kind === "shapes"
    ? "scenarios"
    : "grid";
  const dir = join(base, "sweep_aggregate");
  await Deno.mkdir(dir, { recursive: true });
  await writeFileAtomic(
    join(dir, "profile_export_aiperf_sweep.json"),
    JSON.stringify(sweepJsonObject(params, type, points), null, 2),
  );
  await writeFileAtomic(join(dir, "profile_export_aiperf_sweep.csv"), renderSweepCsv(params, points));
  return [
    { role: "sweep_json", label: "Sweep JSON", path: "sweep_aggregate/profile_export_aiperf_sweep.json" },
    { role: "sweep_csv", label: "Sweep CSV", path: "sweep_aggregate/profile_export_aiperf_sweep.csv" },
  ];
}

/** report.html: one point per probe (its last completed run), by load, with the answer and the SLO lines. */
async function writeReport(
  base: string,
  spec: SearchSpec,
  probes: readonly SearchProbe[],
  sentence: string,
): Promise<ManifestFile> {
  const points: SweepReportPoint[] = [];
  const order = [...probes].sort((a, b) =>
    (concurrencyOf(a) ?? 0) - (concurrencyOf(b) ?? 0) || (a.values.isl ?? 0) - (b.values.isl ?? 0) ||
    (a.values.osl ?? 0) - (b.values.osl ?? 0)
  );
  for (const probe of order) {
    const last = probe.runs.findLast((r) => r.end === "completed" || r.end === "thresholds_failed");
    const json = last === undefined ? undefined : (await findRunPaths([last.dir]).catch(() => []))[0];
    const run = json === undefined ? undefined : await readRunExport(json).catch(() => undefined);
    const verdict = spec.filters.length === 0 ? "" : probe.judgement.feasible ? " ✓" : " ✗";
    const v = probe.values;
    const name = v.isl !== undefined && v.osl !== undefined
      ? `${v.isl}/${v.osl} at ${v.concurrency}`
      : describeValues(v);
    points.push({ label: `${name}${verdict}`, run, failure: run === undefined ? "failed" : undefined });
  }
  const slos = spec.filters.map((f) => ({
    tag: f.metric_tag,
    stat: f.stat,
    threshold: f.threshold,
    label: describeSla(f),
  }));
  const title = `infermeter search — ${spec.recipe}, ${probes.length} probes`;
  await writeFileAtomic(join(base, "report.html"), await renderSweepReport(points, { title, answer: sentence, slos }));
  return { role: "report_html", label: "HTML Report", path: "report.html" };
}
