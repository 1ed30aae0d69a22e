/**
 * The verdicts, files and answer of a multi-tier search (`--search-sla-tier`), in AIPerf 0.13's shapes:
 * `search_history.json` gains `config.tiers` (each tier's label and filters), `tier_results` (per tier: its
 * boundary concurrency, status, bracket, binding filter, probe count, the metrics measured at its boundary, its
 * filters with the global ones) and `tier_metadata`; its `boundary_summary` is the most lenient tier's.
 */
import type { SearchSpec } from "../../config/search_recipes.ts";
import type { SlaFilter } from "../../config/sla_filter.ts";
import { slaMetricName } from "../../config/sla_filter.ts";
import type { ProbeJudgement } from "./probe_verdict.ts";
import { describeObserved } from "./probe_verdict.ts";
import { MultiTierPlanner, type TierBracket } from "./multi_tier_planner.ts";
import { CONCURRENCY_PATH, searchHistoryJson } from "./search_artifacts.ts";
import type { SearchAnswer } from "./search_answer.ts";
import { concurrencyOf, type SearchProbe } from "./search_probe.ts";
import { VERSION } from "../../base/version.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function sameFilter(a: SlaFilter, b: SlaFilter): boolean {
  return a.metric_tag === b.metric_tag && a.stat === b.stat && a.op === b.op && a.threshold === b.threshold;
}

/** The filters a tier is judged on: its own, then the search's global ones. */
function tierFilters(spec: SearchSpec, tier: number): SlaFilter[] {
  return [...spec.tiers![tier].filters, ...spec.filters];
}

/** Each tier's verdict on a probe: every one of its filters (and the global ones) met. */
export function tierVerdicts(spec: SearchSpec, j: ProbeJudgement): boolean[] {
  return (spec.tiers ?? []).map((_, i) =>
    j.runs > 0 && tierFilters(spec, i).every((f) => j.filters.find((x) => sameFilter(x.filter, f))?.meets === true)
  );
}

function filterJson(f: SlaFilter): Json {
  return { metric_tag: f.metric_tag, stat: f.stat, op: f.op, threshold: f.threshold };
}

function bindingOf(spec: SearchSpec, tier: number, probes: readonly SearchProbe[], b: TierBracket): Json {
  const probe = probes.find((p) => p.index === b.infeasibleProbe);
  if (probe === undefined) return null;
  for (const f of tierFilters(spec, tier)) {
    const j = probe.judgement.filters.find((x) => sameFilter(x.filter, f));
    if (j !== undefined && !j.meets) {
      return { ...(filterJson(f) as Record<string, Json>), observed: j.observed ?? null };
    }
  }
  return null;
}

function boundaryMetrics(probes: readonly SearchProbe[], value: number | undefined): Json {
  if (value === undefined) return null;
  const probe = probes.findLast((p) => concurrencyOf(p) === value);
  const summary = probe?.runs.find((r) => r.summary !== undefined)?.summary;
  if (summary === undefined) return null;
  const out: Record<string, Json> = {};
  for (const m of summary.metrics) {
    const stats: Record<string, Json> = {};
    if (m.stats !== undefined) {
      for (const [k, v] of Object.entries(m.stats)) if (typeof v === "number" && Number.isFinite(v)) stats[k] = v;
    } else if (m.value !== undefined && Number.isFinite(m.value)) stats.avg = m.value;
    if (Object.keys(stats).length > 0) out[m.tag] = stats;
  }
  return Object.keys(out).length === 0 ? null : out;
}

