/**
 * The per-request records of a run (`profile_export.jsonl`, infermeter's or AIPerf 0.13's), reduced to what other
 * tools' metric definitions need: when each request started and ended, when each streamed content chunk arrived,
 * and its token counts from the client tokenizer and from the server's `usage`.
 *
 * Times are milliseconds since the earliest `request_start_ns` of the profiling records. Chunk arrivals are rebuilt
 * exactly from the record: the first at `start + time_to_first_token`, each later one at the previous one plus its
 * `inter_chunk_latency` gap. Warm-up records are left out, as every tool leaves its warm-up out.
 */
import { recordsPathOf } from "../run_files.ts";
import { ReportError } from "../report_error.ts";
import { scanLines } from "../record_stream.ts";

/** One request as the peers' definitions see it. */
export interface PeerRecord {
  /** 1-based line in the file (for messages). */
  readonly line: number;
  /** No error and not cancelled. */
  readonly ok: boolean;
  /** Request bytes about to be written (`request_start_ns`), ms since the run's first request. */
  readonly startMs: number;
  /** Last byte received, or when the failure was detected (`request_end_ns`). */
  readonly endMs: number;
  /** Arrival of each content chunk (text, reasoning or tool calls), ms since the run's first request; empty when
   * the response was not streamed or carried no content. */
  readonly chunkTimesMs: readonly number[];
  /** `request_latency`: start to the last content chunk (AIPerf's end of a request). */
  readonly latencyMs?: number;
  /** `output_sequence_length`: output + reasoning tokens, client tokenizer (or server counts when the run used them). */
  readonly outputTokens?: number;
  /** `usage_completion_tokens`: the server's own count, when it sent usage. */
  readonly serverOutputTokens?: number;
  /** `input_sequence_length`: prompt tokens, client tokenizer. */
  readonly inputTokens?: number;
  /** `usage_prompt_tokens`: the server's own prompt count. */
  readonly serverInputTokens?: number;
  /** `metadata.server_timing`: the server's own timing split, when it reported one (ms and tokens). */
  readonly serverTiming?: RecordServerTiming;
}

/** The server timing as the JSONL carries it (`metadata.server_timing`, snake case there). */
export interface RecordServerTiming {
  readonly source: string;
  readonly queueMs?: number;
  readonly prefillMs?: number;
  readonly decodeMs?: number;
  readonly inferenceMs?: number;
  readonly totalMs?: number;
  readonly promptTokens?: number;
  readonly decodeTokens?: number;
  readonly cachedTokens?: number;
}

const TIMING_KEYS = {
  queue_ms: "queueMs",
  prefill_ms: "prefillMs",
  decode_ms: "decodeMs",
  inference_ms: "inferenceMs",
  total_ms: "totalMs",
  prompt_tokens: "promptTokens",
  decode_tokens: "decodeTokens",
  cached_tokens: "cachedTokens",
} as const;

function readServerTiming(x: unknown, where: string): RecordServerTiming | undefined {
  if (x === undefined || x === null) return undefined;
  if (typeof x !== "object" || Array.isArray(x)) throw new ReportError(`${where}: server_timing is not an object.`);
  const o = x as Record<string, unknown>;
  if (typeof o.source !== "string") throw new ReportError(`${where}: server_timing has no source.`);
  const out: Record<string, unknown> = { source: o.source };
  for (const [key, field] of Object.entries(TIMING_KEYS)) {
    const v = o[key];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw new ReportError(`${where}: server_timing.${key} is ${JSON.stringify(v)}, not a number.`);
    }
    out[field] = v;
  }
  return out as unknown as RecordServerTiming;
}

/** The records of one run, with what was read. */
export interface PeerRecordSet {
  readonly records: readonly PeerRecord[];
  /** The file read. */
  readonly path: string;
  /** Lines that were warm-up records and left out. */
  readonly warmupLines: number;
}

function metricValue(metrics: Record<string, unknown>, tag: string): unknown {
  const m = metrics[tag];
  return typeof m === "object" && m !== null ? (m as { value?: unknown }).value : undefined;
}

function numberOf(x: unknown): number | undefined {
  return typeof x === "number" && Number.isFinite(x) ? x : undefined;
}

interface RawLine {
  readonly line: number;
  readonly serverTiming: unknown;
  readonly startNs: number;
  readonly endNs: number;
  readonly ok: boolean;
  readonly metrics: Record<string, unknown>;
}

/** A metric present in the line must have the right type; a wrong one is a broken file, not a missing value. */
function checkedNumber(metrics: Record<string, unknown>, tag: string, where: string): number | undefined {
  const v = metricValue(metrics, tag);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number") throw new ReportError(`${where}: metric ${tag} is ${JSON.stringify(v)}, not a number.`);
  return Number.isFinite(v) ? v : undefined;
}

