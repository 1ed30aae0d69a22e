/**
 * The files AIPerf 0.13 writes for a search recipe, in its shapes (field names, nesting, nulls), from the probes of
 * an infermeter search:
 * - `search_history.json` (boundary styles, next to `sweep_aggregate/`): the configuration, one iteration per probe,
 *   `best_trials` (the feasible probe with the best objective, or the best of all when none is feasible) and
 *   `boundary_summary` (the highest feasible and lowest infeasible concurrency, with the first breached filter);
 * - `sweep_aggregate/sla_breach.json` (`--search-style grid`): max passing / first failing concurrency, each point's
 *   breaches, whether feasibility was monotonic;
 * - `sweep_aggregate/degradation_knee.json` (`concurrency-ramp`): the baseline, the first point past
 *   `baseline × (1 + threshold)`, all points;
 * - `sweep_aggregate/pareto_sweep.json` (`pareto-sweep`): every (ISL, OSL, concurrency) cell with p95 TTFT (x, lower
 *   is better) and output token throughput (y, higher is better), marked Pareto-optimal when no other cell is at
 *   least as good on both and better on one.
 */
import type { SearchSpec } from "../../config/search_recipes.ts";
import type { SlaFilter } from "../../config/sla_filter.ts";
import type { RunSummary } from "../../metrics/run_summary.ts";
import type { FilterJudgement } from "./probe_verdict.ts";
import { concurrencyOf, type SearchProbe } from "./search_probe.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** AIPerf's path of the swept dimension. */
export const CONCURRENCY_PATH = "phases.profiling.concurrency";

function filterJson(f: SlaFilter): Json {
  return { metric_tag: f.metric_tag, stat: f.stat, op: f.op, threshold: f.threshold };
}

function breachJson(j: FilterJudgement): Json {
  return { ...(filterJson(j.filter) as Record<string, Json>), observed: j.observed ?? null };
}

function firstBreach(p: SearchProbe): Json {
  const j = p.judgement.filters.find((f) => !f.meets);
  return j === undefined ? null : breachJson(j);
}

/** `search_history.json`. */
export function searchHistoryJson(
  spec: SearchSpec,
  probes: readonly SearchProbe[],
  bracket: { readonly feasibleMax?: number; readonly infeasibleMin?: number },
  reason: string | undefined,
): Json {
  const b = spec.probes;
  const lo = b.kind === "boundary" ? b.lo : 0;
  const hi = b.kind === "boundary" ? b.hi : 0;
  const at = (value: number | undefined, feasible: boolean) =>
    value === undefined
      ? undefined
      : probes.findLast((p) => concurrencyOf(p) === value && p.judgement.feasible === feasible);
  const fm = at(bracket.feasibleMax, true);
  const im = at(bracket.infeasibleMin, false);
  const scored = probes.filter((p) => p.judgement.objective !== undefined);
  const feasible = scored.filter((p) => p.judgement.feasible);
  const pool = feasible.length > 0 ? feasible : scored;
  const best = pool.reduce<SearchProbe | undefined>(
    (a, p) => (a === undefined || p.judgement.objective! > a.judgement.objective! ? p : a),
    undefined,
  );
  return {
    config: {
      planner: b.kind === "boundary" && b.style === "monotonic" ? "monotonic_sla" : "smooth_isotonic",
      objectives: [{
        metric: spec.objective.metric,
        stat: spec.objective.stat,
        direction: "MAXIMIZE",
        threshold: null,
      }],
      outcome_constraints: [],
      max_iterations: b.kind === "boundary" ? b.maxIterations : probes.length,
      n_initial_points: 1,
      random_seed: null,
      improvement_patience: 10,
      plateau_window: 8,
      plateau_threshold: 0.01,
      search_space: [{ path: CONCURRENCY_PATH, lo, hi, kind: "int" }],
      sla_filters: spec.filters.map(filterJson),
    },
    iterations: probes.map((p) => ({
      iteration_idx: p.index,
      variation_values: { [CONCURRENCY_PATH]: concurrencyOf(p) },
      objective_values: p.judgement.objective === undefined ? null : [p.judgement.objective],
      feasible: p.judgement.feasible,
      non_monotonic_warning: p.nonMonotonic,
    })),
    best_trials: best === undefined ? null : [{
      iteration_idx: best.index,
      objective_values: [best.judgement.objective!],
      variation_values: { [CONCURRENCY_PATH]: concurrencyOf(best) },
      feasible: best.judgement.feasible,
      feasible_count: feasible.length,
      pareto_rank: 0,
    }],
    boundary_summary: probes.length === 0 ? null : {
      swept_dim_path: CONCURRENCY_PATH,
      feasible_max: fm === undefined ? null : {
        value: bracket.feasibleMax!,
        iteration_idx: fm.index,
        objective_value: fm.judgement.objective ?? null,
      },
      infeasible_min: im === undefined ? null : {
        value: bracket.infeasibleMin!,
        iteration_idx: im.index,
        first_breach: firstBreach(im),
      },
    },
    recipe: spec.recipe,
    convergence_reason: reason ?? null,
  };
}

