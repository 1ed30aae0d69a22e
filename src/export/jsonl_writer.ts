/**
 * The per-record `profile_export.jsonl` (AIPerf §3.5): one line per request with `metadata` (AIPerf 0.13's fields
 * in its order), `metrics` (`{tag: {value, unit}}` in display units) and, for a failed request only, `error`
 * (`{code, type, message}`). infermeter adds to `metadata`: `scheduled_ns` (open-loop due time) and `server_timing`
 * (the server's own per-request timing, when it reports one: `{source, queue_ms, prefill_ms, decode_ms,
 * inference_ms, total_ms, prompt_tokens, decode_tokens, cached_tokens}`, each present only when reported).
 *
 * Timestamps are wall-clock epoch **nanoseconds** printed as exact integer digits (they exceed 2^53, so they
 * never pass through a float). Null metadata fields are omitted. Lines are buffered and written in batches
 * with one async `write` on an open file — every `flushEveryRecords` records or `flushIntervalMs` ms,
 * whichever comes first — so the engine's loop never blocks on disk; `close()` flushes everything, which
 * keeps partial results on Ctrl-C.
 */
import type { ProcessedRecord, RecordError } from "../records/request_record.ts";
import { SERVER_TIMING_FIELDS, type ServerTiming } from "../endpoints/server_timing.ts";
import type { MetricDef, RecordMetrics } from "../metrics/metric_def.ts";
import { epochNsDigits } from "./epoch_ns.ts";
import { LineFileWriter } from "./line_file_writer.ts";

export interface RecordLineContext {
  /** The run's metrics (units, and which ones are left out of per-record lines). */
  readonly metrics: readonly MetricDef[];
  /** Epoch ms at run-clock 0. */
  readonly timeOriginMs: number;
  /** `record_processor_id` written on every line. @default "record_processor_0" */
  readonly recordProcessorId?: string;
  /** A warmup phase runs before profiling (which is then phase 1, as in AIPerf). @default false */
  readonly withWarmup?: boolean;
}

/** Per-tag unit lookup for the metrics that belong in per-record lines. */
function unitsOf(metrics: readonly MetricDef[]): ReadonlyMap<string, string> {
  return new Map(
    metrics.filter((def) => def.kind === "record" && !def.flags.noIndividualRecords).map((def) => [def.tag, def.unit]),
  );
}

/** The record's error object, or undefined for a success (AIPerf then leaves the `error` key out). */
export function errorJson(error: RecordError | undefined, cancelled: boolean): string | undefined {
  if (error === undefined && !cancelled) return undefined;
  const e = error ?? { code: 499, type: "RequestCancellationError", message: "Request was cancelled" };
  const code = e.code === undefined ? "" : `"code":${e.code},`;
  return `{${code}"type":${JSON.stringify(e.type)},"message":${JSON.stringify(e.message)}}`;
}

/** JSONL names of a ServerTiming's fields. */
const SERVER_TIMING_KEYS: Readonly<Record<(typeof SERVER_TIMING_FIELDS)[number], string>> = {
  queueMs: "queue_ms",
  prefillMs: "prefill_ms",
  decodeMs: "decode_ms",
  inferenceMs: "inference_ms",
  totalMs: "total_ms",
  promptTokens: "prompt_tokens",
  decodeTokens: "decode_tokens",
  cachedTokens: "cached_tokens",
};

/** `{"source":"llama.cpp","prefill_ms":…,…}`: the fields the server reported, in snake case, ms and tokens. */
export function serverTimingJson(t: ServerTiming): string {
  const out: Record<string, string | number> = { source: t.source };
  for (const f of SERVER_TIMING_FIELDS) {
    const v = t[f];
    if (v !== undefined) out[SERVER_TIMING_KEYS[f]] = v;
  }
  return JSON.stringify(out);
}

/** Phase metadata as AIPerf 0.13 writes it: the warmup phase is index 0 when it runs, profiling the last one;
 * `profiling_index` counts profiling phases only (null for warmup). */
export function phaseFields(phase: string, withWarmup = false): string {
  return phase === "warmup"
    ? `"benchmark_phase":"warmup","phase_index":0,"profiling_index":null,"phase_name":"warmup","phase_kind":"warmup"`
    : `"benchmark_phase":${JSON.stringify(phase)},"phase_index":${withWarmup ? 1 : 0},"profiling_index":0,` +
      `"phase_name":${JSON.stringify(phase)},"phase_kind":${JSON.stringify(phase)}`;
}

