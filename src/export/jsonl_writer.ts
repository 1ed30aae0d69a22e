/**
 * The per-record `profile_export.jsonl` (AIPerf §3.5): one line per request with `metadata` (AIPerf 0.13's fields
 * in its order), `metrics` (`{tag: {value, unit}}` in display units) and, for a failed request only, `error`
 * (`{code, type, message}`), with `spec_decode_acceptance` (AIPerf's engine-neutral speculative-decoding record) between
 * them when the server reported one. infermeter adds to `metadata`: `scheduled_ns` (open-loop due time) and `server_timing`
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
import { RecordRow, type RowLayout } from "../metrics/record_row.ts";
import { specDecodeJson } from "../endpoints/spec_decode.ts";
import { LineFileWriter } from "./line_file_writer.ts";
import { JsonBytes, utf8 } from "./json_bytes.ts";

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

/**
 * The metrics' part of the lines of one shape of row (a layout and which of its slots have values): the slots written,
 * in order, each with the constant bytes before its value (the previous field's end, the comma and this field's start,
 * joined beforehand), and the bytes after the last value.
 */
interface RowPlan {
  readonly layout: RowLayout;
  readonly present: Uint32Array;
  readonly slots: Int32Array;
  readonly pieces: readonly Uint8Array[];
  readonly end: Uint8Array;
  /** Per place, the last number written there and its digits (`NaN`, equal to nothing, where none was). */
  readonly lastValues: Float64Array;
  readonly lastDigits: string[];
}

/** Row shapes a formatter keeps plans for; a run has a few (succeeded or failed, streamed or not). */
const MAX_ROW_PLANS = 16;

/** Formats records with a fixed context (units and constant pieces resolved once). */
export class RecordLineFormatter {
  /** Per-record metric tag → the line's bytes around its value: `"tag":{"value":` and `,"unit":"ms"}`. */
  readonly #fields: ReadonlyMap<string, readonly [Uint8Array, Uint8Array]>;
  readonly #origin: number;
  /** `,"worker_id":`-to-`record_processor_id` constant tail, and each phase's fields, as bytes. */
  readonly #processorId: Uint8Array;
  readonly #phases = new Map<string, Uint8Array>();
  readonly #withWarmup: boolean;
  /** The line being built (reused: see json_bytes.ts). */
  readonly #out = new JsonBytes();
  /**
   * The metrics' tags of the last record written tag by tag, in their order, and for each the bytes before its value
   * (undefined: a tag left out of per-record lines), then the bytes after the last value.
   */
  #planTags: readonly string[] = [];
  #planPieces: readonly (Uint8Array | undefined)[] = [];
  /**
   * Per place of the plan, the last finite number written there and its digits: a metric that keeps its value from
   * record to record (a request's bytes in KB, a count) skips the number-to-digits conversion, the costliest step
   * of a line's numbers. `NaN` (equal to nothing) where none was written.
   */
  #planValues: number[] = [];
  #planDigits: string[] = [];
  #planEnd: Uint8Array = EMPTY_BYTES;
  /** The plans of the row shapes seen, the last one used first. */
  #rowPlans: RowPlan[] = [];

