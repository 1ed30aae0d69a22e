/**
 * The run bundle's record sink (`--bundle`): each profiling request's body as sent, its session and turn, and its
 * run-clock due and send times, written as they complete to a scratch file beside the results (a long run's bodies
 * never sit in memory). The bundle output turns the file into `requests.jsonl` once the phase's start is known.
 */
import type { Phase, ProcessedRecord } from "../../records/request_record.ts";
import { LineFileWriter } from "../../export/line_file_writer.ts";
import type { RecordSink } from "../record_sink.ts";
import { errorReason, type UnwrittenFile } from "../unwritten_file.ts";

/** One line of the scratch file: run-clock times, before they are made offsets from the phase start. */
export interface SentRequestLine {
  readonly request_index: number;
  readonly session: number;
  readonly worker: string;
  readonly conversation_id: string;
  readonly turn: number;
  /** Run-clock ms the request was due (open loop, think times); null when sent as soon as possible. */
  readonly scheduled_at: number | null;
  readonly start_at: number;
  readonly body: string;
}

export class BundleSink implements RecordSink {
  readonly name = "bundle";
  readonly path: string;
  readonly #lines: LineFileWriter;
  #phaseStartAt: number | undefined;
  #firstDueAt: number | undefined;
  #failure: unknown;
  #missingBodies = 0;

  private constructor(lines: LineFileWriter, path: string) {
    this.#lines = lines;
    this.path = path;
  }

  static async open(path: string, onFailure?: (error: unknown) => void): Promise<BundleSink> {
    return new BundleSink(await LineFileWriter.open(path, { onFailure }), path);
  }

  /** Run-clock ms the profiling phase started (the first shard to start it); undefined when it never did. */
  get phaseStartAt(): number | undefined {
    return this.#phaseStartAt;
  }

  /** Run-clock ms of the earliest due time of a session's first turn (open loop); undefined when none had one. */
  get firstDueAt(): number | undefined {
    return this.#firstDueAt;
  }

  /** Requests sent without their body on the record (a shard that was not asked to keep them). */
  get missingBodies(): number {
    return this.#missingBodies;
  }

  get linesWritten(): number {
    return this.#lines.linesWritten;
  }

  phaseStarted(phase: Phase, at: number): void {
    if (phase === "profiling") this.#phaseStartAt ??= at;
  }

  measured(record: ProcessedRecord): void {
    if (record.phase !== "profiling") return;
    if (record.sentBody === undefined) {
      this.#missingBodies++;
      return;
    }
    if (record.turnIndex === 0 && record.scheduledAt !== undefined && !(record.scheduledAt >= this.#firstDueAt!)) {
      this.#firstDueAt = record.scheduledAt;
    }
    const line: SentRequestLine = {
      request_index: record.requestIndex,
      session: record.sessionNum,
      worker: record.workerId,
      conversation_id: record.conversationId,
      turn: record.turnIndex,
      scheduled_at: record.scheduledAt ?? null,
      start_at: record.startAt,
      body: record.sentBody,
    };
    this.#lines.writeLine(JSON.stringify(line));
  }

  /** Never rejects: a failed write is reported by {@link unwritten}. */
  async close(): Promise<void> {
    try {
      await this.#lines.close();
    } catch (err) {
      this.#failure ??= err;
    }
  }

  /** Set after `close()` when the scratch file is incomplete. */
  unwritten(): UnwrittenFile | undefined {
    const failure = this.#failure ?? this.#lines.failure;
    if (failure === undefined) return undefined;
    return {
      label: "Run Bundle",
      path: this.path,
      reason: errorReason(failure),
      linesWritten: this.#lines.linesWritten,
      linesDropped: this.#lines.linesDropped,
    };
  }
}
