/**
 * The verdict on one probe of a search: each SLA filter's observed statistic, its confidence interval, and whether
 * the probe meets it — over every completed run of the probe, their per-request values pooled (the statistic of all
 * requests together, as AIPerf's `--search-percentile-pooling pooled` does).
 *
 * Intervals, at `--confidence-level`: a seeded percentile bootstrap of the per-request values for distributions
 * (TTFT p95, latency p99, …), the Wilson interval of the counts for `request_error_rate` and
 * `good_request_fraction`, and the Student-t interval across runs for other single-valued metrics (none with one
 * run). A filter whose interval holds its threshold is *within noise*: the measured side of the threshold could be
 * chance, and the search repeats the probe before it decides (`run_search.ts`).
 */
import { hashString } from "../../base/seeded_random.ts";
import { meetsSla, type SlaFilter, slaMargin, slaSubject, withSlaUnit } from "../../config/sla_filter.ts";
import { bootstrapInterval, type Interval, sortedStat, wilsonInterval } from "../../metrics/bootstrap_ci.ts";
import type { MetricResult, RunSummary } from "../../metrics/run_summary.ts";
import { studentTQuantile } from "../../metrics/student_t.ts";
import { readMetricValues } from "../../report/record_values.ts";
import { formatGrouped } from "../../export/number_format.ts";

/** One run of a probe. */
export interface ProbeTrial {
  readonly dir: string;
  /** The profiling phase's summary; absent when the run did not complete. */
  readonly summary?: RunSummary;
}

export interface FilterJudgement {
  readonly filter: SlaFilter;
  /** Undefined when no completed run measured it (then the filter is not met). */
  readonly observed?: number;
  readonly interval?: Interval;
  readonly meets: boolean;
  /** The interval holds the threshold: which side the probe is on could be chance. */
  readonly withinNoise: boolean;
  /** Distance from the threshold as a fraction of it (negative inside); undefined when unmeasured. */
  readonly margin?: number;
}

export interface ProbeJudgement {
  readonly feasible: boolean;
  /** No filter fails for sure, and at least one is within noise. */
  readonly withinNoise: boolean;
  readonly filters: readonly FilterJudgement[];
  /** The recipe's objective (its `avg`, mean over runs). */
  readonly objective?: number;
  /** Output token throughput (mean over runs), for the answer. */
  readonly throughput?: number;
  /** Completed runs judged. */
  readonly runs: number;
}

export interface JudgeOptions {
  readonly level: number;
  /** Seeds the bootstrap (the same probe, runs and seed give the same intervals). */
  readonly seed: number;
  readonly objective: string;
}

function metricOf(summary: RunSummary, tag: string): MetricResult | undefined {
  return summary.metrics.find((m) => m.tag === tag);
}

