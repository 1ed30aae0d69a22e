/**
 * AIPerf's `tracelab` format: the TraceLab agentic-coding corpus, one JSON line per model round (optionally
 * gzipped, `.jsonl.gz`), rebuilt into agent traces and replayed as `weka_trace` replays them (`weka_trace_loader.ts`):
 *
 * ```jsonl
 * {"session_id": "claude:1", "round_index": 0, "model": "claude-sonnet", "user": "u", "project": "p",
 *  "input_tokens_total": 900, "prefix_tokens": 0, "newly_append_tokens": 900, "output_tokens": 80,
 *  "first_input_event_type": "user_message",
 *  "timing_events": [{"event_type": "user_message", "timestamp": "2025-06-01T10:00:00Z"},
 *                    {"event_type": "tool_call", "timestamp": "2025-06-01T10:00:03Z"}],
 *  "tools": [{"tool_name": "Task", "emitted_at": "…", "result_at": "…", "tool_wall_latency_ms": 20000}]}
 * ```
 *
 * As AIPerf converts it: rounds are grouped by `session_id` and ordered by submission time (the latest input event;
 * `round_index` breaks ties); a round's server time is from submission to its last output event; its block ids keep
 * the first ⌊`prefix_tokens` / block⌋ ids of the previous round and take fresh ones for the rest of its
 * ⌊`input_tokens_total` / block⌋ blocks (one id space per trace, sub-agents included); output tokens count reasoning
 * tokens too. Sub-agents are not linked in the corpus: a session of the same `user` and `project` whose whole span
 * lies inside a spawning tool call (`Agent`/`Task` lasting at least 10 s; for Codex sessions, the span from the first
 * `spawn_agent` to the last `wait_agent` result) is that call's sub-agent, the tightest window winning. One level is
 * nested; a grandchild stays a trace of its own. The block size is `--isl-block-size` (default 64).
 */
import type { Dataset } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { DatasetLoader, LoaderContext } from "./dataset_loader.ts";
import { describeJson, isObject, readJsonRecords } from "./json_record.ts";
import {
  agentTraceConversations,
  agentTraceOptions,
  describeAgentTraces,
  type WekaRequest,
  type WekaSubagent,
  type WekaTrace,
} from "./weka_trace_loader.ts";
import { TRACE_BLOCK_SIZE_KEY, TRACELAB_FORMAT } from "./dataset_formats.ts";

export const TRACELAB = TRACELAB_FORMAT.name;
const DEFAULT_BLOCK_SIZE = 64;
/** Shortest spawning tool call taken for a sub-agent's round trip (AIPerf's default). */
const MIN_SPAWN_MS = 10_000;
const INPUT_EVENTS = new Set(["user_message", "tool_result"]);
const OUTPUT_EVENTS = new Set(["text", "reasoning", "tool_call"]);
const SPAWN_TOOLS = new Set(["Agent", "Task"]);
const DETECT = [
  "session_id",
  "round_index",
  "input_tokens_total",
  "prefix_tokens",
  "newly_append_tokens",
  "timing_events",
];

interface Tool {
  readonly name?: string;
  readonly emittedAt?: number;
  readonly resultAt?: number;
  readonly latencyMs?: number;
}

/** One round as read (times in seconds since the epoch). */
interface Round {
  readonly line: number;
  readonly session: string;
  readonly roundIndex: number;
  readonly model: string;
  readonly user: unknown;
  readonly project: unknown;
  readonly provider: unknown;
  readonly inputTotal: number;
  readonly prefix: number;
  readonly output: number;
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
  readonly tools: readonly Tool[];
  readonly toolResult: boolean;
}

export function canLoadTraceLab(record: unknown): boolean {
  return isObject(record) && DETECT.every((k) => k in record);
}

function parseTime(v: unknown, where: string, fail: (reason: string) => never): number | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string") fail(`${where} must be an ISO-8601 timestamp (got ${describeJson(v)})`);
  // Naive timestamps are UTC, as AIPerf reads them.
  const text = /[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) fail(`${where} is not an ISO-8601 timestamp (got ${JSON.stringify(v)})`);
  return ms / 1000;
}

