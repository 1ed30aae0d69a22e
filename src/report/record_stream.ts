/**
 * Streams the per-request records of a run (`profile_export.jsonl`, infermeter's or AIPerf 0.13's) one line at a
 * time: the file is never held whole, neither as a string nor as parsed JSON, so a run of any length can be read in
 * constant memory. Every report that needs per-request values (charts, confidence intervals) reads them through
 * {@linkcode foldRecords} or {@linkcode iterateRecords}; warm-up records are left out.
 *
 * Each line is read by a fast path that picks the asked-for fields out of the compact one-line JSON both tools
 * write (`"request_start_ns":…`, `"<metric>":{"value":…`), without building the record's objects: about 4 µs for a
 * 2.7 KB record, against 16 µs for `JSON.parse`. A line it cannot vouch for is parsed whole with `JSON.parse`, and
 * both give the same answer: one that does not open with `{"metadata":{`, whose send time is not written
 * `"request_start_ns":<number>` (a space after a colon, as a pretty-printer writes every key, is enough), whose
 * metric values are not `{"value":…` objects, or whose chunk gaps or phase are not plain numbers and names. A line is
 * taken to be written one way throughout, as a JSON writer writes it, with `error`, when present, last (an object
 * whose last member is the message, or null), as both tools write it.
 *
 * Nanosecond epoch stamps exceed 2^53: read as doubles they lose under a microsecond, well below what a report
 * shows.
 */
import { LineSplitter, MAX_LINE_CHARS } from "./line_splitter.ts";
import { LineError, ReportError } from "./report_error.ts";

/** A stream of JSONL bytes and the name its errors give (a path, or anything that names the source). */
export interface RecordByteStream {
  readonly name: string;
  readonly readable: ReadableStream<Uint8Array>;
}

/** A file path, or bytes from elsewhere. */
export type RecordSource = string | RecordByteStream;

/** What to read from each record besides its times and whether it failed. */
export interface RecordQuery {
  /** Metric tags whose per-request `value` to read (`time_to_first_token`, `request_latency`, …). */
  readonly metrics?: readonly string[];
  /**
   * Read the gaps between streamed chunks (`inter_chunk_latency`, ms): of every record, or of those a test of their
   * send and end times (ns) picks — parsing them is a quarter of the reading time, and a caller may not need them
   * for every record. @default false
   */
  readonly chunkGaps?: boolean | ((startNs: number, endNs: number) => boolean);
  /**
   * Read `metrics` only of the records a test of their send and end times (ns) picks, and of the others only those
   * in `always` (a sampler that will not keep a record needs none of its values): the others are left undefined.
   * @default every record's
   */
  readonly metricsOf?: (startNs: number, endNs: number) => boolean;
  /** The metrics read of every record when `metricsOf` declines it. */
  readonly always?: readonly string[];
  /** The longest line accepted. @default MAX_LINE_CHARS */
  readonly maxLineChars?: number;
}

/** One profiling record. */
export interface StreamedRecord {
  /** 1-based line number in the file. */
  readonly line: number;
  /** `request_start_ns`. */
  readonly startNs: number;
  /** `request_end_ns` (the start when the record has none). */
  readonly endNs: number;
  /** Whether the record carries an error. */
  readonly failed: boolean;
  /** The value of each metric asked for, in the order asked; undefined where the record has none (or not a number). */
  readonly values: readonly (number | undefined)[];
  /** The chunk gaps (ms), when asked for (and picked) and the record has them. */
  readonly chunkGapsMs?: readonly number[];
}

const READ_CHUNK_BYTES = 1 << 20;
const CHUNK_GAPS_TAG = "inter_chunk_latency";

/** A query made ready for the fast path; it learns the order of the metrics in the file as it reads. */
class CompiledQuery {
  readonly tags: readonly string[];
  /** `<tag>":{` for each tag (see {@link keyAt}), then the chunk gaps' when asked for. */
  readonly keys: readonly string[];
  readonly chunkGaps: boolean;
  /** Whose gaps to read. */
  readonly wantGaps: (startNs: number, endNs: number) => boolean;
  /** Whose metrics to read, and which of them for every record. */
  readonly wantMetrics: (startNs: number, endNs: number) => boolean;
  readonly always: readonly boolean[];
  /** Key indices in the order the last record had them (absent ones last). */
  order: number[];
  /** Keys the last record did not have: searched once from the start of the metrics (they are usually absent). */
  readonly absent: boolean[];
  readonly #found: number[];

