/** `profile_export_raw.jsonl` (`--export-level raw`): each profiling record with the body it sent. */
import type { ProcessedRecord } from "../../records/request_record.ts";
import { LineFileWriter } from "../../export/line_file_writer.ts";
import { rawRecordLine } from "../../export/raw_record_line.ts";
import type { RecordSink } from "../record_sink.ts";

export class RawSink implements RecordSink {
  readonly name = "raw";
  readonly #lines: LineFileWriter;
  readonly #timeOriginMs: number;

  private constructor(lines: LineFileWriter, timeOriginMs: number) {
    this.#lines = lines;
    this.#timeOriginMs = timeOriginMs;
  }

  static async open(path: string, timeOriginMs: number): Promise<RawSink> {
    return new RawSink(await LineFileWriter.open(path), timeOriginMs);
  }

  measured(record: ProcessedRecord): void {
    if (record.phase !== "warmup") this.#lines.writeLine(rawRecordLine(record, this.#timeOriginMs));
  }

  close(): Promise<void> {
    return this.#lines.close();
  }
}
