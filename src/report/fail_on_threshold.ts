/**
 * `compare --fail-on` conditions, k6-style but stated as what fails: `<metric>.<stat><op><limit>`.
 *
 * - `ttft.p99>+10%`: fails when a run's TTFT p99 is more than 10 % above the baseline's (relative change,
 *   `(value − baseline) / |baseline|`; a `%` limit is always a relative change, signed or not);
 * - `output_token_throughput.avg<-5%`: fails when throughput dropped by more than 5 %;
 * - `itl.p50>+0.5`: a signed limit without `%` is an absolute change in the metric's unit (ms here);
 * - `ttft.p99>500`: an unsigned limit is the value itself (no baseline needed).
 *
 * `<metric>` is a tag or a short name (`ttft`, `itl`, `latency`); `<stat>` is `avg`, `min`, `max`, `std`, `p1`…`p99`
 * or `value` (= `avg`, for single-valued metrics); `<op>` is `>`, `>=`, `<` or `<=`. Each run after the first is
 * checked against the first; with a single run only value limits can be checked. A change counts only beyond the
 * noise (see {@linkcode checkThresholds}).
 */
import { ReportError } from "./report_error.ts";
import type { RunExport } from "./run_export.ts";
import { resolveMetricName } from "./metric_names.ts";
import type { CompareNoise } from "./compare_noise.ts";

export type ThresholdOp = ">" | ">=" | "<" | "<=";

/** What a limit is compared with. */
export type ThresholdKind = "relative" | "delta" | "value";

/** One parsed `--fail-on` condition. */
export interface FailOnThreshold {
  /** As the user wrote it. */
  readonly text: string;
  readonly tag: string;
  readonly stat: string;
  readonly op: ThresholdOp;
  readonly kind: ThresholdKind;
  /** For `relative`, a fraction (10 % → 0.1). */
  readonly limit: number;
}

const GRAMMAR =
  /^\s*([A-Za-z_][\w%]*)\.(avg|min|max|std|value|p\d{1,2}(?:\.\d+)?)\s*(>=|<=|>|<)\s*([+-]?)(\d+(?:\.\d+)?|\.\d+)\s*(%?)\s*$/i;

/**
 * Parses one condition.
 * @throws {ReportError} saying what form is expected.
 */
export function parseFailOn(text: string): FailOnThreshold {
  const m = GRAMMAR.exec(text);
  if (m === null) {
    throw new ReportError(
      `--fail-on '${text}' is not <metric>.<stat><op><limit>; e.g. 'ttft.p99>+10%' (10 % worse than the baseline), ` +
        "'itl.p50>+0.5' (0.5 ms more), 'ttft.p99>500' (over 500 ms).",
    );
  }
  const [, name, rawStat, op, sign, digits, percent] = m;
  const stat = rawStat.toLowerCase() === "value" ? "avg" : rawStat.toLowerCase();
  const magnitude = Number(digits) * (sign === "-" ? -1 : 1);
  const kind: ThresholdKind = percent === "%" ? "relative" : sign !== "" ? "delta" : "value";
  return {
    text: text.trim(),
    tag: resolveMetricName(name),
    stat,
    op: op as ThresholdOp,
    kind,
    limit: kind === "relative" ? magnitude / 100 : magnitude,
  };
}

/** One crossed condition, explained. */
export interface ThresholdBreach {
  readonly threshold: FailOnThreshold;
  /** Index of the run that crossed it. */
  readonly run: number;
  /** One sentence for the console. */
  readonly message: string;
}

function holds(x: number, op: ThresholdOp, limit: number): boolean {
  switch (op) {
    case ">":
      return x > limit;
    case ">=":
      return x >= limit;
    case "<":
      return x < limit;
    case "<=":
      return x <= limit;
  }
}

/** Six significant digits, no trailing zeros: `111`, `4.0035`, `0.5`. */
function fmt(x: number): string {
  return String(Number(x.toPrecision(6)));
}

/** The result of checking the conditions. */
export interface ThresholdCheck {
  readonly breaches: readonly ThresholdBreach[];
  /** Conditions the plain difference crosses but the noise does not: not failed, said so. */
  readonly withinNoise: readonly ThresholdBreach[];
}

