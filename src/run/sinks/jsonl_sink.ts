/** `profile_export.jsonl`: one line per profiling record; warmup records only rehearse the formatting. */
import type { ProcessedRecord } from "../../records/request_record.ts";
import type { MetricDef, RecordMetrics } from "../../metrics/metric_def.ts";
import { JsonlWriter } from "../../export/jsonl_writer.ts";
import type { RecordSink } from "../record_sink.ts";

export class JsonlSink implements RecordSink {
  readonly name = "jsonl";
  readonly #writer: JsonlWriter;

  private constructor(writer: JsonlWriter) {
    this.#writer = writer;
  }

  /** @param withWarmup a warmup phase runs before profiling (it shifts the phase index AIPerf writes) */
  static async open(
    path: string,
    metrics: readonly MetricDef[],
    timeOriginMs: number,
    withWarmup: boolean,
  ): Promise<JsonlSink> {
    return new JsonlSink(await JsonlWriter.open(path, { metrics, timeOriginMs, withWarmup }));
  }

  measured(record: ProcessedRecord, values: RecordMetrics): void {
    if (record.phase === "warmup") this.#writer.rehearse(record, values);
    else this.#writer.write(record, values);
  }

  close(): Promise<void> {
    return this.#writer.close();
  }
}