  constructor(query: RecordQuery) {
    this.tags = query.metrics ?? [];
    const gaps = query.chunkGaps ?? false;
    this.chunkGaps = gaps !== false;
    this.wantGaps = typeof gaps === "function" ? gaps : () => true;
    this.wantMetrics = query.metricsOf ?? (() => true);
    this.always = this.tags.map((t) => query.always?.includes(t) ?? false);
    this.keys = [...this.tags, ...(this.chunkGaps ? [CHUNK_GAPS_TAG] : [])].map((t) => `${t}":{`);
    this.order = this.keys.map((_, i) => i);
    this.absent = this.keys.map(() => false);
    this.#found = this.keys.map(() => 0);
  }

  /** Notes where each key was found in a record whose keys came out of the expected order. */
  relearn(found: readonly number[]): void {
    for (let i = 0; i < found.length; i++) this.#found[i] = found[i];
    this.order.sort((a, b) => this.#found[a] - this.#found[b]);
  }
}

/** A value of the record's own choosing: a skipped warm-up record, or a line the fast path hands to JSON.parse. */
const SKIP = null;
const SLOW = undefined;

const METADATA_OPEN = '{"metadata":{';
const VALUE_KEY = '"value":';
// Keys without their opening quote (see keyAt).
const START_KEY = 'request_start_ns":';
const END_KEY = 'request_end_ns":';
const PHASE_KEY = 'benchmark_phase":';
const METRICS_KEY = 'metrics":{';
const ERROR_KEY = '"error":';

/** The number that starts at `at` (up to the next `,`, `}` or `]`), NaN when there is none. */
function numberAt(line: string, at: number): number {
  let end = at;
  for (; end < line.length; end++) {
    const c = line.charCodeAt(end);
    if (c === 44 || c === 125 || c === 93) break;
  }
  return end === at ? NaN : Number(line.slice(at, end));
}

/**
 * Where the key `"<key>` begins at or after `from`, or -1. `key` comes without its opening quote, checked here: a
 * pattern that starts with a letter is found about half again as fast as one that starts with `"`, the commonest
 * character of the line.
 */
function keyAt(line: string, key: string, from: number): number {
  let at = line.indexOf(key, from + 1);
  while (at > 0 && line.charCodeAt(at - 1) !== 34) at = line.indexOf(key, at + 1);
  return at < 0 ? -1 : at - 1;
}

/**
 * Where the key `"<key>` is: searched from `from` (keys usually come in the same order on every line, so each search
 * goes on where the last one stopped and the line is scanned about once), then from `base` when it came earlier; -1.
 */
function find(line: string, key: string, from: number, base: number): number {
  const at = keyAt(line, key, from);
  return at >= 0 || from <= base ? at : keyAt(line, key, base);
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 10;
}

function finite(x: number): number | undefined {
  return Number.isFinite(x) ? x : undefined;
}

/** The chunk gaps of `[a,b,…]` at `open`; {@link SLOW} for anything but numbers. */
function gapsAt(line: string, open: number): number[] | typeof SLOW {
  const close = line.indexOf("]", open);
  if (close < 0) return SLOW;
  const gaps: number[] = [];
  if (close === open + 1) return gaps;
  for (const part of line.slice(open + 1, close).split(",")) {
    const gap = Number(part);
    // Nested arrays, objects, strings and nulls are not numbers: JSON.parse decides what they mean.
    if (part === "" || Number.isNaN(gap)) return SLOW;
    gaps.push(gap);
  }
  return gaps;
}

/**
 * The fields of a compact record line without parsing it whole; {@link SLOW} when the line is not in the shape
 * this reads safely, {@link SKIP} for a warm-up record. The shape is the one infermeter and AIPerf 0.13 write:
 * `metadata` first, then `metrics` (`"<tag>":{"value":…`, any order), then `error` when the request failed.
 */
function fastRecord(line: string, lineNo: number, q: CompiledQuery): StreamedRecord | typeof SKIP | typeof SLOW {
  const base = METADATA_OPEN.length;
  if (!line.startsWith(METADATA_OPEN)) return SLOW;
  const startAt = find(line, START_KEY, base, base);
  if (startAt < 0) return SLOW;
  const startNs = numberAt(line, startAt + 1 + START_KEY.length);
  if (!Number.isFinite(startNs)) return SLOW;
  let pos = startAt + 1 + START_KEY.length;
  const endAt = find(line, END_KEY, pos, base);
  const endNs = endAt < 0 ? startNs : finite(numberAt(line, endAt + 1 + END_KEY.length)) ?? startNs;
  if (endAt > pos) pos = endAt + 1 + END_KEY.length;
  const phaseAt = find(line, PHASE_KEY, pos, base);
  if (phaseAt >= 0) {
    const open = phaseAt + 1 + PHASE_KEY.length;
    if (line.charCodeAt(open) !== 34) return SLOW;
    const close = line.indexOf('"', open + 1);
    if (close < 0) return SLOW;
    const phase = line.slice(open + 1, close);
    if (phase !== "profiling") return phase.includes("\\") ? SLOW : SKIP;
    if (close > pos) pos = close;
  }

  const values: (number | undefined)[] = new Array(q.tags.length).fill(undefined);
  let chunkGapsMs: number[] | undefined;
  const metricsAt = find(line, METRICS_KEY, pos, 0);
  let furthest = metricsAt < 0 ? pos : metricsAt + 1 + METRICS_KEY.length;
  if (metricsAt >= 0) {
    const order = q.order;
    const found: number[] = new Array(q.keys.length).fill(Infinity);
    let from = furthest;
    let inOrder = true;
    const every = q.wantMetrics(startNs, endNs);
    for (let k = 0; k < order.length; k++) {
      const i = order[k];
      if (!every && i < q.tags.length && !q.always[i]) continue;
      const key = q.keys[i];
      const at = q.absent[i] ? keyAt(line, key, metricsAt) : find(line, key, from, metricsAt);
      q.absent[i] = at < 0;
      if (at < 0) continue;
      found[i] = at;
      const v = at + 1 + key.length;
      if (!line.startsWith(VALUE_KEY, v)) return SLOW;
      const value = v + VALUE_KEY.length;
      if (at < from) inOrder = false;
      else from = value;
      if (value > furthest) furthest = value;
      if (i < q.tags.length) {
        values[i] = finite(numberAt(line, value));
      } else if (line.charCodeAt(value) === 91 && q.wantGaps(startNs, endNs)) {
        const gaps = gapsAt(line, value);
        if (gaps === SLOW) return SLOW;
        chunkGapsMs = gaps;
      }
    }
    if (!inOrder && every) q.relearn(found);
  }

  // `error` comes last when present, an object ending with its message string (`…"}}`) or null: a line ending with
  // `}}}` ends with the metrics, and the rest of the line need not be searched.
  const errorAt = line.endsWith("}}}") ? -1 : line.indexOf(ERROR_KEY, furthest);
  let value = errorAt + ERROR_KEY.length;
  while (errorAt >= 0 && isSpace(line.charCodeAt(value))) value++;
  const failed = errorAt >= 0 && !line.startsWith("null", value);
  return { line: lineNo, startNs, endNs, failed, values, chunkGapsMs };
}

function metricValue(metrics: Record<string, unknown>, tag: string): unknown {
  const m = metrics[tag];
  return typeof m === "object" && m !== null ? (m as { value?: unknown }).value : undefined;
}

function numberOf(x: unknown): number | undefined {
  return typeof x === "number" && Number.isFinite(x) ? x : undefined;
}

/** The same fields, by parsing the line whole: any valid JSON layout, and the errors that name what is wrong. */
function slowRecord(line: string, name: string, lineNo: number, q: CompiledQuery): StreamedRecord | typeof SKIP {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (e) {
    throw new LineError(name, lineNo, `not valid JSON (${e instanceof Error ? e.message : String(e)}).`);
  }
  const meta = (json as { metadata?: Record<string, unknown> } | null)?.metadata;
  if (typeof meta !== "object" || meta === null) {
    throw new LineError(name, lineNo, `not a per-request record (no "metadata" object).`);
  }
  if (meta.benchmark_phase !== undefined && meta.benchmark_phase !== "profiling") return SKIP;
  const startNs = numberOf(meta.request_start_ns);
  if (startNs === undefined) throw new LineError(name, lineNo, "the record has no request_start_ns.");
  const endNs = numberOf(meta.request_end_ns) ?? startNs;
  const rawMetrics = (json as { metrics?: unknown }).metrics;
  const metrics = typeof rawMetrics === "object" && rawMetrics !== null ? rawMetrics as Record<string, unknown> : {};
  const error = (json as { error?: unknown }).error;
  const values = q.tags.map((tag) => numberOf(metricValue(metrics, tag)));
  let chunkGapsMs: number[] | undefined;
  if (q.chunkGaps && q.wantGaps(startNs, endNs)) {
    const gaps = metricValue(metrics, CHUNK_GAPS_TAG);
    if (Array.isArray(gaps)) chunkGapsMs = gaps.filter((g): g is number => typeof g === "number");
  }
  return { line: lineNo, startNs, endNs, failed: error !== null && error !== undefined, values, chunkGapsMs };
}

/** The record on one line, or undefined for a blank line or a warm-up record. */
function readLine(line: string, name: string, lineNo: number, q: CompiledQuery): StreamedRecord | undefined {
  const fast = fastRecord(line, lineNo, q);
  if (fast !== SLOW) return fast ?? undefined;
  if (line.trim() === "") return undefined;
  return slowRecord(line, name, lineNo, q) ?? undefined;
}

/** A part of a file: the lines that begin at a byte offset in `[start, end)`. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/**
 * The bytes of the lines of `path` that begin in `range` (the whole file without one), a chunk at a time. The next
 * chunk is read (off the JavaScript thread) while the caller works on the current one, into the other of two
 * buffers: each chunk is used before the generator is resumed.
 */
async function* fileChunks(path: string, range?: ByteRange): AsyncGenerator<Uint8Array> {
  using file = await Deno.open(path, { read: true });
  if (!(await file.stat()).isFile) throw new ReportError(`${path}: not a regular file.`);
  // A range that does not start the file starts after the first newline at or after its start − 1.
  let skipping = range !== undefined && range.start > 0;
  let pos = skipping ? range!.start - 1 : 0;
  if (skipping) await file.seek(pos, Deno.SeekMode.Start);
  // The range's last line is the one holding byte end − 1: it ends at the first newline at or after it.
  const lastByte = range === undefined ? Infinity : range.end - 1;
  const buffers = [new Uint8Array(READ_CHUNK_BYTES), new Uint8Array(READ_CHUNK_BYTES)];
  let current = 0;
  let next: Promise<number | null> | undefined = file.read(buffers[0]);
  try {
    for (;;) {
      const n = await next;
      next = undefined;
      if (n === null) return;
      let chunk = buffers[current].subarray(0, n);
      current ^= 1;
      if (skipping) {
        const nl = chunk.indexOf(10);
        pos += nl < 0 ? n : nl + 1;
        if (nl < 0) {
          next = file.read(buffers[current]);
          continue;
        }
        chunk = chunk.subarray(nl + 1);
        skipping = false;
        if (pos > lastByte) return; // one line covers the whole range: it belongs to the range it begins in
      }
      if (pos + chunk.length > lastByte) {
        const nl = chunk.indexOf(10, Math.max(0, lastByte - pos));
        if (nl >= 0) {
          yield chunk.subarray(0, nl + 1);
          return;
        }
      }
      pos += chunk.length;
      next = file.read(buffers[current]);
      yield chunk;
    }
  } finally {
    // Stopped early: the read in flight ends before the file closes.
    await next?.catch(() => null);
  }
}

/** The decoded text of a source, piece by piece (each piece is used before the next is read). */
async function* textPieces(source: RecordSource, range?: ByteRange): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const chunks = typeof source === "string" ? fileChunks(source, range) : source.readable;
  for await (const chunk of chunks) yield decoder.decode(chunk, { stream: true });
  const last = decoder.decode();
  if (last.length > 0) yield last;
}