  constructor(ctx: RecordLineContext) {
    this.#withWarmup = ctx.withWarmup ?? false;
    this.#fields = new Map(
      [...unitsOf(ctx.metrics)].map((
        [tag, unit],
      ) => [tag, [utf8(`${JSON.stringify(tag)}:{"value":`), utf8(`,"unit":${JSON.stringify(unit)}}`)]]),
    );
    this.#origin = ctx.timeOriginMs;
    this.#processorId = utf8(
      `,"record_processor_id":${JSON.stringify(ctx.recordProcessorId ?? "record_processor_0")},`,
    );
  }

  /** One JSONL line (without the trailing newline). */
  format(record: ProcessedRecord, values: RecordRow | RecordMetrics): string {
    return this.formatInto(record, values).text();
  }

  /**
   * One JSONL line (without the trailing newline) as UTF-8 bytes in a buffer reused by the next call: the same
   * bytes as encoding {@linkcode format}'s text, built without the line's string (see json_bytes.ts).
   */
  formatInto(record: ProcessedRecord, values: RecordRow | RecordMetrics): JsonBytes {
    const origin = this.#origin;
    const out = this.#out;
    out.reset();
    out.raw(P_SESSION);
    out.chars(String(record.sessionNum));
    out.raw(P_REQUEST_ID);
    out.string(record.xRequestId);
    out.raw(P_CORRELATION_ID);
    out.string(record.xCorrelationId);
    out.raw(P_CONVERSATION_ID);
    out.string(record.conversationId);
    out.raw(P_TURN);
    out.chars(String(record.turnIndex));
    out.raw(P_CREDIT);
    out.epochNs(origin, record.creditIssuedAt);
    out.raw(P_START);
    out.epochNs(origin, record.startAt);
    if (record.headersAt !== undefined) {
      out.raw(P_ACK);
      out.epochNs(origin, record.headersAt);
    }
    out.raw(P_END);
    out.epochNs(origin, record.endAt);
    out.raw(P_WORKER);
    out.string(record.workerId);
    out.raw(this.#processorId);
    out.raw(this.#phaseBytes(record.phase));
    out.raw(record.cancelled ? P_CANCELLED_TRUE : P_CANCELLED_FALSE);
    if (record.cancelled) {
      out.raw(P_CANCELLATION_TIME);
      out.epochNs(origin, record.endAt);
    }
    const lineage = record.lineage;
    out.raw(P_DEPTH);
    out.chars(lineage === undefined ? "0" : String(lineage.agentDepth));
    if (lineage !== undefined) {
      out.raw(P_PARENT);
      out.string(lineage.parentCorrelationId);
    }
    out.raw(P_ROOT);
    out.string(lineage?.rootCorrelationId ?? record.xCorrelationId);
    // infermeter: when the request was due (open loop, replay, think time); start − scheduled is its lag.
    if (record.scheduledAt !== undefined) {
      out.raw(P_SCHEDULED);
      out.epochNs(origin, record.scheduledAt);
    }
    // infermeter: the server's own timing split, when it reported one (llama.cpp, TGI, OpenAI, SGLang).
    if (record.serverTiming !== undefined) {
      out.raw(P_SERVER_TIMING);
      out.chars(serverTimingJson(record.serverTiming));
    }
    out.raw(P_METRICS);
    if (values instanceof RecordRow) this.#metricsOfRow(values);
    else if (!this.#metricsByPlan(values)) this.#metricsByTag(values);
    const error = errorJson(record.error, record.cancelled);
    // AIPerf's engine-neutral speculative-decoding record, after the metrics, when the server reported one.
    if (record.specDecode !== undefined) {
      out.raw(P_SPEC_DECODE);
      out.chars(JSON.stringify(specDecodeJson(record.specDecode)));
      if (error === undefined) out.raw(P_CLOSE);
      else {
        out.raw(P_ERROR_AFTER_SPEC);
        out.chars(error);
        out.raw(P_CLOSE);
      }
      return out;
    }
    if (error === undefined) out.raw(P_END_LINE);
    else {
      out.raw(P_ERROR);
      out.chars(error);
      out.raw(P_CLOSE);
    }
    return out;
  }

  /**
   * The metrics' fields, one by one: each tag's pieces looked up, a comma between fields. Also makes the plan that
   * {@linkcode #metricsByPlan} follows for the next records whose values have the same tags in the same order.
   */
  #metricsByTag(values: RecordMetrics): void {
    const out = this.#out;
    const tags: string[] = [];
    const pieces: (Uint8Array | undefined)[] = [];
    let last: Uint8Array | undefined;
    for (const tag in values) {
      tags.push(tag);
      const field = this.#fields.get(tag);
      if (field === undefined) {
        pieces.push(undefined);
        continue;
      }
      if (last !== undefined) out.raw(P_COMMA);
      pieces.push(last === undefined ? field[0] : new Uint8Array([...last, ...P_COMMA, ...field[0]]));
      out.raw(field[0]);
      // Numbers print as JSON.stringify prints them (NaN and ±Infinity as null), lists as JSON arrays.
      const value = values[tag];
      if (typeof value === "number") out.number(value);
      else out.numbers(value);
      out.raw(field[1]);
      last = field[1];
    }
    this.#planTags = tags;
    this.#planPieces = pieces;
    this.#planValues = tags.map(() => NaN);
    this.#planDigits = tags.map(() => "");
    this.#planEnd = last ?? EMPTY_BYTES;
  }

  /**
   * The metrics' fields by the plan the last record of another shape left: the same bytes as
   * {@linkcode #metricsByTag}, with one constant piece before each value (the previous field's end, the comma and
   * this field's start, joined beforehand) and no lookup per tag. False, with nothing written, when `values` has
   * other tags or another order than the plan (a record of another shape).
   */
  #metricsByPlan(values: RecordMetrics): boolean {
    const tags = this.#planTags;
    const pieces = this.#planPieces;
    const lastValues = this.#planValues;
    const lastDigits = this.#planDigits;
    const out = this.#out;
    const mark = out.at;
    let k = 0;
    // The last number converted on this line, and its digits: metrics that follow one another often share a value
    // (a streamed 1-token answer's latency, TTFT and TTFOT; a new connection's connecting time and its overhead).
    let prevValue = NaN;
    let prevDigits = "";
    for (const tag in values) {
      if (k === tags.length || tags[k] !== tag) {
        out.at = mark;
        return false;
      }
      const piece = pieces[k++];
      if (piece === undefined) continue;
      out.raw(piece);
      const value = values[tag];
      if (typeof value !== "number") out.numbers(value);
      else if (value === lastValues[k - 1]) out.chars(lastDigits[k - 1]);
      else if (!Number.isFinite(value)) out.number(value);
      else {
        // The digits JSON.stringify gives a finite number (-0 as "0", like 0).
        const digits = value === prevValue ? prevDigits : String(value);
        prevValue = lastValues[k - 1] = value;
        prevDigits = lastDigits[k - 1] = digits;
        out.chars(digits);
      }
    }
    if (k !== tags.length) {
      out.at = mark;
      return false;
    }
    out.raw(this.#planEnd);
    return true;
  }

  /**
   * The metrics' fields of a row, by the plan of its shape (made at its first record): the same bytes as
   * {@linkcode #metricsByTag} given the row's values keyed by tag, with no lookup per tag.
   */
  #metricsOfRow(row: RecordRow): void {
    const plan = this.#rowPlan(row);
    const { slots, pieces, lastValues, lastDigits } = plan;
    const nums = row.nums, lists = row.lists;
    const out = this.#out;
    // The last number converted on this line, and its digits: metrics that follow one another often share a value
    // (a streamed 1-token answer's latency, TTFT and TTFOT; a new connection's connecting time and its overhead).
    let prevValue = NaN;
    let prevDigits = "";
    for (let k = 0; k < slots.length; k++) {
      const slot = slots[k];
      out.raw(pieces[k]);
      const list = lists[slot];
      if (list !== undefined) {
        out.numbers(list);
        continue;
      }
      const value = nums[slot];
      if (value === lastValues[k]) out.chars(lastDigits[k]);
      else if (!Number.isFinite(value)) out.number(value);
      else {
        // The digits JSON.stringify gives a finite number (-0 as "0", like 0).
        const digits = value === prevValue ? prevDigits : String(value);
        prevValue = lastValues[k] = value;
        prevDigits = lastDigits[k] = digits;
        out.chars(digits);
      }
    }
    out.raw(plan.end);
  }

  /** The plan of `row`'s shape: found among the kept ones (the last used first), else made and kept. */
  #rowPlan(row: RecordRow): RowPlan {
    const plans = this.#rowPlans;
    const present = row.present;
    for (let p = 0; p < plans.length; p++) {
      const plan = plans[p];
      if (plan.layout !== row.layout) continue;
      let same = true;
      for (let w = 0; w < present.length; w++) {
        if (plan.present[w] !== present[w]) {
          same = false;
          break;
        }
      }
      if (!same) continue;
      if (p > 0) {
        plans.splice(p, 1);
        plans.unshift(plan);
      }
      return plan;
    }
    const slots: number[] = [];
    const pieces: Uint8Array[] = [];
    let last: Uint8Array | undefined;
    const tags = row.layout.tags;
    for (let i = 0; i < tags.length; i++) {
      if ((present[i >>> 5] & (1 << (i & 31))) === 0) continue;
      const field = this.#fields.get(tags[i]);
      if (field === undefined) continue;
      slots.push(i);
      pieces.push(last === undefined ? field[0] : new Uint8Array([...last, ...P_COMMA, ...field[0]]));
      last = field[1];
    }
    const plan: RowPlan = {
      layout: row.layout,
      present: present.slice(),
      slots: Int32Array.from(slots),
      pieces,
      end: last ?? EMPTY_BYTES,
      lastValues: new Float64Array(slots.length).fill(NaN),
      lastDigits: slots.map(() => ""),
    };
    if (plans.length >= MAX_ROW_PLANS) plans.pop();
    plans.unshift(plan);
    return plan;
  }

  #phaseBytes(phase: string): Uint8Array {
    let bytes = this.#phases.get(phase);
    if (bytes === undefined) this.#phases.set(phase, bytes = utf8(phaseFields(phase, this.#withWarmup)));
    return bytes;
  }
}