function count(v: unknown, where: string, fail: (reason: string) => never): number {
  if (v === undefined || v === null) return 0;
  if (typeof v !== "number" || !Number.isFinite(v)) fail(`${where} must be a number (got ${describeJson(v)})`);
  return Math.max(0, Math.trunc(v));
}

function parseRound(path: string, line: number, record: unknown): Round | undefined {
  const fail: (reason: string) => never = (reason) => {
    throw new DatasetError(path, line, reason);
  };
  if (!isObject(record)) fail(`expected a TraceLab round object (got ${describeJson(record)})`);
  const session = record.session_id;
  if (session === undefined || session === null || session === "") return undefined; // AIPerf skips them
  if (typeof session !== "string") fail(`"session_id" must be a string (got ${describeJson(session)})`);
  const events = record.timing_events ?? [];
  if (!Array.isArray(events)) fail(`"timing_events" must be a list (got ${describeJson(events)})`);
  const inputs: number[] = [];
  const outputs: number[] = [];
  events.forEach((e, i) => {
    if (!isObject(e)) fail(`"timing_events"[${i}] must be an object (got ${describeJson(e)})`);
    const t = parseTime(e.timestamp, `"timing_events"[${i}].timestamp`, fail);
    if (t === undefined) return;
    if (INPUT_EVENTS.has(String(e.event_type))) inputs.push(t);
    else if (OUTPUT_EVENTS.has(String(e.event_type))) outputs.push(t);
  });
  const toolList = record.tools ?? [];
  if (!Array.isArray(toolList)) fail(`"tools" must be a list (got ${describeJson(toolList)})`);
  const tools = toolList.map((tool, i): Tool => {
    if (!isObject(tool)) fail(`"tools"[${i}] must be an object (got ${describeJson(tool)})`);
    const latency = tool.tool_wall_latency_ms;
    return {
      ...(typeof tool.tool_name === "string" ? { name: tool.tool_name } : {}),
      emittedAt: parseTime(tool.emitted_at, `"tools"[${i}].emitted_at`, fail),
      resultAt: parseTime(tool.result_at, `"tools"[${i}].result_at`, fail),
      ...(typeof latency === "number" ? { latencyMs: latency } : {}),
    };
  });
  const model = record.model;
  return {
    line,
    session,
    roundIndex: typeof record.round_index === "number" ? record.round_index : 0,
    model: typeof model === "string" && model !== "" ? model : "unknown",
    user: record.user,
    project: record.project,
    provider: record.provider,
    inputTotal: count(record.input_tokens_total, `"input_tokens_total"`, fail),
    prefix: count(record.prefix_tokens, `"prefix_tokens"`, fail),
    output: count(record.output_tokens, `"output_tokens"`, fail) +
      count(record.reasoning_output_tokens, `"reasoning_output_tokens"`, fail),
    inputs,
    outputs,
    tools,
    toolResult: record.first_input_event_type === "tool_result",
  };
}

/** A round's submission time (its latest input event) and server time, seconds; undefined when undated. */
function timing(r: Round): { submitted: number; api?: number } | undefined {
  if (r.inputs.length === 0 && r.outputs.length === 0) return undefined;
  const submitted = r.inputs.length > 0 ? Math.max(...r.inputs) : Math.min(...r.outputs);
  if (r.outputs.length === 0) return { submitted };
  return { submitted, api: Math.max(0, Math.max(...r.outputs) - submitted) };
}

interface Timed {
  readonly submitted: number;
  readonly api?: number;
  readonly round: Round;
}

function ordered(rounds: readonly Round[]): Timed[] {
  const out: Timed[] = [];
  for (const round of rounds) {
    const t = timing(round);
    if (t !== undefined) out.push({ ...t, round });
  }
  // Stable: file order breaks the remaining ties.
  return out.sort((a, b) => a.submitted - b.submitted || a.round.roundIndex - b.round.roundIndex);
}