function parseLine(text: string, where: string, line: number): RawLine | "warmup" {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ReportError(`${where}: not valid JSON (${e instanceof Error ? e.message : String(e)}).`);
  }
  const meta = (json as { metadata?: Record<string, unknown> } | null)?.metadata;
  if (typeof meta !== "object" || meta === null) {
    throw new ReportError(`${where}: not a per-request record (no "metadata" object).`);
  }
  if (meta.benchmark_phase !== undefined && meta.benchmark_phase !== "profiling") return "warmup";
  const startNs = numberOf(meta.request_start_ns);
  if (startNs === undefined) throw new ReportError(`${where}: the record has no request_start_ns.`);
  const endNs = numberOf(meta.request_end_ns) ?? startNs;
  const metrics = (json as { metrics?: unknown }).metrics ?? {};
  if (typeof metrics !== "object" || metrics === null || Array.isArray(metrics)) {
    throw new ReportError(`${where}: "metrics" is not an object.`);
  }
  const error = (json as { error?: unknown }).error;
  const ok = (error === null || error === undefined) && meta.was_cancelled !== true;
  return { line, startNs, endNs, ok, metrics: metrics as Record<string, unknown>, serverTiming: meta.server_timing };
}

/** Collects a file's records line by line. */
class PeerRecordCollector {
  readonly #raw: RawLine[] = [];
  #warmupLines = 0;

  constructor(readonly path: string) {}

  add(row: string, line: number): void {
    if (row.trim() === "") return;
    const parsed = parseLine(row, `${this.path}:${line}`, line);
    if (parsed === "warmup") this.#warmupLines++;
    else this.#raw.push(parsed);
  }

  finish(): PeerRecordSet {
    let originNs = Infinity;
    for (const r of this.#raw) originNs = Math.min(originNs, r.startNs);
    return {
      records: this.#raw.map((r) => toRecord(r, originNs, this.path)),
      path: this.path,
      warmupLines: this.#warmupLines,
    };
  }
}

/**
 * Reads the records from the text of a per-request JSONL file.
 * @throws {ReportError} naming `path:line` for a line that is not a record or has a value of the wrong type.
 */
export function parsePeerRecords(text: string, path: string): PeerRecordSet {
  const collector = new PeerRecordCollector(path);
  text.split("\n").forEach((row, i) => collector.add(row, i + 1));
  return collector.finish();
}

/**
 * Epoch nanoseconds exceed 2^53: as doubles they keep 256 ns steps, far below any difference reported here. The
 * chunk times are rebuilt from the exact millisecond metrics, not from those stamps.
 */
function toRecord(r: RawLine, originNs: number, path: string): PeerRecord {
  const where = `${path}:${r.line}`;
  const startMs = (r.startNs - originNs) / 1e6;
  const ttft = checkedNumber(r.metrics, "time_to_first_token", where);
  const gaps = metricValue(r.metrics, "inter_chunk_latency");
  const gapList: number[] = [];
  if (gaps !== undefined && gaps !== null) {
    if (!Array.isArray(gaps)) throw new ReportError(`${where}: metric inter_chunk_latency is not a list.`);
    for (const gap of gaps) {
      if (typeof gap !== "number" || !Number.isFinite(gap)) {
        throw new ReportError(`${where}: inter_chunk_latency holds ${JSON.stringify(gap)}, not a number.`);
      }
      gapList.push(gap);
    }
  }
  const chunkTimesMs: number[] = [];
  if (ttft !== undefined) {
    let t = startMs + ttft;
    chunkTimesMs.push(t);
    for (const gap of gapList) chunkTimesMs.push(t += gap);
  }
  return {
    line: r.line,
    ok: r.ok,
    startMs,
    endMs: (r.endNs - originNs) / 1e6,
    chunkTimesMs,
    latencyMs: checkedNumber(r.metrics, "request_latency", where),
    outputTokens: checkedNumber(r.metrics, "output_sequence_length", where) ??
      checkedNumber(r.metrics, "output_token_count", where),
    serverOutputTokens: checkedNumber(r.metrics, "usage_completion_tokens", where),
    inputTokens: checkedNumber(r.metrics, "input_sequence_length", where),
    serverInputTokens: checkedNumber(r.metrics, "usage_prompt_tokens", where),
    serverTiming: readServerTiming(r.serverTiming, where),
  };
}

/** Milliseconds from a record's start to its first content chunk; undefined when nothing was streamed. */
export function ttftMs(r: PeerRecord): number | undefined {
  return r.chunkTimesMs.length > 0 ? r.chunkTimesMs[0] - r.startMs : undefined;
}

/** Gaps between consecutive content chunks, ms. */
export function chunkGapsMs(r: PeerRecord): number[] {
  const t = r.chunkTimesMs;
  const gaps: number[] = [];
  for (let i = 1; i < t.length; i++) gaps.push(t[i] - t[i - 1]);
  return gaps;
}

/** The name of the per-request records file in a run directory. */
export const RECORDS_FILE = "profile_export.jsonl";

/**
 * The records of the run in `dir` (its manifest's records file, else AIPerf's name), or of the file at `path`.
 * @throws {ReportError} when the directory has no records file (e.g. `--export-level summary`) or it is malformed.
 */
export async function readPeerRecords(dir: string, path?: string): Promise<PeerRecordSet> {
  path ??= await recordsPathOf(dir.replace(/\/+$/, ""));
  const collector = new PeerRecordCollector(path);
  try {
    // Streamed: a file of any size is read a line at a time (a device in its place is refused as not a file).
    await scanLines(path, (row, line) => collector.add(row, line));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new ReportError(
        `${path}: not found; peers' metrics are computed from the per-request records, which a run writes unless ` +
          "--export-level summary was given.",
      );
    }
    throw e;
  }
  return collector.finish();
}
