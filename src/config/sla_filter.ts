/**
 * An SLA filter of a search (AIPerf's `SLAFilter`): `metric_tag:stat:op:threshold`, e.g.
 * `time_to_first_token:p95:lt:200`. A probe meets it when its `stat` of `metric_tag` compares to `threshold` by `op`
 * (in the metric's display unit: ms for latencies, percent for `request_error_rate`). A probe that did not measure
 * the metric does not meet it.
 */
import { METRIC_REGISTRY } from "../metrics/metric_registry.ts";
import { headlineLabel } from "../metrics/result_view.ts";

export type SlaOp = "lt" | "le" | "gt" | "ge";

/** The statistics a filter may name (AIPerf's list). */
export const SLA_STATS = ["avg", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"] as const;
export type SlaStat = (typeof SLA_STATS)[number];

/** Field names as AIPerf writes them in `search_history.json` and `sla_breach.json`. */
export interface SlaFilter {
  readonly metric_tag: string;
  readonly stat: SlaStat;
  readonly op: SlaOp;
  readonly threshold: number;
}

const OPS: Readonly<Record<SlaOp, { symbol: string; test: (a: number, b: number) => boolean }>> = {
  lt: { symbol: "<", test: (a, b) => a < b },
  le: { symbol: "≤", test: (a, b) => a <= b },
  gt: { symbol: ">", test: (a, b) => a > b },
  ge: { symbol: "≥", test: (a, b) => a >= b },
};

/**
 * Parses `--search-sla` text.
 * @throws {SyntaxError} with one sentence naming what is wrong and the expected form.
 */
export function parseSlaFilter(text: string): SlaFilter {
  const parts = text.trim().split(":");
  const form = "expected 'metric_tag:stat:op:threshold', e.g. 'time_to_first_token:p95:lt:200'";
  if (parts.length !== 4) throw new SyntaxError(`--search-sla '${text}': ${form}.`);
  const [tag, stat, op, thr] = parts.map((p) => p.trim());
  if (METRIC_REGISTRY.get(tag) === undefined) {
    throw new SyntaxError(`--search-sla '${text}': unknown metric tag '${tag}'; ${form}.`);
  }
  if (!(SLA_STATS as readonly string[]).includes(stat)) {
    throw new SyntaxError(`--search-sla '${text}': stat '${stat}' is not one of ${SLA_STATS.join(", ")}.`);
  }
  if (!Object.hasOwn(OPS, op)) {
    throw new SyntaxError(`--search-sla '${text}': op '${op}' is not one of lt, le, gt, ge.`);
  }
  const threshold = Number(thr);
  if (thr === "" || !Number.isFinite(threshold)) {
    throw new SyntaxError(`--search-sla '${text}': threshold '${thr}' is not a number.`);
  }
  return { metric_tag: tag, stat: stat as SlaStat, op: op as SlaOp, threshold };
}

/** Whether `observed` meets the filter; a missing or non-finite value does not. */
export function meetsSla(filter: SlaFilter, observed: number | undefined): boolean {
  return observed !== undefined && Number.isFinite(observed) && OPS[filter.op].test(observed, filter.threshold);
}

/**
 * How far `observed` is from breaking the filter, as a fraction of the threshold: negative inside the SLA, positive
 * past it (`p95 TTFT 150 ms` against `< 200` is −0.25). Comparable across filters of different units.
 */
export function slaMargin(filter: SlaFilter, observed: number): number {
  const scale = Math.abs(filter.threshold) > 0 ? Math.abs(filter.threshold) : 1;
  return filter.op === "lt" || filter.op === "le"
    ? (observed - filter.threshold) / scale
    : (filter.threshold - observed) / scale;
}

/** `TTFT`, `Latency`, `Error rate`: the metric's short name. */
export function slaMetricName(filter: SlaFilter): string {
  if (filter.metric_tag === "request_error_rate") return "error rate";
  if (filter.metric_tag === "good_request_fraction") return "good-request fraction";
  return headlineLabel(filter.metric_tag);
}

/** The metric's display unit (`ms`, `%`), or "" when it has none. */
export function slaUnit(filter: SlaFilter): string {
  const unit = METRIC_REGISTRY.get(filter.metric_tag)?.unit;
  return unit === undefined || unit === "ratio" || unit === "count" ? "" : unit;
}

/** `p95 TTFT`: the statistic and the metric's short name (`error rate` for an average). */
export function slaSubject(filter: SlaFilter): string {
  return filter.stat === "avg" ? slaMetricName(filter) : `${filter.stat} ${slaMetricName(filter)}`;
}

/** `471 ms`, `2.5%`: a value in the filter's unit. */
export function withSlaUnit(filter: SlaFilter, value: string): string {
  const unit = slaUnit(filter);
  return unit === "" ? value : unit === "%" ? `${value}%` : `${value} ${unit}`;
}

/** `p95 TTFT < 200 ms`. */
export function describeSla(filter: SlaFilter): string {
  return `${slaSubject(filter)} ${OPS[filter.op].symbol} ${withSlaUnit(filter, String(filter.threshold))}`;
}
