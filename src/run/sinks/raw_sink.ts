/** `profile_export_raw.jsonl` (`--export-level raw`): each profiling record with the payload it sent. */
import type { ProcessedRecord } from "../../records/request_record.ts";
import { LineFileWriter } from "../../export/line_file_writer.ts";
import { rawRecordLine } from "../../export/raw_record_line.ts";
import type { RecordSink } from "../record_sink.ts";

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

  private constructor(lines: LineFileWriter, payload: PayloadLookup, timeOriginMs: number) {
    this.#lines = lines;
    this.#payload = payload;
    this.#timeOriginMs = timeOriginMs;
  }

  static async open(path: string, payload: PayloadLookup, timeOriginMs: number): Promise<RawSink> {
    return new RawSink(await LineFileWriter.open(path), payload, timeOriginMs);
  }

  measured(record: ProcessedRecord): void {
    if (record.phase === "warmup") return;
    const payload = this.#payload(record.conversationId, record.turnIndex);
    this.#lines.writeLine(rawRecordLine(record, payload, this.#timeOriginMs));
  }

  close(): Promise<void> {
    return this.#lines.close();
  }
}