/** Formats records with a fixed context (units resolved once). */
export class RecordLineFormatter {
  /** Per-record metric tag → the line's text around its value: `"tag":{"value":` and `,"unit":"ms"}`. */
  readonly #fields: ReadonlyMap<string, readonly [string, string]>;
  readonly #origin: number;
  readonly #processorId: string;
  readonly #withWarmup: boolean;

  constructor(ctx: RecordLineContext) {
    this.#withWarmup = ctx.withWarmup ?? false;
    this.#fields = new Map(
      [...unitsOf(ctx.metrics)].map((
        [tag, unit],
      ) => [tag, [`${JSON.stringify(tag)}:{"value":`, `,"unit":${JSON.stringify(unit)}}`]]),
    );
    this.#origin = ctx.timeOriginMs;
    this.#processorId = JSON.stringify(ctx.recordProcessorId ?? "record_processor_0");
  }

  /**
   * One JSONL line (without the trailing newline). Built by appending to one string, with the constant parts
   * resolved once: formatting runs on the engine thread, ~7 % of its CPU at 1-token answers before that.
   */
  format(record: ProcessedRecord, values: RecordMetrics): string {
    const origin = this.#origin;
    let line = `{"metadata":{"session_num":${record.sessionNum},"x_request_id":${
      JSON.stringify(record.xRequestId)
    },"x_correlation_id":${JSON.stringify(record.xCorrelationId)},"conversation_id":${
      JSON.stringify(record.conversationId)
    },"turn_index":${record.turnIndex},"credit_issued_ns":${
      epochNsDigits(origin, record.creditIssuedAt)
    },"request_start_ns":${epochNsDigits(origin, record.startAt)}`;
    if (record.headersAt !== undefined) line += `,"request_ack_ns":${epochNsDigits(origin, record.headersAt)}`;
    line += `,"request_end_ns":${epochNsDigits(origin, record.endAt)},"worker_id":${
      JSON.stringify(record.workerId)
    },"record_processor_id":${this.#processorId},${
      phaseFields(record.phase, this.#withWarmup)
    },"was_cancelled":${record.cancelled}`;
    if (record.cancelled) line += `,"cancellation_time_ns":${epochNsDigits(origin, record.endAt)}`;
    line += `,"context_overflow_skip":false,"agent_depth":${record.lineage?.agentDepth ?? 0}`;
    if (record.lineage !== undefined) {
      line += `,"parent_correlation_id":${JSON.stringify(record.lineage.parentCorrelationId)}`;
    }
    line += `,"root_correlation_id":${JSON.stringify(record.lineage?.rootCorrelationId ?? record.xCorrelationId)}`;
    // infermeter: when the request was due (open loop, replay, think time); start − scheduled is its lag.
    if (record.scheduledAt !== undefined) line += `,"scheduled_ns":${epochNsDigits(origin, record.scheduledAt)}`;
    // infermeter: the server's own timing split, when it reported one (llama.cpp, TGI, OpenAI, SGLang).
    if (record.serverTiming !== undefined) line += `,"server_timing":${serverTimingJson(record.serverTiming)}`;
    line += `},"metrics":{`;
    let first = true;
    for (const tag in values) {
      const field = this.#fields.get(tag);
      if (field === undefined) continue;
      const value = values[tag];
      // Numbers print as JSON.stringify prints them (NaN and ±Infinity as null); arrays go through it.
      const text = typeof value === "number" && Number.isFinite(value) ? String(value) : JSON.stringify(value);
      line += first ? field[0] + text + field[1] : "," + field[0] + text + field[1];
      first = false;
    }
    const error = errorJson(record.error, record.cancelled);
    return error === undefined ? line + "}}" : line + `},"error":${error}}`;
  }
}

export interface JsonlWriterOptions extends RecordLineContext {
  /** Flush after this many buffered records. @default 500 */
  readonly flushEveryRecords?: number;
  /** Flush buffered records at least this often, in ms. @default 1000 */
  readonly flushIntervalMs?: number;
  /** Called once when a write fails; records from then on are dropped (see LineFileWriter). */
  readonly onFailure?: (error: unknown) => void;
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
      onFailure: options.onFailure,
    });
    return new JsonlWriter(lines, options);
  }

  /** Records handed to the file so far (buffered ones not included). */
  get recordsWritten(): number {
    return this.#lines.linesWritten;
  }

  /** The error of the first failed write, if any. */
  get failure(): unknown {
    return this.#lines.failure;
  }

  /** Records given after a write failed, which were dropped. */
  get recordsDropped(): number {
    return this.#lines.linesDropped;
  }

  /** After a failed write, the file ends in part of a line (it could not be cut back). */
  get endsInPartialLine(): boolean {
    return this.#lines.endsInPartialLine;
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
