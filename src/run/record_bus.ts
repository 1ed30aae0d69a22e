/**
 * The one path records take from the engine to their consumers: `arrived` fans each record out as delivered,
 * `measured` after token counting, with the record's metric values computed once for every sink.
 */
import type { Phase, ProcessedRecord, RequestRecord } from "../records/request_record.ts";
import type { RecordRow } from "../metrics/record_row.ts";
import type { RecordSink } from "./record_sink.ts";

export class RecordBus {
  readonly #arrived: RecordSink[];
  readonly #measured: RecordSink[];
  readonly #sinks: readonly RecordSink[];
  readonly #measure: (record: ProcessedRecord) => RecordRow;

  /**
   * @param measure a record's metric values (`MetricAccumulator.measure`), computed once per record into a row that
   * the next record's measuring refills: every sink reads it within its `measured` call
   */
  constructor(sinks: readonly RecordSink[], measure: (record: ProcessedRecord) => RecordRow) {
    this.#sinks = sinks;
    this.#measure = measure;
    // Only the sinks that listen, so the per-record loops do no dead calls.
    this.#arrived = sinks.filter((s) => s.arrived !== undefined);
    this.#measured = sinks.filter((s) => s.measured !== undefined);
  }

  phaseStarted(phase: Phase, at: number): void {
    for (const sink of this.#sinks) sink.phaseStarted?.(phase, at);
  }

  arrived(record: RequestRecord): void {
    const sinks = this.#arrived;
    for (let i = 0; i < sinks.length; i++) sinks[i].arrived!(record);
  }

  measured(record: ProcessedRecord): void {
    const row = this.#measure(record);
    const sinks = this.#measured;
    for (let i = 0; i < sinks.length; i++) sinks[i].measured!(record, row);
  }

  /** Closes every sink, in order; one failing does not keep the others from closing (the first error is thrown). */
  async close(): Promise<void> {
    let failure: unknown;
    for (const sink of this.#sinks) {
      try {
        await sink.close?.();
      } catch (err) {
        failure ??= err;
      }
    }
    if (failure !== undefined) throw failure;
  }
}