/** `search_history.json` of a multi-tier search. */
export function tieredHistoryJson(
  spec: SearchSpec,
  probes: readonly SearchProbe[],
  planner: MultiTierPlanner,
  reason: string | undefined,
): Json {
  const lenient = planner.brackets.reduce<TierBracket | undefined>(
    (a, b) => (b.feasibleMax !== undefined && (a?.feasibleMax === undefined || b.feasibleMax > a.feasibleMax) ? b : a),
    undefined,
  ) ?? planner.brackets[planner.brackets.length - 1];
  const base = searchHistoryJson(
    { ...spec, probes: { kind: "boundary", style: "smooth_isotonic", lo: 1, hi: 1, maxIterations: 0 } },
    probes,
    { feasibleMax: lenient.feasibleMax, infeasibleMin: lenient.infeasibleMin },
    reason,
  ) as Record<string, Json>;
  const config = base.config as Record<string, Json>;
  const p = spec.probes as { lo: number; hi: number; maxIterations: number };
  config.max_iterations = p.maxIterations;
  config.search_space = [{ path: CONCURRENCY_PATH, lo: p.lo, hi: p.hi, kind: "int" }];
  config.tiers = spec.tiers!.map((t) => ({ label: t.label, filters: t.filters.map(filterJson) }));
  return {
    ...base,
    tier_results: planner.brackets.map((b, i) => ({
      label: b.label,
      boundary_concurrency: b.feasibleMax ?? null,
      convergence_status: MultiTierPlanner.status(b),
      convergence_reason: b.reason ?? null,
      binding_constraint: bindingOf(spec, i, probes, b),
      bracket_lower: b.feasibleMax ?? null,
      bracket_upper: b.infeasibleMin !== undefined && (b.feasibleMax === undefined || b.infeasibleMin > b.feasibleMax)
        ? b.infeasibleMin
        : null,
      confidence_interval: null,
      probe_count: b.probeCount,
      boundary_metrics: boundaryMetrics(probes, b.feasibleMax),
      filters: tierFilters(spec, i).map(filterJson),
    })),
    tier_metadata: {
      actual_probe_count: probes.length,
      tier_evaluation_count: planner.brackets.reduce((a, b) => a + b.probeCount, 0),
      ordering_detected: false,
      ordering_pairs: null,
    },
  };
}

/** "highest concurrency within each SLO tier: fast 3 (4 fails TTFT), relaxed 8 (p95 TTFT 91 ms; 9 fails TTFT)". */
export function tieredAnswer(
  spec: SearchSpec,
  probes: readonly SearchProbe[],
  planner: MultiTierPlanner,
  reason: string | undefined,
): SearchAnswer {
  const parts = planner.brackets.map((b, i) => {
    const failing = probes.find((p) => p.index === b.infeasibleProbe);
    const failed = failing === undefined ? [] : [
      ...new Set(
        tierFilters(spec, i).flatMap((f) => {
          const j = failing.judgement.filters.find((x) => sameFilter(x.filter, f));
          return j !== undefined && !j.meets ? [slaMetricName(f)] : [];
        }),
      ),
    ];
    const fails = b.infeasibleMin === undefined ? "" : `; ${b.infeasibleMin} fails ${failed.join(" and ")}`;
    if (b.feasibleMax === undefined) {
      return `${b.label} none from ${(spec.probes as { lo: number }).lo}${fails}`;
    }
    const at = probes.findLast((p) => concurrencyOf(p) === b.feasibleMax);
    const figures = at === undefined ? "" : tierFilters(spec, i).flatMap((f) => {
      const j = at.judgement.filters.find((x) => sameFilter(x.filter, f));
      return j === undefined ? [] : [describeObserved(j)];
    }).join(", ");
    return `${b.label} ${b.feasibleMax}${figures === "" ? "" : ` (${figures}${fails})`}`;
  });
  const sentence = `highest concurrency within each SLO tier: ${parts.join("; ")}`;
  return {
    sentence,
    json: {
      producer: "infermeter",
      version: VERSION,
      schema_version: 1,
      recipe: spec.recipe,
      style: spec.style,
      answer: sentence,
      tiers: planner.brackets.map((b) => ({
        label: b.label,
        highest_within_slo: b.feasibleMax ?? null,
        first_failing: b.infeasibleMin ?? null,
        status: MultiTierPlanner.status(b),
      })),
      convergence_reason: reason ?? null,
      probes: probes.map((p) => ({
        ...p.values,
        label: p.label,
        feasible: p.judgement.feasible,
        runs: p.judgement.runs,
      })),
    },
  };
}
