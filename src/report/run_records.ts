/**
 * The per-request records of a run (`profile_export.jsonl`, ours or AIPerf 0.13's), reduced to what the charts
 * draw: when each request was sent and ended, its latencies and lengths, and when each streamed chunk arrived.
 *
 * Times are milliseconds since the earliest `request_start_ns` of the file, so a chart's time axis starts at 0.
 * Chunk arrival times are rebuilt exactly from the record: the first chunk at `start + TTFT`, each later one at the
 * previous one plus its `inter_chunk_latency` gap.
 */
import { recordsPathOf } from "./run_files.ts";
import { ReportError } from "./report_error.ts";

/** One request, as charts need it. */
export interface RequestPoint {
  /** Send time, ms since the first request of the run. */
  readonly startMs: number;
  /** End time (last byte), ms since the first request of the run. */
  readonly endMs: number;
  readonly failed: boolean;
  readonly latencyMs?: number;
  readonly ttftMs?: number;
  readonly itlMs?: number;
  readonly outputTokens?: number;
  readonly inputTokens?: number;
  /** Arrival of each streamed chunk, ms since the first request of the run. */
  readonly chunkTimesMs?: readonly number[];
}

/** One profiling record of a per-request JSONL, as written. */
export interface RawRecordLine {
  readonly startNs: number;
  readonly endNs: number;
  readonly failed: boolean;
  readonly metrics: Record<string, unknown>;
}

/** A record's `metrics[tag].value`. */
export function metricValue(metrics: Record<string, unknown>, tag: string): unknown {
  const m = metrics[tag];
  return typeof m === "object" && m !== null ? (m as { value?: unknown }).value : undefined;
}

function numberOf(x: unknown): number | undefined {
  return typeof x === "number" && Number.isFinite(x) ? x : undefined;
}

/**
 * Nanosecond epoch stamps exceed 2^53; reading them as doubles loses under a microsecond, well below what a chart
 * shows, and the differences taken here stay exact to that.
 */
function parseLine(line: string, path: string, lineNo: number): RawRecordLine | undefined {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (e) {
    throw new ReportError(`${path}:${lineNo}: not valid JSON (${e instanceof Error ? e.message : String(e)}).`);
  }
  const meta = (json as { metadata?: Record<string, unknown> } | null)?.metadata;
  if (typeof meta !== "object" || meta === null) {
    throw new ReportError(`${path}:${lineNo}: not a per-request record (no "metadata" object).`);
  }
  if (meta.benchmark_phase !== undefined && meta.benchmark_phase !== "profiling") return undefined;
  const startNs = numberOf(meta.request_start_ns);
  if (startNs === undefined) throw new ReportError(`${path}:${lineNo}: the record has no request_start_ns.`);
  const endNs = numberOf(meta.request_end_ns) ?? startNs;
  const metrics = (json as { metrics?: Record<string, unknown> }).metrics ?? {};
  const error = (json as { error?: unknown }).error;
  return { startNs, endNs, failed: error !== null && error !== undefined, metrics };
}

/**
 * The profiling records of a per-request JSONL file's text (warm-up records are left out).
 * @throws {ReportError} naming the file and line of a line that is not a record.
 */
export function parseRecordLines(text: string, path: string): RawRecordLine[] {
  const raw: RawRecordLine[] = [];
  let lineNo = 0;
  for (const line of text.split("\n")) {
    lineNo++;
    if (line.trim() === "") continue;
    const parsed = parseLine(line, path, lineNo);
    if (parsed !== undefined) raw.push(parsed);
  }
  return raw;
}

/** Reads the records from the text of a per-request JSONL file (warm-up records are left out). */
export function parseRunRecords(text: string, path: string): RequestPoint[] {
  const raw = parseRecordLines(text, path);
  let origin = Infinity;
  for (const r of raw) origin = Math.min(origin, r.startNs);
  return raw.map((r) => toPoint(r, origin));
}

function toPoint(r: RawRecordLine, originNs: number): RequestPoint {
  const startMs = (r.startNs - originNs) / 1e6;
  const ttftMs = numberOf(metricValue(r.metrics, "time_to_first_token"));
  const icl = metricValue(r.metrics, "inter_chunk_latency");
  let chunkTimesMs: number[] | undefined;
  if (ttftMs !== undefined) {
    chunkTimesMs = [startMs + ttftMs];
    if (Array.isArray(icl)) {
      let t = startMs + ttftMs;
      for (const gap of icl) {
        if (typeof gap !== "number") continue;
        t += gap;
        chunkTimesMs.push(t);
      }
    }
  }
  return {
    startMs,
    endMs: (r.endNs - originNs) / 1e6,
    failed: r.failed,
    latencyMs: numberOf(metricValue(r.metrics, "request_latency")),
    ttftMs,
    itlMs: numberOf(metricValue(r.metrics, "inter_token_latency")),
    outputTokens: numberOf(metricValue(r.metrics, "output_sequence_length")) ??
      numberOf(metricValue(r.metrics, "output_token_count")),
    inputTokens: numberOf(metricValue(r.metrics, "input_sequence_length")),
    chunkTimesMs,
  };
}

/**
 * The text of a run directory's per-request JSONL (found by its manifest, else by AIPerf's name) and its path, or
 * undefined when the run has none (e.g. `--export-level summary`).
 * @throws {ReportError} for a file that exists but cannot be read.
 */
export async function readRecordsText(dir: string, path?: string): Promise<{ text: string; file: string } | undefined> {
  const file = path ?? await recordsPathOf(dir);
  try {
    return { text: await Deno.readTextFile(file), file };
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw new ReportError(`${file}: cannot read it (${e instanceof Error ? e.message : String(e)}).`);
  }
}

/** The per-request records of a run directory, or undefined when it has none. */
export async function readRunRecords(dir: string, path?: string): Promise<RequestPoint[] | undefined> {
  const found = await readRecordsText(dir, path);
  return found === undefined ? undefined : parseRunRecords(found.text, found.file);
}
