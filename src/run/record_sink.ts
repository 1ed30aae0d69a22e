/**
 * A consumer of a run's records. Every consumer — metrics, per-record and raw JSONL, progress, the failure gate,
 * the live view — is one of these on the record bus, so adding one (an HTTP API, a dashboard) changes no other.
 * Sinks never call back into the engine; one that must stop the run is given an abort callback when made.
 */
import type { Phase, ProcessedRecord, RequestRecord } from "../records/request_record.ts";
import type { RecordRow } from "../metrics/record_row.ts";

export interface RecordSink {
  readonly name: string;
  /** A phase began, at `at` ms on the run clock (the first shard to start it). */
  phaseStarted?(phase: Phase, at: number): void;
  /**
   * A record as the engine delivered it, before token counting. Runs on the main thread as records arrive,
   * where the in-process shard's socket reads also run: keep it to a few field reads.
   */
  arrived?(record: RequestRecord): void;
  /**
   * A record with its token counts and metric values, in completion order, off the engine's hot path. The row is
   * refilled for the next record: read it here, and copy (`row.toObject()`) whatever must outlive the call.
   */
  measured?(record: ProcessedRecord, row: RecordRow): void;
  /** The run is over (completed, cancelled or failed): flush and release. Called once, in sink order. */
  close?(): Promise<void> | void;
}
