/** `profile_export_raw.jsonl` (`--export-level raw`): each profiling record with the payload it sent. */
import type { ProcessedRecord } from "../../records/request_record.ts";
import { LineFileWriter } from "../../export/line_file_writer.ts";
import { rawRecordLine } from "../../export/raw_record_line.ts";
import type { RecordSink } from "../record_sink.ts";
import { errorReason, type UnwrittenFile } from "../unwritten_file.ts";

/** The payload sent for a turn, by `conversationId#turnIndex`. */
export type PayloadLookup = (
  conversationId: string,
  turnIndex: number,
) => Readonly<Record<string, unknown>> | undefined;

export class RawSink implements RecordSink {
  readonly name = "raw";
  readonly #lines: LineFileWriter;
  readonly #payload: PayloadLookup;
  readonly #timeOriginMs: number;
  readonly #path: string;
  #failure: unknown;

  private constructor(lines: LineFileWriter, payload: PayloadLookup, timeOriginMs: number, path: string) {
    this.#lines = lines;
    this.#payload = payload;
    this.#timeOriginMs = timeOriginMs;
    this.#path = path;
  }

  /** `onFailure` hears of the first failed write at once (mid-run); the run goes on, later lines are dropped. */
  static async open(
    path: string,
    payload: PayloadLookup,
    timeOriginMs: number,
    onFailure?: (error: unknown) => void,
  ): Promise<RawSink> {
    return new RawSink(await LineFileWriter.open(path, { onFailure }), payload, timeOriginMs, path);
  }

  measured(record: ProcessedRecord): void {
    if (record.phase === "warmup") return;
    const payload = this.#payload(record.conversationId, record.turnIndex);
    this.#lines.writeLine(rawRecordLine(record, payload, this.#timeOriginMs));
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
    const failure = this.#failure ?? this.#lines.failure;
    if (failure === undefined) return undefined;
    return {
      label: "Raw Export",
      path: this.#path,
      reason: errorReason(failure),
      linesWritten: this.#lines.linesWritten,
      linesDropped: this.#lines.linesDropped,
    };
  }
}