/** One id space per trace (a parent and its sub-agents share it, so shared blocks decode alike). */
class IdMinter {
  #next = 1;
  take(n: number): number[] {
    const ids = Array.from({ length: Math.max(0, n) }, (_, i) => this.#next + i);
    this.#next += Math.max(0, n);
    return ids;
  }
}

function requestsOf(timed: readonly Timed[], blockSize: number, minter: IdMinter, t0: number): WekaRequest[] {
  let prev: number[] = [];
  return timed.map(({ submitted, api, round }) => {
    const blocks = Math.floor(round.inputTotal / blockSize);
    const reuse = Math.min(Math.floor(Math.min(round.prefix, round.inputTotal) / blockSize), prev.length, blocks);
    const hashIds = [...prev.slice(0, reuse), ...minter.take(blocks - reuse)];
    prev = hashIds;
    return {
      type: "n",
      t: Math.round((submitted - t0) * 1e6) / 1e6,
      model: round.model,
      input: Math.max(1, round.inputTotal),
      output: Math.max(1, round.output),
      hashIds,
      ...(api === undefined ? {} : { apiTime: Math.round(api * 1e6) / 1e6 }),
    };
  });
}

interface Link {
  readonly parent: string;
  readonly start: number;
  readonly end: number;
  readonly durationMs: number;
}

/** Sub-agent links recovered by timing containment (see the file's comment). */
function joinIndex(sessions: ReadonlyMap<string, readonly Round[]>): Map<string, Link> {
  const span = new Map<string, [number, number]>();
  const ident = new Map<string, string>();
  for (const [sid, rounds] of sessions) {
    const stamps = rounds.flatMap((r) => [
      ...r.inputs,
      ...r.outputs,
      ...r.tools.flatMap((t) => [t.emittedAt, t.resultAt].filter((x): x is number => x !== undefined)),
    ]);
    if (stamps.length === 0) continue;
    span.set(sid, [Math.min(...stamps), Math.max(...stamps)]);
    ident.set(sid, JSON.stringify([rounds[0].user ?? null, rounds[0].project ?? null]));
  }
  const windows: { start: number; end: number; parent: string; durationMs: number }[] = [];
  for (const [sid, rounds] of sessions) {
    if (rounds[0].provider === "codex") {
      const spawns = rounds.flatMap((r) => r.tools.filter((t) => t.name === "spawn_agent").map((t) => t.emittedAt));
      const waits = rounds.flatMap((r) => r.tools.filter((t) => t.name === "wait_agent").map((t) => t.resultAt));
      const s = spawns.filter((x): x is number => x !== undefined);
      const w = waits.filter((x): x is number => x !== undefined);
      if (s.length > 0 && w.length > 0 && Math.max(...w) > Math.min(...s)) {
        const start = Math.min(...s), end = Math.max(...w);
        windows.push({ start, end, parent: sid, durationMs: Math.trunc((end - start) * 1000) });
      }
      continue;
    }
    for (const r of rounds) {
      for (const t of r.tools) {
        if (t.name === undefined || !SPAWN_TOOLS.has(t.name)) continue;
        if (t.latencyMs === undefined || t.latencyMs < MIN_SPAWN_MS) continue;
        if (t.emittedAt === undefined || t.resultAt === undefined) continue;
        windows.push({ start: t.emittedAt, end: t.resultAt, parent: sid, durationMs: Math.trunc(t.latencyMs) });
      }
    }
  }
  const links = new Map<string, Link>();
  for (const [child, [start, end]] of span) {
    const hits = windows
      .filter((w) => w.parent !== child && ident.get(w.parent) === ident.get(child) && start >= w.start && end <= w.end)
      .sort((a, b) => (a.end - a.start) - (b.end - b.start) || a.start - b.start || (a.parent < b.parent ? -1 : 1));
    if (hits.length > 0) links.set(child, hits[0]);
  }
  return links;
}

const safeId = (sid: string) => sid.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 150);