/** `sla_breach.json` of a grid: points in ascending concurrency. */
export function slaBreachJson(spec: SearchSpec, probes: readonly SearchProbe[]): Json {
  const points = [...probes].sort((a, b) => concurrencyOf(a) - concurrencyOf(b));
  const feasible = points.filter((p) => p.judgement.feasible);
  const failing = points.filter((p) => !p.judgement.feasible);
  let seenFail = false;
  let monotonic = true;
  for (const p of points) {
    if (!p.judgement.feasible) seenFail = true;
    else if (seenFail) monotonic = false;
  }
  return {
    swept_param: CONCURRENCY_PATH,
    max_passing_concurrency: feasible.length === 0 ? null : concurrencyOf(feasible[feasible.length - 1]),
    first_failing_concurrency: failing.length === 0 ? null : concurrencyOf(failing[0]),
    first_failing_breach: failing.length === 0 ? null : firstBreach(failing[0]),
    all_points: points.map((p) => ({
      concurrency: concurrencyOf(p),
      feasible: p.judgement.feasible,
      breaches: p.judgement.filters.filter((j) => !j.meets).map(breachJson),
    })),
    monotonicity_check: monotonic,
    filters: spec.filters.map(filterJson),
  };
}

/** A statistic of a metric over a probe's completed runs (their mean), or undefined. */
export function runsStat(summaries: readonly RunSummary[], tag: string, stat: string): number | undefined {
  const xs = summaries.flatMap((s) => {
    const m = s.metrics.find((r) => r.tag === tag);
    const v = m?.stats !== undefined ? (m.stats as unknown as Record<string, number>)[stat] : m?.value;
    return typeof v === "number" && Number.isFinite(v) ? [v] : [];
  });
  return xs.length === 0 ? undefined : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** The degradation knee of a ramp: `points` are (concurrency, statistic) in ascending concurrency. */
export function degradationKnee(
  points: readonly (readonly [number, number])[],
  threshold: number,
): { baseline?: readonly [number, number]; knee?: readonly [number, number] } {
  if (points.length === 0) return {};
  const baseline = points[0];
  const cutoff = baseline[1] * (1 + threshold);
  return { baseline, knee: points.slice(1).find(([, y]) => y > cutoff) };
}

/** `degradation_knee.json`. */
export function degradationKneeJson(
  spec: SearchSpec,
  points: readonly (readonly [number, number])[],
): Json {
  const d = spec.degradation!;
  const { baseline, knee } = degradationKnee(points, d.threshold);
  return {
    baseline_concurrency: baseline?.[0] ?? null,
    [`baseline_${d.stat}`]: baseline?.[1] ?? null,
    knee_concurrency: knee?.[0] ?? null,
    [`knee_${d.stat}`]: knee?.[1] ?? null,
    threshold_pct: d.threshold,
    swept_metric: d.metricTag,
    stat: d.stat,
    swept_param: CONCURRENCY_PATH,
    all_points: points.map(([c, y]) => ({ concurrency: c, [d.stat]: y })),
  };
}

export interface ParetoCell {
  readonly isl: number;
  readonly osl: number;
  readonly concurrency: number;
  readonly x?: number;
  readonly y?: number;
  readonly pareto_optimal: boolean;
}

/** Marks each cell Pareto-optimal (x lower and y higher are better); cells without both values never are. */
export function markPareto(cells: readonly Omit<ParetoCell, "pareto_optimal">[]): ParetoCell[] {
  const finite = (c: Omit<ParetoCell, "pareto_optimal">) => Number.isFinite(c.x) && Number.isFinite(c.y);
  return cells.map((c) => ({
    ...c,
    pareto_optimal: finite(c) &&
      !cells.some((o) => o !== c && finite(o) && o.x! <= c.x! && o.y! >= c.y! && (o.x! < c.x! || o.y! > c.y!)),
  }));
}

/** `pareto_sweep.json`. */
export function paretoSweepJson(cells: readonly ParetoCell[]): Json {
  return {
    x_metric: "time_to_first_token",
    x_stat: "p95",
    y_metric: "output_token_throughput",
    y_stat: "avg",
    cells: cells.map((c) => ({
      isl: c.isl,
      osl: c.osl,
      concurrency: c.concurrency,
      x: c.x ?? null,
      y: c.y ?? null,
      pareto_optimal: c.pareto_optimal,
    })),
  };
}
