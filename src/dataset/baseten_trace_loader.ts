/**
 * Baseten completion traces (`baseten_trace`), as AIPerf 0.13 replays them: a Parquet export, one request per row,
 * with columns `timestamp_start_unix_ms`, `prompt` (sent verbatim), `input_tokens`, `output_tokens`, and optionally
 * `total_hashes` (KV-cache block hashes), `block_size`, `provided_session_id` or `poor_man_session_id`, and
 * `duration_e2e_ms`.
 *
 * - Timestamps are aligned so the earliest is 0 and divided by `--replay-speedup`; rows sharing a session id (the
 *   provided one, else the poor man's) are one conversation, ordered by time and sent as written
 *   (`message_array_with_responses`: each prompt already holds its context). Sessions are ordered by their first
 *   request; rows without a session are conversations of their own.
 * - Each turn asks for `max(1, output_tokens)` tokens; its body carries `min_tokens` (the same, unless
 *   `--no-force-min-tokens`) and the recorded `hash_ids` and `block_size` (unless `--omit-kv-hints`), which an
 *   `--extra-inputs` of the same name would be overwritten by, so such a collision is refused.
 * - Open-loop replay (the default): every request at its own time (a continuation never before its predecessor's
 *   answer); `--open-loop-strict` makes every row its own session; `--max-idle-gap-cap-seconds` shortens every gap
 *   between consecutive requests to at most the cap. `--no-open-loop-replay`: a continuation follows its
 *   predecessor's answer after the recorded gap minus the predecessor's recorded `duration_e2e_ms` (the think time),
 *   and the cap applies to session starts.
 * - `--trace-session-sample-ratio` keeps that fraction of sessions, whole (seeded by `--random-seed`), and of rows
 *   without a session.
 *
 * Arrow IPC exports (`.arrow`, `.ipc`) are not read; the error says how to turn one into Parquet.
 */
import type { SeededRandom } from "../base/seeded_random.ts";
import type { Conversation, Dataset, Turn } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { DatasetLoader, LoaderContext } from "./dataset_loader.ts";
import { type HfRow, parquetRows } from "./hf_rows.ts";
import { describeJson } from "./json_record.ts";
import { describeTrace } from "./mooncake_trace_loader.ts";
import { roundHalfEven, SYNTHESIS_KEYS, synthesisParams } from "./trace_synthesis.ts";
import { BASETEN_TRACE_FORMAT } from "./dataset_formats.ts";

export const BASETEN_TRACE = BASETEN_TRACE_FORMAT.name;

const TIME = "timestamp_start_unix_ms";
const SESSION = "provided_session_id";
const POOR_MAN_SESSION = "poor_man_session_id";
const REQUIRED = [TIME, "prompt", "input_tokens", "output_tokens"] as const;

interface Row {
  /** 1-based row number in the file, for errors. */
  readonly n: number;
  timestamp: number | undefined;
  delay?: number;
  readonly prompt: string;
  readonly inputTokens: number;
  outputLength: number;
  readonly hashes: readonly number[];
  readonly blockSize?: number;
  readonly session?: string;
  readonly e2eMs?: number;
}

/** A Parquet integer (BigInt for INT64 columns) as a number; undefined for anything else. */
function int(value: unknown): number | undefined {
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "number" && Number.isInteger(value)) return value;
  return undefined;
}

/** A value in words for an error (INT64 cells arrive as BigInt). */
function shown(value: unknown): string {
  return describeJson(typeof value === "bigint" ? Number(value) : value);
}

function text(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  return undefined;
}

function parseRow(path: string, n: number, row: HfRow, sessionKey: string | undefined): Row {
  const fail = (reason: string): never => {
    throw new DatasetError(path, undefined, `row ${n}: ${reason}`);
  };
  const count = (name: string, positive = false): number => {
    const v = int(row[name]);
    if (v === undefined || v < (positive ? 1 : 0)) {
      fail(`"${name}" must be a ${positive ? "positive" : "non-negative"} integer (got ${shown(row[name])})`);
    }
    return v!;
  };
  const timestamp = count(TIME);
  const prompt = text(row.prompt);
  if (prompt === undefined) fail(`"prompt" must be a string (got ${describeJson(row.prompt)})`);
  const inputTokens = count("input_tokens");
  const output = count("output_tokens");
  const rawHashes = row.total_hashes;
  let hashes: number[] = [];
  if (rawHashes !== undefined && rawHashes !== null) {
    if (!Array.isArray(rawHashes)) fail(`"total_hashes" must be a list of integers (got ${describeJson(rawHashes)})`);
    hashes = (rawHashes as unknown[]).map((h) => {
      const v = int(h);
      if (v === undefined || v < 0) fail(`"total_hashes" holds ${shown(h)}, not a non-negative integer`);
      return v!;
    });
  }
  const optional = (name: string, positive: boolean): number | undefined =>
    row[name] === undefined || row[name] === null ? undefined : count(name, positive);
  const sessionValue = sessionKey === undefined ? undefined : row[sessionKey];
  const session = sessionValue === undefined || sessionValue === null
    ? undefined
    : typeof sessionValue === "bigint" || typeof sessionValue === "number"
    ? String(sessionValue)
    : text(sessionValue);
  return {
    n,
    timestamp,
    prompt: prompt!,
    inputTokens,
    outputLength: Math.max(1, output),
    hashes,
    blockSize: optional("block_size", true),
    session,
    e2eMs: optional("duration_e2e_ms", false),
  };
}

