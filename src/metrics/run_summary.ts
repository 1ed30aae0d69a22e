/**
 * What accumulation produces: per-metric results in display order, the error summary and run-level facts.
 * Plain data (no functions), so it can be exported, served by the API or rendered by any exporter.
 */
import type { ConsoleGroup, MetricFlags, MetricKind, MetricUnit } from "./metric_def.ts";
import type { Stats } from "./stats.ts";

/** One metric's result: `stats` for record metrics (distributions), `value` for aggregate/derived ones. */
export interface MetricResult {
  readonly tag: string;
  readonly header: string;
  readonly shortHeader?: string;
  readonly unit: MetricUnit;
  readonly consoleUnit?: string;
  readonly kind: MetricKind;
  readonly flags: MetricFlags;
  readonly displayOrder: number;
  /** The console table that shows it. */
  readonly consoleGroup: ConsoleGroup;
  /** Set for record metrics (never for aggregate/derived ones). */
  readonly stats?: Stats;
  /** Set for aggregate and derived metrics, in the display unit. */
  readonly value?: number;
}

/** A distinct failure (AIPerf `ErrorDetails`). */
export interface ErrorDetails {
  readonly code?: number;
  readonly type: string;
  readonly message: string;
}

/** How many requests failed with the same (type, code, message), in first-seen order. */
export interface ErrorSummaryEntry {
  readonly error: ErrorDetails;
  readonly count: number;
}

export interface RunSummary {
  /** Results of every metric that has a value, sorted by display order. */
  readonly metrics: readonly MetricResult[];
  readonly errors: readonly ErrorSummaryEntry[];
  readonly successCount: number;
  readonly errorCount: number;
  /**
   * `benchmark_duration` in seconds when there were successful requests; otherwise the span from the first
   * start to the last end over all records (so a fully failed run still reports a duration). Undefined when
   * there were no records.
   */
  readonly benchmarkDurationSec?: number;
  /** Open-loop schedules: `startAt − scheduledAt` over records that had a due time, in ms. */
  readonly scheduleLatenessMs?: Stats;
}

/** A cheap view of the run so far for live progress (no sorting, no percentiles). */
export interface LiveSnapshot {
  readonly successCount: number;
  readonly errorCount: number;
  /** Requests meeting every goodput SLO so far; undefined without goodput. */
  readonly goodCount?: number;
  /** First start to last end (successful requests), in seconds; 0 before the first success. */
  readonly elapsedSec: number;
  /** The last end of any request so far, ms on the run clock; undefined before the first. */
  readonly lastEndMs?: number;
  /** Running mean of each single-valued record metric that has values, in its display unit. */
  readonly averages: Readonly<Record<string, number>>;
  /** Running sum of each single-valued record metric that has values (e.g. output tokens so far). */
  readonly sums: Readonly<Record<string, number>>;
}