// The constant pieces of a line, in order.
const EMPTY_BYTES = new Uint8Array(0);
const P_SESSION = utf8(`{"metadata":{"session_num":`);
const P_REQUEST_ID = utf8(`,"x_request_id":`);
const P_CORRELATION_ID = utf8(`,"x_correlation_id":`);
const P_CONVERSATION_ID = utf8(`,"conversation_id":`);
const P_TURN = utf8(`,"turn_index":`);
const P_CREDIT = utf8(`,"credit_issued_ns":`);
const P_START = utf8(`,"request_start_ns":`);
const P_ACK = utf8(`,"request_ack_ns":`);
const P_END = utf8(`,"request_end_ns":`);
const P_WORKER = utf8(`,"worker_id":`);
const P_CANCELLED_TRUE = utf8(`,"was_cancelled":true`);
const P_CANCELLED_FALSE = utf8(`,"was_cancelled":false`);
const P_CANCELLATION_TIME = utf8(`,"cancellation_time_ns":`);
const P_DEPTH = utf8(`,"context_overflow_skip":false,"agent_depth":`);
const P_PARENT = utf8(`,"parent_correlation_id":`);
const P_ROOT = utf8(`,"root_correlation_id":`);
const P_SCHEDULED = utf8(`,"scheduled_ns":`);
const P_SERVER_TIMING = utf8(`,"server_timing":`);
const P_METRICS = utf8(`},"metrics":{`);
const P_COMMA = utf8(",");
const P_END_LINE = utf8("}}");
const P_ERROR = utf8(`},"error":`);
const P_CLOSE = utf8("}");
const P_SPEC_DECODE = utf8(`},"spec_decode_acceptance":`);
const P_ERROR_AFTER_SPEC = utf8(`,"error":`);

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
  write(record: ProcessedRecord, values: RecordRow | RecordMetrics): void {
    this.#lines.writeBytes(this.#formatter.formatInto(record, values).bytes());
  }

  /**
   * Formats and encodes a record's line without writing it: warmup records go through here so that, when the
   * first profiling requests finish together, this code is already compiled instead of running cold (and being
   * compiled) while streams still running on the same thread wait for their reads to be stamped.
   */
  rehearse(record: ProcessedRecord, values: RecordRow | RecordMetrics): void {
    this.#formatter.formatInto(record, values);
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
