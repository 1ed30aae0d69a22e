/**
 * The per-record `profile_export.jsonl` (AIPerf §3.5): one line per request with `metadata`, `metrics`
 * (`{tag: {value, unit}}` in display units) and `error` (null or `{code, type, message}`).
 *
 * Timestamps are wall-clock epoch **nanoseconds** printed as exact integer digits (they exceed 2^53, so they
 * never pass through a float). Null metadata fields are omitted. Lines are buffered and written in batches
 * with one async `write` on an open file — every `flushEveryRecords` records or `flushIntervalMs` ms,
 * whichever comes first — so the engine's loop never blocks on disk; `close()` flushes everything, which
 * keeps partial results on Ctrl-C.
 */
import type { ProcessedRecord, RecordError } from "../records/request_record.ts";
import type { MetricDef, RecordMetrics } from "../metrics/metric_def.ts";
import { epochNs } from "./epoch_ns.ts";
import { LineFileWriter } from "./line_file_writer.ts";

export interface RecordLineContext {
  /** The run's metrics (units, and which ones are left out of per-record lines). */
  readonly metrics: readonly MetricDef[];
  /** Epoch ms at run-clock 0. */
  readonly timeOriginMs: number;
  /** `record_processor_id` written on every line. @default "record_processor_0" */
  readonly recordProcessorId?: string;
}

/** Per-tag unit lookup for the metrics that belong in per-record lines. */
function unitsOf(metrics: readonly MetricDef[]): ReadonlyMap<string, string> {
  return new Map(
    metrics.filter((def) => def.kind === "record" && !def.flags.noIndividualRecords).map((def) => [def.tag, def.unit]),
  );
}

function errorJson(error: RecordError | undefined, cancelled: boolean): string {
  if (error === undefined && !cancelled) return "null";
  const e = error ?? { code: 499, type: "RequestCancellationError", message: "Request was cancelled" };
  const code = e.code === undefined ? "" : `"code":${e.code},`;
  return `{${code}"type":${JSON.stringify(e.type)},"message":${JSON.stringify(e.message)}}`;
}

/** Formats records with a fixed context (units resolved once). */
export class RecordLineFormatter {
  readonly #units: ReadonlyMap<string, string>;
  readonly #origin: number;
  readonly #processorId: string;

  constructor(ctx: RecordLineContext) {
    this.#units = unitsOf(ctx.metrics);
    this.#origin = ctx.timeOriginMs;
    this.#processorId = JSON.stringify(ctx.recordProcessorId ?? "record_processor_0");
  }

  /** One JSONL line (without the trailing newline). */
  format(record: ProcessedRecord, values: RecordMetrics): string {
    const ns = (t: number) => epochNs(this.#origin, t).toString();
    const meta: string[] = [
      `"session_num":${record.sessionNum}`,
      `"x_request_id":${JSON.stringify(record.xRequestId)}`,
      `"x_correlation_id":${JSON.stringify(record.xCorrelationId)}`,
      `"conversation_id":${JSON.stringify(record.conversationId)}`,
      `"turn_index":${record.turnIndex}`,
      `"request_start_ns":${ns(record.startAt)}`,
    ];
    if (record.headersAt !== undefined) meta.push(`"request_ack_ns":${ns(record.headersAt)}`);
    meta.push(
      `"request_end_ns":${ns(record.endAt)}`,
      `"worker_id":${JSON.stringify(record.workerId)}`,
      `"record_processor_id":${this.#processorId}`,
      `"benchmark_phase":${JSON.stringify(record.phase)}`,
      `"was_cancelled":${record.cancelled}`,
    );
    if (record.cancelled) meta.push(`"cancellation_time_ns":${ns(record.endAt)}`);
    meta.push(`"credit_issued_ns":${ns(record.creditIssuedAt)}`);
    const metrics: string[] = [];
    for (const tag in values) {
      const unit = this.#units.get(tag);
      if (unit === undefined) continue;
      metrics.push(`${JSON.stringify(tag)}:{"value":${JSON.stringify(values[tag])},"unit":${JSON.stringify(unit)}}`);
    }
    return `{"metadata":{${meta.join(",")}},"metrics":{${metrics.join(",")}},"error":${
      errorJson(record.error, record.cancelled)
    }}`;
  }
}

export interface JsonlWriterOptions extends RecordLineContext {
  /** Flush after this many buffered records. @default 500 */
  readonly flushEveryRecords?: number;
  /** Flush buffered records at least this often, in ms. @default 1000 */
  readonly flushIntervalMs?: number;
}

/** Batched, asynchronous per-record JSONL writer (a LineFileWriter fed by a RecordLineFormatter). */
export class JsonlWriter {
  readonly #lines: LineFileWriter;
  readonly #formatter: RecordLineFormatter;

  private constructor(lines: LineFileWriter, options: JsonlWriterOptions) {
    this.#lines = lines;
    this.#formatter = new RecordLineFormatter(options);
  }

  /** Creates (truncates) `path` and returns a writer for it. */
  static async open(path: string, options: JsonlWriterOptions): Promise<JsonlWriter> {
    const lines = await LineFileWriter.open(path, {
      flushEveryLines: options.flushEveryRecords,
      flushIntervalMs: options.flushIntervalMs,
    });
    return new JsonlWriter(lines, options);
  }

  /** Records handed to the file so far (buffered ones not included). */
  get recordsWritten(): number {
    return this.#lines.linesWritten;
  }

  /** Buffers one record's line; never blocks. */
  write(record: ProcessedRecord, values: RecordMetrics): void {
    this.#lines.writeLine(this.#formatter.format(record, values));
  }

  /**
   * Formats and encodes a record's line without writing it: warmup records go through here so that, when the
   * first profiling requests finish together, this code is already compiled instead of running cold (and being
   * compiled) while streams still running on the same thread wait for their reads to be stamped.
   */
  rehearse(record: ProcessedRecord, values: RecordMetrics): void {
    this.#lines.rehearseLine(this.#formatter.format(record, values));
  }

  /** Hands buffered lines to the file; resolves when everything written so far is on disk. */
  flush(): Promise<void> {
    return this.#lines.flush();
  }

  /** Flushes and closes the file. Safe to call twice. */
  close(): Promise<void> {
    return this.#lines.close();
  }
}