function sourceName(source: RecordSource): string {
  return typeof source === "string" ? source : source.name;
}

function readFailure(name: string, err: unknown): unknown {
  if (err instanceof ReportError || err instanceof Deno.errors.NotFound) return err;
  return new ReportError(`${name}: cannot read it (${err instanceof Error ? err.message : String(err)}).`);
}

/** Stops a line scan early when a visitor returns it. */
export const STOP = true;

/**
 * Calls `visit` with every line of `source` (or of the lines of a file that begin in `range`) and its number, in
 * order, never holding more than one line, until the end or until `visit` returns {@link STOP}; returns how many
 * lines it read. Any other reader of a per-request JSONL uses this or {@linkcode scanRecords}.
 * @throws {Deno.errors.NotFound} when the file does not exist.
 * @throws {LineError} for a line over `maxLineChars` (or what `visit` throws).
 * @throws {ReportError} naming the file when it cannot be read or is not a regular file.
 */
export async function scanLines(
  source: RecordSource,
  visit: (text: string, lineNumber: number) => boolean | void,
  options: { readonly range?: ByteRange; readonly maxLineChars?: number } = {},
): Promise<number> {
  const name = sourceName(source);
  const splitter = new LineSplitter(name, options.maxLineChars ?? MAX_LINE_CHARS);
  let stopped = false;
  const onLine = (text: string, lineNo: number) => {
    if (!stopped && visit(text, lineNo) === STOP) stopped = true;
  };
  const pieces = textPieces(source, options.range);
  try {
    for await (const piece of pieces) {
      splitter.push(piece, onLine);
      if (stopped) break;
    }
    if (!stopped) splitter.end(onLine);
  } catch (err) {
    throw readFailure(name, err);
  }
  return splitter.lines;
}