function valueOf(summary: RunSummary, tag: string): number | undefined {
  const m = metricOf(summary, tag);
  return m?.value ?? m?.stats?.avg;
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function tInterval(xs: readonly number[], level: number): Interval | undefined {
  if (xs.length < 2) return undefined;
  const m = mean(xs);
  const s = Math.sqrt(xs.reduce((a, v) => a + (v - m) ** 2, 0) / (xs.length - 1));
  const half = studentTQuantile((1 + level) / 2, xs.length - 1) * s / Math.sqrt(xs.length);
  return { low: m - half, high: m + half };
}

/** A proportion (in `scale`: 100 for percent) with its Wilson interval, from counts over the runs. */
function proportion(events: number, total: number, level: number, scale: number) {
  if (!(total > 0)) return { observed: undefined, interval: undefined };
  const w = wilsonInterval(events, total, level);
  return { observed: (events / total) * scale, interval: { low: w.low * scale, high: w.high * scale } };
}

function observe(
  filter: SlaFilter,
  summaries: readonly RunSummary[],
  values: readonly (Map<string, number[]> | undefined)[],
  o: JudgeOptions,
): { observed?: number; interval?: Interval } {
  const tag = filter.metric_tag;
  const total = summaries.reduce((a, s) => a + s.successCount + s.errorCount, 0);
  if (tag === "request_error_rate") {
    return proportion(summaries.reduce((a, s) => a + s.errorCount, 0), total, o.level, 100);
  }
  if (tag === "good_request_fraction") {
    const good = summaries.map((s) => valueOf(s, "good_request_count"));
    if (good.some((g) => g === undefined)) return {};
    return proportion(good.reduce((a, g) => a! + g!, 0)!, total, o.level, 1);
  }
  const results = summaries.map((s) => metricOf(s, tag)).filter((m): m is MetricResult => m !== undefined);
  if (results.length === 0) return {};
  if (results.every((m) => m.stats === undefined)) {
    const xs = results.map((m) => m.value).filter((v): v is number => v !== undefined);
    return xs.length === 0 ? {} : { observed: mean(xs), interval: tInterval(xs, o.level) };
  }
  const pooled = values.every((v) => v !== undefined) ? values.flatMap((v) => v!.get(tag) ?? []) : [];
  if (pooled.length === 0) {
    // No per-request file: the runs' own statistics, averaged (AIPerf's observed value), no interval.
    const xs = results.map((m) => m.stats?.[filter.stat as keyof typeof m.stats] as number | undefined)
      .filter((v): v is number => v !== undefined);
    return xs.length === 0 ? {} : { observed: mean(xs) };
  }
  const sorted = Float64Array.from(pooled).sort();
  // One run: its own summary's statistic (the same requests; exactly what its export says).
  const single = summaries.length === 1
    ? results[0].stats?.[filter.stat as keyof typeof results[0]["stats"]]
    : undefined;
  const observed = typeof single === "number" ? single : sortedStat(sorted, filter.stat);
  const seed = hashString(`${tag}:${filter.stat}`, o.seed >>> 0);
  return { observed, interval: bootstrapInterval(sorted, filter.stat, { level: o.level, seed }) };
}

/** Judges a probe from its runs so far. */
export async function judgeProbe(
  trials: readonly ProbeTrial[],
  filters: readonly SlaFilter[],
  o: JudgeOptions,
): Promise<ProbeJudgement> {
  const done = trials.filter((t): t is ProbeTrial & { summary: RunSummary } => t.summary !== undefined);
  const summaries = done.map((t) => t.summary);
  const recordTags = [...new Set(filters.map((f) => f.metric_tag))].filter((tag) =>
    summaries.some((s) => metricOf(s, tag)?.stats !== undefined)
  );
  const values = recordTags.length === 0
    ? done.map(() => new Map<string, number[]>())
    : await Promise.all(done.map((t) => readMetricValues(t.dir, recordTags).catch(() => undefined)));
  const judged: FilterJudgement[] = [];
  for (const filter of filters) {
    const { observed, interval } = done.length === 0 ? {} : observe(filter, summaries, values, o);
    const meets = meetsSla(filter, observed);
    const withinNoise = interval !== undefined && interval.low <= filter.threshold &&
      filter.threshold <= interval.high && interval.low < interval.high;
    judged.push({
      filter,
      observed,
      interval,
      meets,
      withinNoise,
      margin: observed === undefined ? undefined : slaMargin(filter, observed),
    });
  }
  const averaged = (tag: string) => {
    const xs = summaries.map((s) => valueOf(s, tag)).filter((v): v is number => v !== undefined);
    return xs.length === 0 ? undefined : mean(xs);
  };
  const failsSurely = judged.some((j) => !j.meets && !j.withinNoise);
  return {
    feasible: done.length > 0 && judged.every((j) => j.meets),
    withinNoise: !failsSurely && judged.some((j) => j.withinNoise),
    filters: judged,
    objective: averaged(o.objective),
    throughput: averaged("output_token_throughput"),
    runs: done.length,
  };
}

/** `±12` from an interval around a value: its half-width, or undefined without one. */
export function halfWidth(interval: Interval | undefined): number | undefined {
  return interval === undefined ? undefined : (interval.high - interval.low) / 2;
}

/** `p95 TTFT 471 ms ± 12`: a filter's observed statistic with its interval's half-width. */
export function describeObserved(j: FilterJudgement): string {
  if (j.observed === undefined) return `${slaSubject(j.filter)} not measured`;
  const hw = halfWidth(j.interval);
  const value = formatGrouped(j.observed, digitsFor(j.observed));
  const pm = hw === undefined || hw === 0 ? "" : ` ± ${formatGrouped(hw, hw >= 10 ? 0 : hw >= 1 ? 1 : 2)}`;
  return `${slaSubject(j.filter)} ${withSlaUnit(j.filter, value)}${pm}`;
}

/** Decimals that keep about three significant digits for everyday magnitudes. */
export function digitsFor(x: number): number {
  const a = Math.abs(x);
  return a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
}
