/** Folds measured records into one metric accumulator per phase: the run's summary and its live figures. */
import type { ProcessedRecord } from "../../records/request_record.ts";
import type { MetricDef } from "../../metrics/metric_def.ts";
import type { RecordRow } from "../../metrics/record_row.ts";
import type { GoodputEvaluator } from "../../metrics/goodput.ts";
import { MetricAccumulator } from "../../metrics/metric_accumulator.ts";
import type { ColumnStore } from "../../metrics/float64_column.ts";
import type { ScratchFactory } from "../../metrics/sweep_stream.ts";
import type { RecordSink } from "../record_sink.ts";

export interface MetricsSinkOptions {
  /** Epoch ms at run-clock 0. */
  readonly timeOriginMs: number;
  readonly goodput?: GoodputEvaluator;
  /** Keep warmup records apart (their summary goes in the JSON export's warmup block). */
  readonly warmup: boolean;
  /**
   * Whether the run stopped itself (failed-request threshold, server gone): the requests its stop cancelled are then
   * no outcome of the server's, neither successes nor errors, and are left out. @default never
   */
  readonly stoppedItself?: () => boolean;
  /** Where long columns hand their segments; without one they stay in memory. */
  readonly store?: ColumnStore;
  /** Where the time-weighted statistics set value ranges aside at the end (`MetricAccumulatorOptions.scratch`). */
  readonly scratch?: ScratchFactory;
}

export class MetricsSink implements RecordSink {
  readonly name = "metrics";
  readonly profiling: MetricAccumulator;
  readonly warmup: MetricAccumulator | undefined;
  readonly #stoppedItself: () => boolean;

  constructor(metrics: readonly MetricDef[], options: MetricsSinkOptions) {
    const settings = {
      timeOriginMs: options.timeOriginMs,
      goodput: options.goodput,
      store: options.store,
      scratch: options.scratch,
    };
    this.profiling = new MetricAccumulator(metrics, settings);
    this.warmup = options.warmup ? new MetricAccumulator(metrics, settings) : undefined;
    this.#stoppedItself = options.stoppedItself ?? (() => false);
  }

  /** A record's metric values (both phases share the metric set); the bus calls it once per record. */
  readonly measure = (record: ProcessedRecord): RecordRow => this.profiling.measure(record);

  measured(record: ProcessedRecord, row: RecordRow): void {
    if (record.stopCancelled === true && this.#stoppedItself()) return;
    (record.phase === "warmup" ? this.warmup : this.profiling)?.fold(record, row);
  }
}
