/**
 * The answer of a search: one sentence for the console and report.html, and the same facts as JSON
 * (`search_answer.json`), e.g. "highest concurrency within SLO: 96 (p95 TTFT 471 ms ± 12, 5,810 tok/s); 128 fails
 * TTFT". The figure quoted at the answer is its binding filter (the one nearest its threshold) with the half-width
 * of its confidence interval, and the output token throughput.
 */
import { VERSION } from "../../base/version.ts";
import type { SearchSpec } from "../../config/search_recipes.ts";
import { slaMetricName } from "../../config/sla_filter.ts";
import { formatGrouped } from "../../export/number_format.ts";
import { headlineLabel } from "../../metrics/result_view.ts";
import { describeObserved, digitsFor, type FilterJudgement } from "./probe_verdict.ts";
import type { ParetoCell } from "./search_artifacts.ts";
import { concurrencyOf, type SearchProbe } from "./search_probe.ts";
import { bestProbe } from "./bayes_artifacts.ts";
import { describeValues } from "./probe_values.ts";
import { METRIC_REGISTRY } from "../../metrics/metric_registry.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface SearchAnswer {
  readonly sentence: string;
  readonly json: Json;
}

/** The filter nearest to breaking (largest margin) among the measured ones. */
function binding(p: SearchProbe): FilterJudgement | undefined {
  return p.judgement.filters.filter((j) => j.margin !== undefined)
    .reduce<FilterJudgement | undefined>((a, j) => (a === undefined || j.margin! > a.margin! ? j : a), undefined);
}

function tokS(p: SearchProbe): string | undefined {
  const t = p.judgement.throughput;
  return t === undefined ? undefined : `${formatGrouped(t, t >= 100 ? 0 : 1)} tok/s`;
}

/** `TTFT and error rate` — what a failing probe failed; `no run completed` when nothing was measured. */
function failedNames(p: SearchProbe): string {
  if (p.judgement.runs === 0) return "(no run completed)";
  const names = [...new Set(p.judgement.filters.filter((j) => !j.meets).map((j) => slaMetricName(j.filter)))];
  return names.join(" and ");
}

function filterJson(j: FilterJudgement): Json {
  return {
    metric_tag: j.filter.metric_tag,
    stat: j.filter.stat,
    op: j.filter.op,
    threshold: j.filter.threshold,
    observed: j.observed ?? null,
    ci_low: j.interval?.low ?? null,
    ci_high: j.interval?.high ?? null,
    meets: j.meets,
    within_noise: j.withinNoise,
  };
}

function probeJson(p: SearchProbe | undefined): Json {
  if (p === undefined) return null;
  return {
    ...p.values,
    label: p.label,
    feasible: p.judgement.feasible,
    within_noise: p.judgement.withinNoise,
    runs: p.judgement.runs,
    output_token_throughput: p.judgement.throughput ?? null,
    objective: p.judgement.objective ?? null,
    filters: p.judgement.filters.map(filterJson),
  };
}

function envelope(spec: SearchSpec, sentence: string, extra: Record<string, Json>, probes: readonly SearchProbe[]) {
  return {
    producer: "infermeter",
    version: VERSION,
    schema_version: 1,
    recipe: spec.recipe,
    style: spec.style,
    answer: sentence,
    ...extra,
    probes: probes.map((p) => ({
      ...p.values,
      label: p.label,
      feasible: p.judgement.feasible,
      within_noise: p.judgement.withinNoise,
      runs: p.judgement.runs,
      repeats: p.repeats,
    })),
  };
}

