/** `profile_export.jsonl`: one line per profiling record; warmup records only rehearse the formatting. */
import type { ProcessedRecord } from "../../records/request_record.ts";
import type { MetricDef } from "../../metrics/metric_def.ts";
import type { RecordRow } from "../../metrics/record_row.ts";
import { JsonlWriter } from "../../export/jsonl_writer.ts";
import type { RecordSink } from "../record_sink.ts";
import { type UnwrittenFile, unwrittenLines } from "../unwritten_file.ts";

export class JsonlSink implements RecordSink {
  readonly name = "jsonl";
  readonly #writer: JsonlWriter;
  readonly #path: string;
  #failure: unknown;

  private constructor(writer: JsonlWriter, path: string) {
    this.#writer = writer;
    this.#path = path;
  }

  /**
   * @param withWarmup a warmup phase runs before profiling (it shifts the phase index AIPerf writes)
   * @param onFailure hears of the first failed write at once (mid-run); the run goes on, later lines are dropped
   */
  static async open(
    path: string,
    metrics: readonly MetricDef[],
    timeOriginMs: number,
    withWarmup: boolean,
    onFailure?: (error: unknown) => void,
  ): Promise<JsonlSink> {
    return new JsonlSink(await JsonlWriter.open(path, { metrics, timeOriginMs, withWarmup, onFailure }), path);
  }

  measured(record: ProcessedRecord, row: RecordRow): void {
    if (record.phase === "warmup") this.#writer.rehearse(record, row);
    else this.#writer.write(record, row);
  }

  /** Never rejects: a failed write is reported by {@link unwritten}. */
  async close(): Promise<void> {
    try {
      await this.#writer.close();
    } catch (err) {
      this.#failure ??= err;
    }
  }

  /** Set after `close()` when the file is incomplete. */
  unwritten(): UnwrittenFile | undefined {
    const w = this.#writer;
    return unwrittenLines("JSONL Export", this.#path, this.#failure ?? w.failure, {
      linesWritten: w.recordsWritten,
      linesDropped: w.recordsDropped,
      endsInPartialLine: w.endsInPartialLine,
    });
  }
}