function buildTrace(
  sid: string,
  rounds: readonly Round[],
  blockSize: number,
  children: readonly [string, Link, readonly Round[]][],
  placed: Set<string>,
): WekaTrace | undefined {
  const timed = ordered(rounds);
  if (timed.length === 0) return undefined;
  const t0 = timed[0].submitted;
  const minter = new IdMinter();
  const requests = requestsOf(timed, blockSize, minter, t0);
  const pending = new Map<number, WekaSubagent[]>();
  for (const [csid, link, childRounds] of children) {
    const childTimed = ordered(childRounds);
    if (childTimed.length === 0) continue;
    const inner = requestsOf(childTimed, blockSize, minter, t0);
    const entryT = Math.round((link.start - t0) * 1e6) / 1e6;
    const entry: WekaSubagent = {
      t: entryT,
      agentId: safeId(csid),
      durationMs: link.durationMs,
      toolTokens: 0,
      systemTokens: 0,
      requests: inner.map((r) => r.t < entryT ? { ...r, t: entryT } : r),
    };
    // After the last parent request at or before the spawn (there is one: the spawning round came first).
    const anchor = requests.findLastIndex((r) => r.t <= entryT);
    if (anchor < 0) continue;
    pending.set(anchor, [...(pending.get(anchor) ?? []), entry]);
    placed.add(csid);
  }
  const entries: (WekaRequest | WekaSubagent)[] = [];
  requests.forEach((r, i) => {
    entries.push(r);
    entries.push(...(pending.get(i) ?? []).sort((a, b) => a.t - b.t));
  });
  return { id: safeId(sid), blockSize, toolTokens: 0, systemTokens: 0, entries };
}

export async function loadTraceLab(path: string, ctx?: LoaderContext): Promise<Dataset> {
  const sessions = new Map<string, Round[]>();
  for await (const at of readJsonRecords(path, { signal: ctx?.signal })) {
    const round = parseRound(path, at.line, at.record);
    if (round === undefined) continue;
    const list = sessions.get(round.session);
    if (list === undefined) sessions.set(round.session, [round]);
    else list.push(round);
  }
  if (sessions.size === 0) {
    throw new DatasetError(path, undefined, 'has no TraceLab rounds; every row needs a "session_id"');
  }
  const option = ctx?.options?.[TRACE_BLOCK_SIZE_KEY];
  const blockSize = typeof option === "number" ? option : DEFAULT_BLOCK_SIZE;
  const links = joinIndex(sessions);
  const byParent = new Map<string, [string, Link, readonly Round[]][]>();
  for (const [child, link] of links) {
    // One level is nested: a child whose parent is itself a child stays a trace of its own.
    if (links.has(link.parent)) continue;
    byParent.set(link.parent, [...(byParent.get(link.parent) ?? []), [child, link, sessions.get(child)!]]);
  }
  const nested = new Set([...byParent.values()].flat().map(([child]) => child));
  const placed = new Set<string>();
  const traces: WekaTrace[] = [];
  const firstLine = new Map<string, number>();
  for (const [sid, rounds] of sessions) {
    if (nested.has(sid)) continue;
    const trace = buildTrace(sid, rounds, blockSize, byParent.get(sid) ?? [], placed);
    if (trace !== undefined) traces.push(trace), firstLine.set(trace.id, rounds[0].line);
  }
  // Children that found no place in their parent are replayed as traces of their own.
  for (const sid of nested) {
    if (placed.has(sid)) continue;
    const trace = buildTrace(sid, sessions.get(sid)!, blockSize, [], placed);
    if (trace !== undefined) traces.push(trace), firstLine.set(trace.id, sessions.get(sid)![0].line);
  }
  const seen = new Set<string>();
  for (const t of traces) {
    if (seen.has(t.id)) {
      throw new DatasetError(path, firstLine.get(t.id), `session ${t.id} collides with another once made a safe id`);
    }
    seen.add(t.id);
  }
  if (traces.length === 0) throw new DatasetError(path, undefined, "has no dated rounds (no timing_events)");
  const conversations = await agentTraceConversations(traces, agentTraceOptions(ctx), (trace, reason) => {
    throw new DatasetError(path, firstLine.get(trace.id), `session ${trace.id}: ${reason}`);
  });
  const capped = typeof ctx?.options?.traceIdleGapCapSeconds === "number";
  return {
    conversations,
    defaultSampling: "sequential",
    source: "file",
    format: TRACELAB,
    ...(capped ? { gapsCapped: true } : {}),
  };
}

export const traceLabLoader: DatasetLoader = {
  ...TRACELAB_FORMAT,
  canLoad: canLoadTraceLab,
  load: loadTraceLab,
  describe: describeAgentTraces,
};