/**
 * Gaps between consecutive times (in time order, ties in input order) shortened to at most `capMs`; the earliest
 * keeps its value. Same positions in, same positions out.
 */
export function reflowIdleGaps(times: readonly number[], capMs: number): number[] {
  const cap = Math.ceil(capMs);
  const order = times.map((_, i) => i).sort((a, b) => times[a] - times[b] || a - b);
  const out = new Array<number>(times.length);
  let prevOld = 0;
  let prevNew = 0;
  order.forEach((i, k) => {
    prevNew = k === 0 ? times[i] : prevNew + Math.min(times[i] - prevOld, cap);
    prevOld = times[i];
    out[i] = prevNew;
  });
  return out;
}

function option<T>(ctx: LoaderContext | undefined, key: string, fallback: T): T {
  const v = ctx?.options?.[key];
  return v === undefined ? fallback : v as T;
}

/** Sessions kept by `ratio`: each whole session (ordered by first request) and each session-less row, by one draw. */
function sample(rows: Row[], ratio: number, rng: SeededRandom): Row[] {
  const first = new Map<string, number>();
  for (const r of rows) {
    if (r.session !== undefined) first.set(r.session, Math.min(first.get(r.session) ?? Infinity, r.timestamp!));
  }
  const sessions = [...first].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const kept = new Set(sessions.filter(() => rng.next() < ratio).map(([id]) => id));
  if (kept.size === 0 && sessions.length > 0) kept.add(sessions[rng.int(sessions.length)][0]);
  return rows.filter((r) => r.session === undefined ? rng.next() < ratio : kept.has(r.session));
}

