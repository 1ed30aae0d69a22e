/** `profile_export_raw.jsonl` (`--export-level raw`): each profiling record with the body it sent. */
import type { ProcessedRecord } from "../../records/request_record.ts";
import { LineFileWriter } from "../../export/line_file_writer.ts";
import { type RawLineContext, rawRecordLine } from "../../export/raw_record_line.ts";
import type { RecordSink } from "../record_sink.ts";

export class RawSink implements RecordSink {
  readonly name = "raw";
  readonly #lines: LineFileWriter;
  readonly #ctx: RawLineContext;

  private constructor(lines: LineFileWriter, ctx: RawLineContext) {
    this.#lines = lines;
    this.#ctx = ctx;
  }

  static async open(path: string, ctx: RawLineContext): Promise<RawSink> {
    return new RawSink(await LineFileWriter.open(path), ctx);
  }

  measured(record: ProcessedRecord): void {
    if (record.phase !== "warmup") this.#lines.writeLine(rawRecordLine(record, this.#ctx));
  }

  close(): Promise<void> {
    return this.#lines.close();
  }
}
