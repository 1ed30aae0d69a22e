/** `profile_export_raw.jsonl` (`--export-level raw`): each profiling record with the body it sent. */
import type { ProcessedRecord } from "../../records/request_record.ts";
import { LineFileWriter } from "../../export/line_file_writer.ts";
import { type RawLineContext, rawRecordLine } from "../../export/raw_record_line.ts";
import type { RecordSink } from "../record_sink.ts";
import { type UnwrittenFile, unwrittenLines } from "../unwritten_file.ts";

export class RawSink implements RecordSink {
  readonly name = "raw";
  readonly #lines: LineFileWriter;
  readonly #ctx: RawLineContext;
  readonly #path: string;
  #failure: unknown;

  private constructor(lines: LineFileWriter, ctx: RawLineContext, path: string) {
    this.#lines = lines;
    this.#ctx = ctx;
    this.#path = path;
  }

  /** `onFailure` hears of the first failed write at once (mid-run); the run goes on, later lines are dropped. */
  static async open(path: string, ctx: RawLineContext, onFailure?: (error: unknown) => void): Promise<RawSink> {
    return new RawSink(await LineFileWriter.open(path, { onFailure }), ctx, path);
  }

  measured(record: ProcessedRecord): void {
    if (record.phase !== "warmup") this.#lines.writeLine(rawRecordLine(record, this.#ctx));
  }

  /** Never rejects: a failed write is reported by {@link unwritten}. */
  async close(): Promise<void> {
    try {
      await this.#lines.close();
    } catch (err) {
      this.#failure ??= err;
    }
  }

  /** Set after `close()` when the file is incomplete. */
  unwritten(): UnwrittenFile | undefined {
    return unwrittenLines("Raw Export", this.#path, this.#failure ?? this.#lines.failure, this.#lines);
  }
}
