/**
 * The Bayesian search's measurements and files, in AIPerf 0.13's shapes:
 * - a probe's objective: the `--search-stat` of `--search-metric`, the mean over the probe's runs of each run's own
 *   statistic (`--search-percentile-pooling mean`), or with `pooled` the statistic of all their requests together
 *   (the per-request records; a run without them falls back to the mean, said once);
 * - `search_history.json`: the configuration (planner, objectives with AIPerf's MAXIMIZE/MINIMIZE, the search space,
 *   the seed, the SLA filters), one iteration per probe with its objective and feasibility, `best_trials` (the best
 *   feasible probe, or the best of all when none is feasible: AIPerf's feasibility-first ranking), the boundary of a
 *   one-dimensional search (highest feasible value, lowest infeasible one above it), and why the search stopped.
 */
import type { SearchSpec } from "../../config/search_recipes.ts";
import type { SlaFilter } from "../../config/sla_filter.ts";
import { sortedStat } from "../../metrics/bootstrap_ci.ts";
import { readMetricValues } from "../../report/record_values.ts";
import type { Logger } from "../../ui/logger.ts";
import { runsStat } from "./search_artifacts.ts";
import { type SearchProbe, summariesOf } from "./search_probe.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The probe's objective, or undefined when no run measured it. */
export async function probeObjective(
  probe: SearchProbe,
  objective: { readonly metric: string; readonly stat: string },
  pooled: boolean,
  logger?: Logger,
): Promise<number | undefined> {
  const summaries = summariesOf(probe);
  if (summaries.length === 0) return undefined;
  if (pooled && objective.stat !== "avg" && summaries.length > 1) {
    const done = probe.runs.filter((r) => r.summary !== undefined);
    const lists = await Promise.all(
      done.map((r) => readMetricValues(r.dir, [objective.metric]).catch(() => undefined)),
    );
    if (lists.every((l) => l !== undefined)) {
      const pool = lists.flatMap((l) => l!.get(objective.metric) ?? []);
      if (pool.length > 0) return sortedStat(Float64Array.from(pool).sort(), objective.stat);
    }
    logger?.warning(
      `--search-percentile-pooling pooled: ${probe.label} has runs without per-request records; its objective is ` +
        "the mean of the runs' percentiles (use --export-level records).",
    );
  }
  return runsStat(summaries, objective.metric, objective.stat);
}

function better(spec: SearchSpec, a: number, b: number): boolean {
  return spec.objective.direction === "minimize" ? a < b : a > b;
}

/** The best probe, feasible ones first (AIPerf's lexicographic feasibility-first ranking). */
export function bestProbe(spec: SearchSpec, probes: readonly SearchProbe[]): SearchProbe | undefined {
  const scored = probes.filter((p) => p.judgement.objective !== undefined);
  const feasible = scored.filter((p) => p.judgement.feasible);
  return (feasible.length > 0 ? feasible : scored).reduce<SearchProbe | undefined>(
    (a, p) => (a === undefined || better(spec, p.judgement.objective!, a.judgement.objective!) ? p : a),
    undefined,
  );
}

function filterJson(f: SlaFilter): Json {
  return { metric_tag: f.metric_tag, stat: f.stat, op: f.op, threshold: f.threshold };
}

/** `search_history.json` of a Bayesian search. */
export function bayesHistoryJson(spec: SearchSpec, probes: readonly SearchProbe[], reason: string | undefined): Json {
  const p = spec.probes;
  if (p.kind !== "bayesian") throw new TypeError("bayesHistoryJson needs a Bayesian search");
  const pathOf = new Map(p.dims.map((d) => [d.name, d.path]));
  const variation = (probe: SearchProbe): Json =>
    Object.fromEntries(Object.entries(probe.values).map(([name, v]) => [pathOf.get(name) ?? name, v]));
  const best = bestProbe(spec, probes);
  const feasibleCount = probes.filter((x) => x.judgement.feasible).length;
  let boundary: Json = null;
  if (p.dims.length === 1 && probes.length > 0) {
    const name = p.dims[0].name;
    const feasible = probes.filter((x) => x.judgement.feasible);
    const fm = feasible.reduce<SearchProbe | undefined>(
      (a, x) => (a === undefined || x.values[name] > a.values[name] ? x : a),
      undefined,
    );
    const im = probes.filter((x) =>
      !x.judgement.feasible && x.judgement.runs > 0 && (fm === undefined || x.values[name] > fm.values[name])
    )
      .reduce<SearchProbe | undefined>(
        (a, x) => (a === undefined || x.values[name] < a.values[name] ? x : a),
        undefined,
      );
    const breach = im?.judgement.filters.find((j) => !j.meets);
    boundary = {
      swept_dim_path: p.dims[0].path,
      feasible_max: fm === undefined
        ? null
        : { value: fm.values[name], iteration_idx: fm.index, objective_value: fm.judgement.objective ?? null },
      infeasible_min: im === undefined ? null : {
        value: im.values[name],
        iteration_idx: im.index,
        first_breach: breach === undefined
          ? null
          : { ...(filterJson(breach.filter) as Record<string, Json>), observed: breach.observed ?? null },
      },
    };
  }
  return {
    config: {
      planner: p.planner,
      objectives: [{
        metric: spec.objective.metric,
        stat: spec.objective.stat,
        direction: spec.objective.direction === "minimize" ? "MINIMIZE" : "MAXIMIZE",
        threshold: null,
      }],
      outcome_constraints: [],
      max_iterations: p.maxIterations,
      n_initial_points: p.initialPoints,
      random_seed: p.seed,
      improvement_patience: 10,
      plateau_window: 8,
      plateau_threshold: 0.01,
      objective_pooling: p.pooled ? "pooled" : "mean",
      optuna_terminator: p.terminator ?? "none",
      search_space: p.dims.map((d) => ({ path: d.path, lo: d.lo, hi: d.hi, kind: d.kind, prior: "uniform" })),
      sla_filters: spec.filters.map(filterJson),
    },
    iterations: probes.map((x) => ({
      iteration_idx: x.index,
      variation_values: variation(x),
      objective_values: x.judgement.objective === undefined ? null : [x.judgement.objective],
      feasible: x.judgement.feasible,
      non_monotonic_warning: false,
    })),
    best_trials: best === undefined ? null : [{
      iteration_idx: best.index,
      objective_values: [best.judgement.objective!],
      variation_values: variation(best),
      feasible: best.judgement.feasible,
      feasible_count: feasibleCount,
      pareto_rank: 0,
    }],
    boundary_summary: boundary,
    recipe: spec.recipe === "search-space" ? null : spec.recipe,
    convergence_reason: reason ?? null,
  };
}