/** Signed `+12.3%` / `+1.5 ms` for a change. */
function change(kind: ThresholdKind, x: number, unit: string): string {
  const sign = x >= 0 ? "+" : "";
  return kind === "relative" ? `${sign}${(x * 100).toFixed(1)}%` : `${sign}${fmt(x)} ${unit}`;
}

/**
 * Every condition crossed by a run after the first (or by the only run, for value limits). A metric or statistic a
 * run lacks is a breach: a CI gate must not pass because the number it guards vanished.
 *
 * A change limit (relative or delta) is crossed only when the whole confidence interval of the change is beyond it
 * (`>`: its low end; `<`: its high end), so noise alone never fails a gate; without an interval (`noise` says why)
 * the plain change is used and the message says so. A value limit judges the measured value, as `--threshold` does.
 * @throws {ReportError} for a relative or delta limit with a single run.
 */
export function checkThresholds(
  runs: readonly RunExport[],
  labels: readonly string[],
  thresholds: readonly FailOnThreshold[],
  noise?: CompareNoise,
): ThresholdCheck {
  const breaches: ThresholdBreach[] = [];
  const spared: ThresholdBreach[] = [];
  for (const t of thresholds) {
    if (runs.length < 2 && t.kind !== "value") {
      throw new ReportError(`--fail-on '${t.text}' compares with a baseline: give at least two runs.`);
    }
    const baseMetric = runs[0].metrics.get(t.tag);
    const base = baseMetric?.stats[t.stat];
    const checked = runs.length < 2 ? [0] : runs.map((_, i) => i).slice(1);
    for (const i of checked) {
      const metric = runs[i].metrics.get(t.tag);
      const value = metric?.stats[t.stat];
      const unit = metric?.unit ?? baseMetric?.unit ?? "";
      if (value === undefined) {
        breaches.push({ threshold: t, run: i, message: `${t.text}: run ${labels[i]} has no ${t.tag}.${t.stat}.` });
        continue;
      }
      if (t.kind === "value") {
        if (holds(value, t.op, t.limit)) {
          breaches.push({ threshold: t, run: i, message: `${t.text}: run ${labels[i]} has ${fmt(value)} ${unit}.` });
        }
        continue;
      }
      if (base === undefined) {
        breaches.push({ threshold: t, run: i, message: `${t.text}: baseline ${labels[0]} has no ${t.tag}.${t.stat}.` });
        continue;
      }
      const delta = value - base;
      const plain = t.kind === "delta"
        ? delta
        : base === 0
        ? (delta === 0 ? 0 : Math.sign(delta) * Infinity)
        : delta / Math.abs(base);
      if (!holds(plain, t.op, t.limit)) continue;
      const single = Object.keys(metric?.stats ?? {}).every((k) => k === "avg");
      const interval = noise?.interval({ tag: t.tag, stat: t.stat, single }, i, delta, base) ??
        "no per-request records were read";
      const head = `${t.text}: run ${labels[i]} ${fmt(value)} vs ${fmt(base)} ${unit} (${change(t.kind, plain, unit)}`;
      if (typeof interval === "string") {
        breaches.push({ threshold: t, run: i, message: `${head}; no interval: ${interval}, plain difference).` });
        continue;
      }
      const low = t.kind === "delta" ? interval.low : interval.relativeLow;
      const high = t.kind === "delta" ? interval.high : interval.relativeHigh;
      if (low === undefined || high === undefined) {
        breaches.push({ threshold: t, run: i, message: `${head}; no relative interval: the baseline is 0).` });
        continue;
      }
      // The end of the interval nearest the limit must cross it too.
      const nearest = t.op === ">" || t.op === ">=" ? low : high;
      const ci = `${Number((interval.level * 100).toPrecision(6))}% CI ${change(t.kind, low, unit)} … ${
        change(t.kind, high, unit)
      }`;
      if (holds(nearest, t.op, t.limit)) breaches.push({ threshold: t, run: i, message: `${head}, ${ci}).` });
      else spared.push({ threshold: t, run: i, message: `${head}, ${ci}: within the noise, not failed).` });
    }
  }
  return { breaches, withinNoise: spared };
}