/** `(p95 TTFT 471 ms ± 12, 5,810 tok/s)`, with a note when the verdict stayed within noise. */
function figures(p: SearchProbe, withThroughput: boolean): string {
  const b = binding(p);
  const parts = [b === undefined ? undefined : describeObserved(b), withThroughput ? tokS(p) : undefined]
    .filter((x): x is string => x !== undefined);
  if (p.judgement.withinNoise) parts.push(`within noise after ${p.judgement.runs} runs`);
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`;
}

/**
 * The answer of an SLA search: `highest` is the highest feasible probe, `failing` the lowest infeasible one above it
 * (either may be missing); `top` is the top of the searched range.
 */
export function boundaryAnswer(
  spec: SearchSpec,
  probes: readonly SearchProbe[],
  highest: SearchProbe | undefined,
  failing: SearchProbe | undefined,
  reason: string | undefined,
  range: { readonly lo: number; readonly hi: number },
): SearchAnswer {
  const fails = failing === undefined ? "" : `; ${concurrencyOf(failing)} fails ${failedNames(failing)}`;
  let sentence: string;
  let best: SearchProbe | undefined = highest;
  if (highest === undefined) {
    const first = failing ?? probes[0];
    sentence = first === undefined
      ? "no probe completed; nothing is known about the SLO"
      : `no concurrency within SLO from ${range.lo}: ${concurrencyOf(first)} fails ${failedNames(first)}` +
        figures(first, false);
  } else if (spec.answer === "objective") {
    // The feasible probe with the best objective (AIPerf's best trial); for a server whose throughput rises with
    // load up to its knee, the highest feasible one.
    best = probes.filter((p) => p.judgement.feasible && p.judgement.objective !== undefined)
      .reduce<SearchProbe | undefined>(
        (a, p) => (a === undefined || p.judgement.objective! > a.judgement.objective! ? p : a),
        undefined,
      ) ?? highest;
    const goodput = spec.objective.metric === "goodput";
    const value = best.judgement.objective;
    const what = goodput ? "goodput" : "output token throughput";
    const shown = value === undefined
      ? "unmeasured"
      : goodput
      ? `${formatGrouped(value, digitsFor(value))} req/s`
      : `${formatGrouped(value, value >= 100 ? 0 : 1)} tok/s`;
    sentence = `highest ${what} within SLO: ${shown} at concurrency ${concurrencyOf(best)}${
      figures(best, false)
    }${fails}`;
  } else {
    sentence = `highest concurrency within SLO: ${concurrencyOf(highest)}${figures(highest, true)}${fails}`;
  }
  if (highest !== undefined && failing === undefined && concurrencyOf(highest) >= range.hi) {
    sentence += `, the top of the searched range (raise --concurrency-max to look further)`;
  }
  return {
    sentence,
    json: envelope(spec, sentence, {
      highest_within_slo: probeJson(best),
      first_failing: probeJson(failing),
      convergence_reason: reason ?? null,
    }, probes),
  };
}

/** The answer of a concurrency ramp. */
export function kneeAnswer(
  spec: SearchSpec,
  probes: readonly SearchProbe[],
  baseline: readonly [number, number] | undefined,
  knee: readonly [number, number] | undefined,
): SearchAnswer {
  const d = spec.degradation!;
  const name = `${d.stat} ${headlineLabel(d.metricTag)}`;
  const ms = (v: number) => `${formatGrouped(v, digitsFor(v))} ms`;
  const factor = formatGrouped(1 + d.threshold, 2).replace(/0$/, "");
  const top = probes.length === 0 ? undefined : Math.max(...probes.map(concurrencyOf));
  const sentence = baseline === undefined
    ? "no probe completed; no knee can be found"
    : knee === undefined
    ? `no ${headlineLabel(d.metricTag)} knee up to concurrency ${top}: ${name} stays within ${factor} × ` +
      `${ms(baseline[1])} (its value at concurrency ${baseline[0]})`
    : `${headlineLabel(d.metricTag)} knee at concurrency ${knee[0]}: ${name} ${ms(knee[1])} passes ${factor} × ` +
      `${ms(baseline[1])} (its value at concurrency ${baseline[0]})`;
  return {
    sentence,
    json: envelope(spec, sentence, {
      knee: knee === undefined ? null : { concurrency: knee[0], value: knee[1] },
      baseline: baseline === undefined ? null : { concurrency: baseline[0], value: baseline[1] },
    }, probes),
  };
}

/** The answer of a Pareto sweep: the frontier, best throughput first. */
export function paretoAnswer(
  spec: SearchSpec,
  probes: readonly SearchProbe[],
  cells: readonly ParetoCell[],
): SearchAnswer {
  const front = cells.filter((c) => c.pareto_optimal).sort((a, b) => b.y! - a.y!);
  const shown = front.slice(0, 4).map((c) =>
    `${c.isl}/${c.osl} at ${c.concurrency} (${formatGrouped(c.x!, digitsFor(c.x!))} ms, ${
      formatGrouped(c.y!, 0)
    } tok/s)`
  );
  const more = front.length > shown.length ? `, and ${front.length - shown.length} more` : "";
  const sentence = front.length === 0
    ? "no point measured both p95 TTFT and output throughput; no Pareto frontier"
    : `Pareto frontier of p95 TTFT against output tok/s: ${front.length} of ${cells.length} points: ` +
      shown.join("; ") + more;
  return { sentence, json: envelope(spec, sentence, { frontier: front.map((c) => ({ ...c })) }, probes) };
}

/**
 * The answer of a `--search-space` search: the best feasible probe's objective and values, e.g. "best avg
 * output_token_throughput within SLO: 1,234 at concurrency 24, rate 3.5 (search_iter_0007 of 12 probes; stopped:
 * improvement_patience)".
 */
export function bestAnswer(spec: SearchSpec, probes: readonly SearchProbe[], reason: string | undefined): SearchAnswer {
  const best = bestProbe(spec, probes);
  const what = `${spec.objective.stat} ${spec.objective.metric}`;
  const stopped = reason === undefined ? "" : `; stopped: ${reason}`;
  const within = spec.filters.length > 0 ? " within SLO" : "";
  let sentence: string;
  if (best === undefined) sentence = `no probe measured ${what} in ${probes.length} probes${stopped}`;
  else {
    const value = best.judgement.objective!;
    const shown = formatGrouped(value, digitsFor(value));
    const unit = METRIC_REGISTRY.get(spec.objective.metric)?.unit;
    const withUnit = unit === undefined || unit === "count" || unit === "ratio" ? shown : `${shown} ${unit}`;
    sentence = best.judgement.feasible
      ? `best ${what}${within}: ${withUnit} at ${describeValues(best.values)} (${best.label} of ${probes.length} ` +
        `probes${stopped})`
      : `no probe within SLO in ${probes.length} probes (the best: ${withUnit} at ${describeValues(best.values)}, ` +
        `fails ${failedNames(best)}${stopped})`;
  }
  return {
    sentence,
    json: envelope(spec, sentence, { best: probeJson(best), convergence_reason: reason ?? null }, probes),
  };
}
