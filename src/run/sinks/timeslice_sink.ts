/**
 * `--slice-duration`: the profiling metrics per fixed window of time (AIPerf's timeslices). A record belongs to the
 * window its start falls in; windows run from the profiling phase's start (AIPerf: from the earliest request
 * start, which the first send follows within microseconds) in steps of the slice duration. Each window has its
 * own metric accumulator, so its figures are computed exactly like the whole run's over its records; windows
 * without records are left out, and the last window ends at the last response (`is_complete` false when that
 * cuts it short). Given a store (the run's spill file), a window's columns go to it once records of the window after
 * next arrive, so a long run's memory does not grow with its windows; a late record is still counted.
 */
import type { Phase, ProcessedRecord } from "../../records/request_record.ts";
import type { MetricDef } from "../../metrics/metric_def.ts";
import type { RecordRow } from "../../metrics/record_row.ts";
import type { GoodputEvaluator } from "../../metrics/goodput.ts";
import { MetricAccumulator } from "../../metrics/metric_accumulator.ts";
import type { ColumnStore } from "../../metrics/float64_column.ts";
import type { RunSummary } from "../../metrics/run_summary.ts";
import type { RecordSink } from "../record_sink.ts";

export interface Timeslice {
  /** Run-clock ms of the window's start and end. */
  readonly startAt: number;
  readonly endAt: number;
  readonly isComplete: boolean;
  readonly summary: RunSummary;
}

export class TimesliceSink implements RecordSink {
  readonly name = "timeslices";
  readonly #metrics: readonly MetricDef[];
  readonly #options: {
    readonly timeOriginMs: number;
    readonly goodput?: GoodputEvaluator;
    readonly store?: ColumnStore;
  };
  /** Windows below this index have been sealed. */
  #sealedBelow = 0;
  readonly #sliceMs: number;
  readonly #slices = new Map<number, MetricAccumulator>();
  #origin: number | undefined;
  #lastEnd = -Infinity;

  constructor(
    metrics: readonly MetricDef[],
    sliceMs: number,
    options: { readonly timeOriginMs: number; readonly goodput?: GoodputEvaluator; readonly store?: ColumnStore },
  ) {
    this.#metrics = metrics;
    this.#sliceMs = sliceMs;
    this.#options = options;
  }

  phaseStarted(phase: Phase, at: number): void {
    if (phase === "profiling") this.#origin = at;
  }

  measured(record: ProcessedRecord, row: RecordRow): void {
    if (record.phase !== "profiling") return;
    const origin = this.#origin ??= record.startAt;
    const index = Math.max(0, Math.floor((record.startAt - origin) / this.#sliceMs));
    let acc = this.#slices.get(index);
    if (acc === undefined) this.#slices.set(index, acc = new MetricAccumulator(this.#metrics, this.#options));
    acc.fold(record, row);
    if (this.#options.store !== undefined) {
      for (; this.#sealedBelow < index - 1; this.#sealedBelow++) this.#slices.get(this.#sealedBelow)?.seal();
    }
    this.#lastEnd = Math.max(this.#lastEnd, record.endAt);
  }

  /** The windows that had records, in time order. */
  timeslices(): Timeslice[] {
    const origin = this.#origin ?? 0;
    return [...this.#slices.keys()].sort((a, b) => a - b).map((index) => {
      const startAt = origin + index * this.#sliceMs;
      const fullEnd = startAt + this.#sliceMs;
      const endAt = Math.min(fullEnd, Math.max(this.#lastEnd, startAt));
      return { startAt, endAt, isComplete: endAt >= fullEnd, summary: this.#slices.get(index)!.summarize() };
    });
  }
}