export async function loadBasetenTrace(path: string, ctx?: LoaderContext): Promise<Dataset> {
  if (/\.(arrow|ipc)$/i.test(path)) {
    throw new DatasetError(
      path,
      undefined,
      "is an Arrow IPC file, which infermeter does not read; write it as Parquet " +
        "(python -c \"import pyarrow.ipc as i, pyarrow.parquet as p; p.write_table(i.open_file('in.arrow')" +
        ".read_all(), 'out.parquet')\") and give that",
    );
  }
  const speedup = option(ctx, "replaySpeedup", 1);
  const openLoop = option(ctx, "openLoopReplay", true);
  const strict = option(ctx, "openLoopStrict", false);
  const omitHints = option(ctx, "omitKvHints", false);
  const forceMin = option(ctx, "forceMinTokens", true);
  const gapCapS = option<number | undefined>(ctx, "maxIdleGapCapSeconds", undefined);
  const ratio = option<number | undefined>(ctx, "traceSessionSampleRatio", undefined);
  const extra = option<Readonly<Record<string, unknown>>>(ctx, "extraInputs", {});
  const collisions = [
    ...(forceMin && "min_tokens" in extra ? [["min_tokens", "--no-force-min-tokens"]] : []),
    ...(omitHints ? [] : ["hash_ids", "block_size"].filter((k) => k in extra).map((k) => [k, "--omit-kv-hints"])),
  ];
  if (collisions.length > 0) {
    throw new DatasetError(
      path,
      undefined,
      collisions.map(([k, flag]) =>
        `--extra-inputs ${k} would be overwritten on every request by the trace's own; ` +
        `pass ${flag} to send yours`
      ).join("; "),
    );
  }

  const synthesis = synthesisParams(ctx?.options);
  const reshaping = (["speedupRatio", "prefixLenMultiplier", "prefixRootMultiplier", "promptLenMultiplier"] as const)
    .filter((k) => synthesis[k] !== undefined && synthesis[k] !== 1);
  if (reshaping.length > 0) {
    // The prompts are sent as recorded: reshaped hash ids would no longer describe them (AIPerf refuses these too).
    const flags = reshaping.map((k) => `--${SYNTHESIS_KEYS[k].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
    throw new DatasetError(
      path,
      undefined,
      `${flags.join(", ")} cannot reshape a baseten_trace: its prompts are sent as recorded` +
        (reshaping.includes("speedupRatio") ? "; use --replay-speedup to replay it faster" : ""),
    );
  }

  let rows: Row[] = [];
  let sessionKey: string | undefined;
  let n = 0;
  for await (const row of parquetRows(path)) {
    n++;
    if (n === 1) {
      const missing = REQUIRED.filter((c) => !(c in row));
      if (missing.length > 0) {
        throw new DatasetError(
          path,
          undefined,
          `lacks the column${missing.length === 1 ? "" : "s"} ${missing.join(", ")}; a Baseten trace has ` +
            `${REQUIRED.join(", ")}`,
        );
      }
      sessionKey = SESSION in row ? SESSION : POOR_MAN_SESSION in row ? POOR_MAN_SESSION : undefined;
    }
    rows.push(parseRow(path, n, row, sessionKey));
  }
  if (rows.length === 0) throw new DatasetError(path, undefined, "has no rows");
  if (ratio !== undefined && ratio < 1) rows = sample(rows, ratio, ctx!.rng.derive("baseten-session-sampling"));
  const maxIsl = synthesis.maxIsl;
  if (maxIsl !== undefined) {
    rows = rows.filter((r) => r.inputTokens <= maxIsl);
    if (rows.length === 0) {
      throw new DatasetError(path, undefined, `--synthesis-max-isl ${maxIsl} leaves out every row; raise it`);
    }
  }
  // Outputs scaled (rounded half to even, at least 1), then cut: what max_tokens and min_tokens ask for.
  for (const r of rows) {
    if (synthesis.outputLenMultiplier !== undefined && synthesis.outputLenMultiplier !== 1) {
      r.outputLength = Math.max(1, roundHalfEven(r.outputLength * synthesis.outputLenMultiplier));
    }
    if (synthesis.maxOsl !== undefined) r.outputLength = Math.min(r.outputLength, synthesis.maxOsl);
  }
  const origin = Math.min(...rows.map((r) => r.timestamp!));
  for (const r of rows) r.timestamp = (r.timestamp! - origin) / speedup;
  if (openLoop && gapCapS !== undefined) reflowAll(rows, gapCapS * 1000);

  // Sessions in order of their first request; a session's requests in time order.
  let groups = new Map<string, Row[]>();
  let unnamed = 0;
  for (const r of rows) {
    const id = r.session ?? `row_${unnamed++}`;
    const list = groups.get(id);
    if (list === undefined) groups.set(id, [r]);
    else list.push(r);
  }
  for (const list of groups.values()) list.sort((a, b) => a.timestamp! - b.timestamp! || a.n - b.n);
  if (openLoop && strict) {
    groups = new Map([...groups].flatMap(([id, list]) => list.map((r, i) => [`${id}#${i}`, [r]] as const)));
  }
  const ordered = [...groups].sort((a, b) => a[1][0].timestamp! - b[1][0].timestamp! || (a[0] < b[0] ? -1 : 1));
  if (!openLoop) {
    for (const [, list] of ordered) backPressure(list, speedup);
    if (gapCapS !== undefined) reflowAll(ordered.map(([, list]) => list[0]), gapCapS * 1000);
  }

  const conversations = ordered.map(([id, list]): Conversation => {
    const turns = list.map((r): Turn => {
      const body: Record<string, unknown> = {};
      if (forceMin) body.min_tokens = r.outputLength;
      if (!omitHints) {
        if (r.hashes.length > 0) body.hash_ids = r.hashes;
        if (r.blockSize !== undefined) body.block_size = r.blockSize;
      }
      return {
        texts: [r.prompt],
        maxTokens: r.outputLength,
        ...(r.timestamp !== undefined ? { timestampMs: r.timestamp } : {}),
        ...(r.delay !== undefined ? { delayMs: r.delay } : {}),
        ...(Object.keys(body).length > 0 ? { extra: body } : {}),
      };
    });
    return turns.length > 1 ? { id, turns, contextMode: "message_array_with_responses" } : { id, turns };
  });
  return { conversations, defaultSampling: "sequential", source: "file", format: BASETEN_TRACE };
}

function reflowAll(rows: Row[], capMs: number): void {
  const timed = rows.filter((r) => r.timestamp !== undefined);
  const times = reflowIdleGaps(timed.map((r) => r.timestamp!), capMs);
  timed.forEach((r, i) => r.timestamp = times[i]);
}

/**
 * Closed-loop replay: a continuation waits the recorded start-to-start gap minus its predecessor's recorded
 * end-to-end time (the think time; the replayed answer takes its own time), counted from the replayed answer.
 */
function backPressure(list: Row[], speedup: number): void {
  const starts = list.map((r) => r.timestamp!);
  for (let i = 1; i < list.length; i++) {
    list[i].delay = Math.max(0, starts[i] - starts[i - 1] - (list[i - 1].e2eMs ?? 0) / speedup);
    list[i].timestamp = undefined;
  }
}

export const basetenTraceLoader = {
  ...BASETEN_TRACE_FORMAT,
  canLoad: () => false,
  canLoadText: (_firstLine: string, path: string) => /\.(parquet|arrow|ipc)$/i.test(path),
  load: loadBasetenTrace,
  describe: describeTrace,
} as const satisfies DatasetLoader;
