/**
 * The engine's own overhead, reported and never hidden: per profiling request, the time from the permit to send
 * (closed loop: the slot freeing) to the start stamp taken just before the request is written.
 */
import type { RequestRecord } from "../../records/request_record.ts";
import { type ColumnStore, Float64Column } from "../../metrics/float64_column.ts";
import type { RecordSink } from "../record_sink.ts";

export class DispatchSink implements RecordSink {
  readonly name = "dispatch";
  readonly column: Float64Column;

  /** `store`: where a long column hands its segments (see `Float64Column`). */
  constructor(store?: ColumnStore) {
    this.column = new Float64Column(1024, false, store);
  }

  arrived(record: RequestRecord): void {
    if (record.phase !== "profiling") return;
    // A record without a credit time (NaN) has no dispatch overhead; statistics take finite values only.
    const overhead = record.startAt - record.creditIssuedAt;
    if (Number.isFinite(overhead)) this.column.push(overhead);
  }
}