/**
 * Calls `visit` with every profiling record of `source` (or of the lines of a file that begin in `range`), in
 * order, and returns how many lines it read (blank lines and warm-up records included).
 * @throws {Deno.errors.NotFound} when the file does not exist.
 * @throws {LineError} for a line that is not a record (its number counts from the range's first line).
 * @throws {ReportError} naming the file when it cannot be read.
 */
export async function scanRecords(
  source: RecordSource,
  query: RecordQuery,
  visit: (record: StreamedRecord) => void,
  range?: ByteRange,
): Promise<number> {
  const name = sourceName(source);
  const q = new CompiledQuery(query);
  return await scanLines(source, (text, lineNo) => {
    const record = readLine(text, name, lineNo, q);
    if (record !== undefined) visit(record);
  }, { range, maxLineChars: query.maxLineChars });
}

/**
 * Folds every profiling record of `source` into a value, in file order: the fastest way through a large file.
 * @throws {Deno.errors.NotFound} when the file does not exist.
 * @throws {ReportError} naming the file and line of a line that is not a record, or the file when it cannot be read.
 */
export async function foldRecords<S>(
  source: RecordSource,
  query: RecordQuery,
  init: S,
  step: (state: S, record: StreamedRecord) => S,
): Promise<S> {
  let state = init;
  await scanRecords(source, query, (record) => {
    state = step(state, record);
  });
  return state;
}

/**
 * Every profiling record of `source`, in file order (see {@linkcode foldRecords}; stopping early closes the file).
 * @throws {Deno.errors.NotFound} when the file does not exist.
 * @throws {ReportError} as {@linkcode foldRecords} does.
 */
export async function* iterateRecords(source: RecordSource, query: RecordQuery = {}): AsyncGenerator<StreamedRecord> {
  const name = sourceName(source);
  const q = new CompiledQuery(query);
  const splitter = new LineSplitter(name, query.maxLineChars ?? MAX_LINE_CHARS);
  let batch: StreamedRecord[] = [];
  const visit = (text: string, lineNo: number) => {
    const record = readLine(text, name, lineNo, q);
    if (record !== undefined) batch.push(record);
  };
  const pieces = textPieces(source);
  try {
    for (;;) {
      let done: boolean | undefined;
      try {
        const next = await pieces.next();
        done = next.done;
        if (next.done) splitter.end(visit);
        else splitter.push(next.value, visit);
      } catch (err) {
        throw readFailure(name, err);
      }
      const ready = batch;
      batch = [];
      yield* ready;
      if (done) return;
    }
  } finally {
    // Stopped early: the file is closed (the stream cancelled).
    await pieces.return(undefined);
  }
}
