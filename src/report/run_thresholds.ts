/**
 * `profile --threshold`: pass/fail criteria on a run's own metrics, as k6's `thresholds` — each states what must
 * hold for the run to pass: `time_to_first_token.p99<500`, `ttft.p99 < 0.5s`, `request_error_rate<1%`,
 * `output_token_throughput>=1000/s`, `request_throughput>20`.
 *
 * `<metric>` is a tag or a short name (`ttft`, `itl`, `latency`, `rps`); `.<stat>` is `avg`, `min`, `max`, `std`,
 * `p1`…`p99` (or `value` = `avg`), `avg` when left out; `<op>` is `<`, `<=`, `>`, `>=`, `==` or `!=`. The limit may
 * carry a unit: `ms` or `s` for times (converted to the metric's ms), `%` for shares, `/s` for rates; a unit that does
 * not fit the metric is an input error. Evaluated on the result view at the end of the run (a failed one exits 5),
 * and, with `--threshold-abort`, on the live figures while it runs.
 */
import { METRIC_REGISTRY } from "../metrics/metric_registry.ts";
import type { ResultView, Verdict } from "../metrics/result_view.ts";
import { resolveMetricName } from "./metric_names.ts";

export type ThresholdOp = "<" | "<=" | ">" | ">=" | "==" | "!=";

export interface RunThreshold {
  /** As the user wrote it. */
  readonly text: string;
  readonly tag: string;
  readonly stat: string;
  readonly op: ThresholdOp;
  /** In the metric's own unit. */
  readonly limit: number;
  /** The metric's unit, for messages. */
  readonly unit: string;
}

export interface ThresholdResult {
  readonly threshold: RunThreshold;
  /** The run's value, or undefined when the run has none (the metric does not apply, nothing succeeded). */
  readonly observed?: number;
  /** Holds; a missing value fails. */
  readonly ok: boolean;
}

const GRAMMAR =
  /^\s*([A-Za-z_][\w%]*)(?:\.(avg|min|max|std|value|p\d{1,2}(?:\.\d+)?))?\s*(<=|>=|==|!=|<|>)\s*([+-]?(?:\d+(?:\.\d+)?|\.\d+)(?:e[+-]?\d+)?)\s*(ms|s|%|\/s)?\s*$/i;

/**
 * Parses one threshold.
 * @throws {SyntaxError} saying what form is expected, or which unit or metric does not fit.
 */
export function parseThreshold(text: string): RunThreshold {
  const m = GRAMMAR.exec(text);
  if (m === null) {
    throw new SyntaxError(
      `--threshold '${text}' is not <metric>[.<stat>]<op><limit>[unit]; e.g. 'time_to_first_token.p99<500', ` +
        "'ttft.p99<0.5s', 'request_error_rate<1%', 'output_token_throughput>=1000/s'.",
    );
  }
  const [, name, rawStat, op, digits, rawUnit] = m;
  const tag = resolveMetricName(name);
  const def = METRIC_REGISTRY.get(tag);
  if (def === undefined) {
    throw new SyntaxError(
      `--threshold '${text}': no metric '${name}'; give a metric tag or a short name such as ttft.`,
    );
  }
  const stat = rawStat === undefined || rawStat.toLowerCase() === "value" ? "avg" : rawStat.toLowerCase();
  if (def.kind !== "record" && stat !== "avg") {
    throw new SyntaxError(`--threshold '${text}': ${tag} has one value per run; write ${name}${op}${digits}.`);
  }
  const unit = rawUnit?.toLowerCase();
  let limit = Number(digits);
  const perSecond = def.unit.endsWith("/sec") || def.unit.endsWith("/sec/user") || def.unit === "sessions/hour";
  const fits = unit === undefined ||
    (unit === "ms" && def.unit === "ms") ||
    (unit === "s" && (def.unit === "ms" || def.unit === "sec")) ||
    (unit === "%" && def.unit === "%") ||
    (unit === "/s" && perSecond);
  if (!fits) {
    throw new SyntaxError(`--threshold '${text}': ${tag} is in ${def.unit}; '${rawUnit}' does not fit it.`);
  }
  if (unit === "s" && def.unit === "ms") limit *= 1000;
  return { text: text.trim(), tag, stat, op: op as ThresholdOp, limit, unit: def.unit };
}

function holds(x: number, op: ThresholdOp, limit: number): boolean {
  switch (op) {
    case "<":
      return x < limit;
    case "<=":
      return x <= limit;
    case ">":
      return x > limit;
    case ">=":
      return x >= limit;
    case "==":
      return x === limit;
    case "!=":
      return x !== limit;
  }
}

/** Judges one threshold on an observed value (undefined: the run has none, which fails). */
export function judgeThreshold(threshold: RunThreshold, observed: number | undefined): ThresholdResult {
  const ok = observed !== undefined && Number.isFinite(observed) && holds(observed, threshold.op, threshold.limit);
  return { threshold, ...(observed === undefined ? {} : { observed }), ok };
}

/** Judges every threshold on a finished run's view. */
export function evaluateThresholds(thresholds: readonly RunThreshold[], view: ResultView): ThresholdResult[] {
  const rows = new Map(view.rows.map((r) => [r.tag, r]));
  return thresholds.map((t) => judgeThreshold(t, rows.get(t.tag)?.stats[t.stat]));
}

/** A threshold's verdict line: `ttft.p99<500: p99 471.20 ms`. */
export function thresholdVerdict(r: ThresholdResult): Verdict {
  const observed = r.observed === undefined
    ? "no value in this run"
    : `${r.threshold.stat === "avg" ? "" : `${r.threshold.stat} `}${r.observed.toFixed(2)} ${r.threshold.unit}`;
  return { label: r.threshold.text, ok: r.ok, detail: observed };
}

/** The JSON export's `thresholds` block. */
export function thresholdsJson(results: readonly ThresholdResult[]) {
  return results.map((r) => ({
    threshold: r.threshold.text,
    metric: r.threshold.tag,
    stat: r.threshold.stat,
    op: r.threshold.op,
    limit: r.threshold.limit,
    unit: r.threshold.unit,
    observed: r.observed ?? null,
    ok: r.ok,
  }));
}
