/**
 * AIPerf's `weka_trace` format: agentic coding sessions recorded by Weka's KV-cache tester, one JSON object per
 * file (a file, or a directory of `*.json`):
 *
 * ```json
 * {"id": "trace-1", "models": ["claude-sonnet"], "block_size": 64, "hash_id_scope": "local",
 *  "tool_tokens": 300, "system_tokens": 200, "requests": [
 *   {"t": 0.0, "type": "s", "model": "claude-sonnet", "in": 900, "out": 120, "hash_ids": [1, 2, ...],
 *    "api_time": 2.1, "stop": "tool_use"},
 *   {"t": 3.0, "type": "subagent", "agent_id": "agent_001", "subagent_type": "Explore", "status": "completed",
 *    "duration_ms": 9000, "models": ["claude-haiku"], "requests": [{"t": 3.2, "type": "n", ...}]},
 *   {"t": 12.5, "type": "n", ...}]}
 * ```
 *
 * Each trace is a root conversation of its top-level requests (`n` normal, `s` streaming) and one child
 * conversation per stream of each `subagent` entry's requests (`agent_chains.ts`), started once the parent request
 * before the entry is answered and joined by the first later parent request that began after the sub-agent ended
 * (none: not joined). Top-level requests that another agent made in parallel (they overlap the main stream, or share
 * none of its context) become children of their own the same way. Prompts are rebuilt from the recorded block ids
 * (`agent_context.ts`): the same id, the same text, so the recorded prefix reuse reaches the server's cache; each
 * request asks for its recorded `out` tokens. A child's first request goes at its recorded offset from the spawn;
 * every later request after the previous answer and the recorded idle gap (`t` − the previous request's end), or its
 * recorded `think_time` with `--use-think-time-only`.
 *
 * Model names map as AIPerf maps them: the trace's main model to the first `--model`, its other models to the
 * next ones in order of appearance (wrapping). Traces whose peak context (input + output tokens) exceeds
 * `--max-context-length` are left out. Sessions are drawn in file order (sequential sampling).
 */
import { InterruptCheck } from "../runtime/interrupt_check.ts";
import type { Conversation, Dataset, Spawn, Turn } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { DatasetLoader, LoaderContext } from "./dataset_loader.ts";
import { describeJson, isObject } from "./json_record.ts";
import { unreadable } from "./json_record.ts";
import { AgentContext } from "./agent_context.ts";
import { type ChainRequest, detectChains, idleGapWarp, requestEnd } from "./agent_chains.ts";
import { HashBlockPrompts } from "./hash_block_prompts.ts";
import { PromptSynthesizer } from "./prompt_synthesizer.ts";
import { SYNTHESIS_KEYS } from "./trace_synthesis.ts";
import { DEFAULT_CORPUS } from "./default_corpus.ts";
import { codingCorpus } from "./coding_corpus.ts";
import type { SeededRandom } from "../base/seeded_random.ts";
import type { LazyTokenizer, Tokenizer } from "../tokenizer/tokenizer.ts";
import { WEKA_TRACE_FORMAT } from "./dataset_formats.ts";

export const WEKA_TRACE = WEKA_TRACE_FORMAT.name;

/** One recorded model call. */
export interface WekaRequest extends ChainRequest {
  readonly type: "n" | "s";
  readonly input: number;
  readonly output: number;
  readonly thinkTime?: number;
}

export interface WekaSubagent {
  readonly t: number;
  readonly agentId: string;
  readonly durationMs?: number;
  readonly toolTokens: number;
  readonly systemTokens: number;
  readonly requests: readonly WekaRequest[];
}

export interface WekaTrace {
  readonly id: string;
  readonly blockSize: number;
  readonly toolTokens: number;
  readonly systemTokens: number;
  /** Top-level requests and sub-agents, in recorded order. */
  readonly entries: readonly (WekaRequest | WekaSubagent)[];
}

/** Where a trace came from, for errors: the file and, inside it, the JSON path. */
type Fail = (where: string, reason: string) => never;

const TRACE_FIELDS = [
  "id",
  "models",
  "block_size",
  "hash_id_scope",
  "tool_tokens",
  "system_tokens",
  "requests",
  "totals",
];
const REQUEST_FIELDS = [
  "t",
  "type",
  "model",
  "in",
  "out",
  "hash_ids",
  "input_types",
  "output_types",
  "stop",
  "api_time",
  "think_time",
];
const SUBAGENT_FIELDS = [
  "t",
  "type",
  "agent_id",
  "subagent_type",
  "duration_ms",
  "total_tokens",
  "tool_use_count",
  "status",
  "requests",
  "models",
  "tool_tokens",
  "system_tokens",
];

function num(v: unknown, where: string, fail: Fail, opts: { int?: boolean; min?: number; optional?: boolean } = {}) {
  if (v === undefined || v === null) {
    if (opts.optional) return undefined;
    fail(where, "is missing");
  }
  if (typeof v !== "number" || !Number.isFinite(v) || (opts.int && !Number.isInteger(v))) {
    fail(where, `must be ${opts.int ? "an integer" : "a number"} (got ${describeJson(v)})`);
  }
  if (opts.min !== undefined && v < opts.min) fail(where, `must be at least ${opts.min} (got ${v})`);
  return v;
}

function str(v: unknown, where: string, fail: Fail): string {
  if (typeof v !== "string") fail(where, `must be a string (got ${describeJson(v)})`);
  return v;
}

function strings(v: unknown, where: string, fail: Fail, optional = true): void {
  if (v === undefined && optional) return;
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
    fail(where, `must be a list of strings (got ${describeJson(v)})`);
  }
}

function known(record: Record<string, unknown>, fields: readonly string[], where: string, fail: Fail): void {
  const extra = Object.keys(record).find((k) => !fields.includes(k));
  if (extra !== undefined) fail(where, `has an unknown field ${JSON.stringify(extra)} (known: ${fields.join(", ")})`);
}

function parseRequest(v: unknown, where: string, fail: Fail): WekaRequest {
  if (!isObject(v)) fail(where, `must be an object (got ${describeJson(v)})`);
  known(v, v.type === "s" ? [...REQUEST_FIELDS, "ttft"] : REQUEST_FIELDS, where, fail);
  const type = v.type;
  if (type !== "n" && type !== "s") fail(`${where}.type`, `must be "n", "s" or "subagent" (got ${describeJson(type)})`);
  const hashIds = v.hash_ids ?? [];
  if (!Array.isArray(hashIds) || !hashIds.every((h) => Number.isInteger(h))) {
    fail(`${where}.hash_ids`, `must be a list of integers (got ${describeJson(hashIds)})`);
  }
  strings(v.input_types, `${where}.input_types`, fail);
  strings(v.output_types, `${where}.output_types`, fail);
  if (v.stop !== undefined) str(v.stop, `${where}.stop`, fail);
  num(v.ttft, `${where}.ttft`, fail, { optional: true });
  const apiTime = num(v.api_time, `${where}.api_time`, fail, { optional: true });
  const thinkTime = num(v.think_time, `${where}.think_time`, fail, { optional: true });
  return {
    type,
    t: num(v.t, `${where}.t`, fail)!,
    model: str(v.model, `${where}.model`, fail),
    input: num(v.in, `${where}.in`, fail, { int: true, min: 0 })!,
    output: num(v.out, `${where}.out`, fail, { int: true, min: 0 })!,
    hashIds: hashIds as number[],
    ...(apiTime === undefined ? {} : { apiTime }),
    ...(thinkTime === undefined ? {} : { thinkTime }),
  };
}

/**
 * A trace object checked field by field, as AIPerf's schema checks it (unknown fields are errors).
 * @throws {DatasetError} naming the file and the JSON path of the first problem.
 */
export function parseWekaTrace(value: unknown, file: string): WekaTrace {
  const fail: Fail = (where, reason) => {
    throw new DatasetError(file, undefined, `${where} ${reason}`);
  };
  if (!isObject(value)) fail("the trace", `must be a JSON object (got ${describeJson(value)})`);
  known(value, TRACE_FIELDS, "the trace", fail);
  const id = str(value.id, "id", fail);
  strings(value.models, "models", fail, false);
  const blockSize = num(value.block_size, "block_size", fail, { int: true, min: 1 })!;
  if (value.hash_id_scope !== "local") {
    fail("hash_id_scope", `must be "local" (per-trace block ids; got ${describeJson(value.hash_id_scope)})`);
  }
  const list = value.requests;
  if (!Array.isArray(list)) fail("requests", `must be a list (got ${describeJson(list)})`);
  const entries = list.map((r, i): WekaRequest | WekaSubagent => {
    const where = `requests[${i}]`;
    if (!isObject(r) || r.type !== "subagent") return parseRequest(r, where, fail);
    known(r, SUBAGENT_FIELDS, where, fail);
    str(r.subagent_type, `${where}.subagent_type`, fail);
    str(r.status, `${where}.status`, fail);
    strings(r.models, `${where}.models`, fail, false);
    num(r.total_tokens, `${where}.total_tokens`, fail, { int: true, optional: true });
    num(r.tool_use_count, `${where}.tool_use_count`, fail, { int: true, optional: true });
    const inner = r.requests;
    if (!Array.isArray(inner)) fail(`${where}.requests`, `must be a list (got ${describeJson(inner)})`);
    const durationMs = num(r.duration_ms, `${where}.duration_ms`, fail, { optional: true });
    return {
      t: num(r.t, `${where}.t`, fail)!,
      agentId: str(r.agent_id, `${where}.agent_id`, fail),
      ...(durationMs === undefined ? {} : { durationMs }),
      toolTokens: num(r.tool_tokens ?? 0, `${where}.tool_tokens`, fail, { int: true, min: 0 })!,
      systemTokens: num(r.system_tokens ?? 0, `${where}.system_tokens`, fail, { int: true, min: 0 })!,
      requests: inner.map((q, j) => parseRequest(q, `${where}.requests[${j}]`, fail)),
    };
  });
  return {
    id,
    blockSize,
    toolTokens: num(value.tool_tokens ?? 0, "tool_tokens", fail, { int: true, min: 0 })!,
    systemTokens: num(value.system_tokens ?? 0, "system_tokens", fail, { int: true, min: 0 })!,
    entries,
  };
}

const isSubagent = (e: WekaRequest | WekaSubagent): e is WekaSubagent => !("type" in e);

/** How agent traces become conversations (shared by `weka_trace`, `tracelab` and the agent public datasets). */
export interface AgentTraceOptions {
  readonly rng: SeededRandom;
  readonly tokenizer?: Tokenizer | LazyTokenizer;
  /** Text blocks are cut from. @default the coding corpus, as AIPerf rebuilds agent traces */
  readonly corpus?: string;
  /** `--model` names: the trace's models map onto them. */
  readonly modelNames?: readonly string[];
  /** `--use-think-time-only`: delays are the recorded think times. */
  readonly thinkTimeOnly?: boolean;
  /** `--trace-idle-gap-cap-seconds`. */
  readonly idleGapCapS?: number;
  /** `--max-context-length`: traces whose peak input + output exceeds it are left out. */
  readonly maxContextLength?: number;
  /** `--synthesis-max-isl`: the trace's own requests (not its sub-agents') above it are left out, as AIPerf does. */
  readonly maxIsl?: number;
  /**
   * `--synthesis-max-osl`: the max tokens of the trace's own requests (main and flat chains) are cut to it; a
   * sub-agent's are left as recorded, so its decode load stays faithful (AIPerf's rule).
   */
  readonly maxOsl?: number;
  readonly signal?: AbortSignal;
  /** Where notices go (sub-agents dropped, traces left out). */
  readonly warn?: (message: string) => void;
}

/**
 * The peak input + output tokens any request of the trace asks for (what a server's context must hold), with the
 * trace's own requests' outputs cut at `maxOsl` as they are sent.
 */
export function peakContext(trace: WekaTrace, maxOsl?: number): number {
  let peak = 0;
  const see = (r: WekaRequest, cap?: number) => peak = Math.max(peak, r.input + cappedOutput(r.output, cap));
  for (const e of trace.entries) {
    if (isSubagent(e)) e.requests.forEach((r) => see(r));
    else see(e, maxOsl);
  }
  return peak;
}

/** The max tokens a request is sent with: its recorded output (at least 1), cut at `cap`. */
function cappedOutput(output: number, cap?: number): number {
  return Math.max(1, cap !== undefined && output > cap ? cap : output);
}

/** The trace's models mapped onto the configured names, AIPerf's way (main model first, then first appearance). */
function modelMap(trace: WekaTrace, names: readonly string[] | undefined): (m: string) => string {
  if (names === undefined || names.length === 0) return (m) => m;
  const order: string[] = [];
  const see = (m: string) => {
    if (!order.includes(m)) order.push(m);
  };
  const top = trace.entries.filter((e): e is WekaRequest => !isSubagent(e));
  if (top.length > 0) see(top[0].model);
  else {
    const first = trace.entries.find((e): e is WekaSubagent => isSubagent(e) && e.requests.length > 0);
    if (first !== undefined) see(first.requests[0].model);
  }
  for (const e of trace.entries) {
    if (isSubagent(e)) e.requests.forEach((r) => see(r.model));
    else see(e.model);
  }
  const map = new Map(order.map((m, i) => [m, names[i % names.length]]));
  return (m) => map.get(m) ?? m;
}

/** A stream of requests that becomes one conversation. */
interface Stream {
  readonly id: string;
  /** A sub-agent's stream: its max tokens are not cut at `--synthesis-max-osl`. */
  readonly subagent?: boolean;
  readonly requests: readonly WekaRequest[];
  readonly toolTokens: number;
  readonly systemTokens: number;
}

/** Children started together by one parent turn. */
interface Group {
  readonly turn: number;
  readonly joinAt?: number;
  readonly start: number;
  readonly streams: Stream[];
}

const EPSILON_S = 1e-6;

/**
 * Builds the conversations of agent traces: each trace's root conversation, then its children.
 * @throws {DatasetError} (via `fail`) when a trace's block ids cannot hold its declared system prompt.
 */
export async function agentTraceConversations(
  traces: readonly WekaTrace[],
  options: AgentTraceOptions,
  fail: (trace: WekaTrace, reason: string) => never,
): Promise<Conversation[]> {
  if (options.tokenizer === undefined) throw new TypeError("agent traces synthesize prompts; pass a tokenizer");
  const synthesizer = new PromptSynthesizer(
    options.tokenizer,
    options.corpus ?? codingCorpus(options.rng.derive("agent-trace.corpus")),
    options.rng.derive("agent-trace.prompts"),
  );
  const interrupt = new InterruptCheck(options.signal, "rebuilding the agent traces' prompts");
  const out: Conversation[] = [];
  let kept = traces;
  if (options.maxContextLength !== undefined) {
    const max = options.maxContextLength;
    kept = traces.filter((t) => peakContext(t, options.maxOsl) <= max);
    if (kept.length < traces.length) {
      options.warn?.(
        `${traces.length - kept.length} of ${traces.length} traces left out: their peak context exceeds ` +
          `--max-context-length ${max}`,
      );
    }
    if (kept.length === 0) {
      throw new DatasetError("--max-context-length", undefined, `${max} leaves out every trace; raise it`);
    }
  }
  for (const trace of kept) {
    const pause = interrupt.check();
    if (pause !== undefined) await pause;
    out.push(...await traceConversations(trace, synthesizer, options, fail));
  }
  if (out.length === 0 && options.maxIsl !== undefined) {
    throw new DatasetError("--synthesis-max-isl", undefined, `${options.maxIsl} leaves out every trace; raise it`);
  }
  return out;
}

async function traceConversations(
  trace: WekaTrace,
  synthesizer: PromptSynthesizer,
  options: AgentTraceOptions,
  fail: (trace: WekaTrace, reason: string) => never,
): Promise<Conversation[]> {
  const model = modelMap(trace, options.modelNames);
  // Block ids are per trace: a fresh cache gives each trace its own texts.
  const text = new HashBlockPrompts(synthesizer, trace.blockSize);
  const top: { outer: number; r: WekaRequest }[] = [];
  const subagents: { outer: number; s: WekaSubagent }[] = [];
  const maxIsl = options.maxIsl;
  trace.entries.forEach((e, outer) => {
    if (isSubagent(e)) subagents.push({ outer, s: e });
    else if (maxIsl === undefined || e.input <= maxIsl) top.push({ outer, r: e });
  });
  if (top.length === 0 && trace.entries.some((e) => !isSubagent(e))) {
    options.warn?.(`trace ${trace.id} left out: every request of its own is above --synthesis-max-isl ${maxIsl}`);
    return [];
  }
  top.sort((a, b) => a.r.t - b.r.t || a.outer - b.outer);
  const topChains = detectChains(top.map((x) => x.r));
  const main = (topChains[0] ?? []).map((i) => top[i]);
  // Sub-agent requests recorded relative to their spawn are moved onto the trace's timeline.
  const absolute = (s: WekaSubagent, r: WekaRequest): WekaRequest => r.t + EPSILON_S < s.t ? { ...r, t: s.t + r.t } : r;
  const subStreams = subagents.map(({ s }) => {
    const requests = s.requests.map((r) => absolute(s, r)).sort((a, b) => a.t - b.t);
    const chains = detectChains(requests);
    const firstHash = (rs: readonly WekaRequest[]) => rs.find((r) => r.hashIds.length > 0)?.hashIds ?? [];
    const mainReqs = (chains[0] ?? []).map((i) => requests[i]);
    const prefix = Math.ceil((s.toolTokens + s.systemTokens) / trace.blockSize);
    return chains.map((c, n): Stream => {
      const rs = c.map((i) => requests[i]);
      // A parallel stream has the declared system prompt only if it starts with the same blocks as the main one.
      const samePrefix = n === 0 || (prefix > 0 && sameStart(firstHash(mainReqs), firstHash(rs), prefix));
      return {
        id: n === 0 ? `${trace.id}::sa:${s.agentId}` : `${trace.id}::sa:${s.agentId}:fa:${pad(n - 1)}`,
        subagent: true,
        requests: rs,
        toolTokens: samePrefix ? s.toolTokens : 0,
        systemTokens: samePrefix ? s.systemTokens : 0,
      };
    });
  });
  const flatStreams = topChains.slice(1).map((c, n): Stream => ({
    id: `${trace.id}::fa:${pad(n)}`,
    requests: c.map((i) => top[i].r),
    toolTokens: 0,
    systemTokens: 0,
  }));
  const firstOuter = (c: readonly number[]) => Math.min(...c.map((i) => top[i].outer));

  // The timeline: recorded, or with long idle gaps cut.
  const allStarts = [
    ...top.map((x) => x.r.t),
    ...subStreams.flat().flatMap((s) => s.requests.map((r) => r.t)),
  ];
  const warp = options.idleGapCapS === undefined ? (t: number) => t : idleGapWarp(allStarts, options.idleGapCapS);
  const streamEnd = (rs: readonly WekaRequest[]) => Math.max(...rs.map((r) => warp(requestEnd(r))));
  const joinAfter = (outer: number, end: number): number | undefined => {
    const k = main.findIndex((m) => m.outer > outer && warp(m.r.t) + EPSILON_S >= end);
    return k < 0 ? undefined : k;
  };
  const groups = new Map<string, Group>();
  const addGroup = (turn: number, joinAt: number | undefined, start: number, streams: Stream[]) => {
    const key = `${turn}:${joinAt ?? "-"}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, { turn, joinAt, start, streams });
    else groups.set(key, { ...g, start: Math.min(g.start, start), streams: [...g.streams, ...streams] });
  };
  subagents.forEach(({ outer, s }, i) => {
    const preceding = main.findLastIndex((m) => m.outer < outer);
    if (preceding < 0) {
      options.warn?.(`trace ${trace.id}: sub-agent ${s.agentId} left out: no parent request comes before it`);
      return;
    }
    const streams = subStreams[i].filter((st) => st.requests.length > 0);
    if (streams.length === 0) return;
    const end = s.durationMs !== undefined
      ? warp(s.t + Math.max(0, s.durationMs / 1000))
      : streamEnd(streams.flatMap((st) => st.requests));
    addGroup(preceding, joinAfter(outer, end), warp(s.t), streams);
  });
  flatStreams.forEach((st, n) => {
    const outer = firstOuter(topChains[n + 1]);
    const preceding = Math.max(0, main.findLastIndex((m) => m.outer < outer));
    addGroup(preceding, joinAfter(outer, streamEnd(st.requests)), warp(st.requests[0].t), [st]);
  });

  const spawnsAt = new Map<number, Spawn[]>();
  const offsets = new Map<string, number>();
  for (const g of groups.values()) {
    const spawn: Spawn = g.joinAt === undefined
      ? { children: g.streams.map((s) => s.id) }
      : { children: g.streams.map((s) => s.id), joinAt: g.joinAt };
    spawnsAt.set(g.turn, [...(spawnsAt.get(g.turn) ?? []), spawn]);
    for (const s of g.streams) offsets.set(s.id, Math.max(0, (warp(s.requests[0].t) - g.start) * 1000));
  }
  const root = await streamConversation(
    { id: trace.id, requests: main.map((m) => m.r), toolTokens: trace.toolTokens, systemTokens: trace.systemTokens },
    { text, blockSize: trace.blockSize, model, warp, options, fail: (reason) => fail(trace, reason) },
    spawnsAt,
  );
  const children: Conversation[] = [];
  for (const g of groups.values()) {
    for (const s of g.streams) {
      const child = await streamConversation(
        s,
        { text, blockSize: trace.blockSize, model, warp, options, fail: (reason) => fail(trace, reason) },
        new Map(),
        offsets.get(s.id),
      );
      children.push({ ...child, child: true });
    }
  }
  return [root, ...children];
}

interface StreamContext {
  readonly text: HashBlockPrompts;
  readonly blockSize: number;
  readonly model: (m: string) => string;
  readonly warp: (t: number) => number;
  readonly options: AgentTraceOptions;
  readonly fail: (reason: string) => never;
}

async function streamConversation(
  stream: Stream,
  c: StreamContext,
  spawnsAt: ReadonlyMap<number, readonly Spawn[]>,
  startOffsetMs?: number,
): Promise<Conversation> {
  const context = new AgentContext(c.blockSize, c.text);
  const turns: Turn[] = [];
  for (let k = 0; k < stream.requests.length; k++) {
    const r = stream.requests[k];
    const prev = k > 0 ? stream.requests[k - 1] : undefined;
    try {
      if (prev === undefined) await context.first(r.hashIds, r.input, stream.toolTokens, stream.systemTokens);
      else await context.next(prev.hashIds, prev.output, r.hashIds, r.input);
    } catch (error) {
      if (error instanceof RangeError) c.fail(`stream ${stream.id}: ${error.message}`);
      throw error;
    }
    const { messages, reset } = context.delta();
    let delayMs: number | undefined;
    if (prev === undefined) delayMs = startOffsetMs;
    else if (c.options.thinkTimeOnly === true && c.options.idleGapCapS === undefined && r.thinkTime !== undefined) {
      delayMs = r.thinkTime * 1000;
    } else {
      // The idle gap: from the previous request's end to this one's start (a recorded overlap goes at once).
      const api = prev.apiTime !== undefined && Number.isFinite(prev.apiTime) ? prev.apiTime : 0;
      delayMs = Math.max(0, (c.warp(r.t) - c.warp(prev.t) - api) * 1000);
    }
    // Recorded seconds to ms, to the microsecond (no float residue in the dataset).
    if (delayMs !== undefined) delayMs = Math.round(delayMs * 1000) / 1000;
    const spawns = spawnsAt.get(k);
    turns.push({
      texts: [messages.map((m) => m.content).join("\n")],
      messages,
      model: c.model(r.model),
      maxTokens: cappedOutput(r.output, stream.subagent === true ? undefined : c.options.maxOsl),
      ...(delayMs !== undefined && delayMs > 0 ? { delayMs } : {}),
      recordedAtMs: Math.round(c.warp(r.t) * 1e6) / 1e3,
      ...(reset ? { resetContext: true } : {}),
      ...(spawns === undefined ? {} : { spawns }),
    });
  }
  return { id: stream.id, turns, contextMode: "deltas_with_responses" };
}

function sameStart(a: readonly number[], b: readonly number[], n: number): boolean {
  if (a.length < n || b.length < n) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

const pad = (n: number) => String(n).padStart(3, "0");

/** The agent-trace options out of a loader context. */
export function agentTraceOptions(ctx: LoaderContext | undefined): AgentTraceOptions {
  if (ctx === undefined) throw new TypeError("agent traces need a loader context (seed and tokenizer)");
  return agentTraceOptionValues(ctx.options ?? {}, ctx);
}

/**
 * The agent-trace options out of the run's option values: `--prompt-corpus sonnet` cuts blocks from the bundled
 * prose; otherwise from the coding corpus (AIPerf's default for agent traces).
 */
export function agentTraceOptionValues(
  o: Readonly<Record<string, unknown>>,
  ctx: {
    readonly rng: SeededRandom;
    readonly tokenizer?: Tokenizer | LazyTokenizer;
    readonly corpus?: string;
    readonly signal?: AbortSignal;
    readonly warn?: (message: string) => void;
  },
): AgentTraceOptions {
  const names = o.modelNames;
  const corpus = ctx.corpus ?? (o.promptCorpus === "sonnet" ? DEFAULT_CORPUS : undefined);
  return {
    rng: ctx.rng,
    tokenizer: ctx.tokenizer,
    ...(corpus === undefined ? {} : { corpus }),
    ...(Array.isArray(names) ? { modelNames: names as string[] } : {}),
    thinkTimeOnly: o.useThinkTimeOnly === true,
    ...(typeof o.traceIdleGapCapSeconds === "number" ? { idleGapCapS: o.traceIdleGapCapSeconds } : {}),
    ...(typeof o.maxContextLength === "number" ? { maxContextLength: o.maxContextLength } : {}),
    ...(typeof o[SYNTHESIS_KEYS.maxIsl] === "number" ? { maxIsl: o[SYNTHESIS_KEYS.maxIsl] as number } : {}),
    ...(typeof o[SYNTHESIS_KEYS.maxOsl] === "number" ? { maxOsl: o[SYNTHESIS_KEYS.maxOsl] as number } : {}),
    signal: ctx.signal,
    warn: ctx.warn,
  };
}

/** The trace files of `path`: itself, or a directory's `*.json` in name order. */
async function traceFiles(path: string): Promise<string[]> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    throw unreadable(path, error);
  }
  if (!info.isDirectory) return [path];
  const files: string[] = [];
  for await (const e of Deno.readDir(path)) if (e.isFile && e.name.endsWith(".json")) files.push(`${path}/${e.name}`);
  if (files.length === 0) throw new DatasetError(path, undefined, "has no *.json trace files");
  return files.sort();
}

async function readTrace(file: string): Promise<WekaTrace> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    throw unreadable(file, error);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DatasetError(file, undefined, `is not valid JSON (${(error as Error).message})`, { cause: error });
  }
  return parseWekaTrace(value, file);
}

export async function loadWekaTrace(path: string, ctx?: LoaderContext): Promise<Dataset> {
  const traces: WekaTrace[] = [];
  const seen = new Map<string, string>();
  for (const file of await traceFiles(path)) {
    const trace = await readTrace(file);
    const other = seen.get(trace.id);
    if (other !== undefined) throw new DatasetError(file, undefined, `trace id ${trace.id} is also ${other}'s`);
    seen.set(trace.id, file);
    traces.push(trace);
  }
  const conversations = await agentTraceConversations(traces, agentTraceOptions(ctx), (trace, reason) => {
    throw new DatasetError(seen.get(trace.id)!, undefined, reason);
  });
  const capped = typeof ctx?.options?.traceIdleGapCapSeconds === "number";
  return {
    conversations,
    defaultSampling: "sequential",
    source: "file",
    format: WEKA_TRACE,
    ...(capped ? { gapsCapped: true } : {}),
  };
}

/** Whether `record` is a Weka trace object (the first record of a `.json` file). */
function looksLikeWeka(record: unknown): boolean {
  return isObject(record) && typeof record.id === "string" && record.hash_id_scope !== undefined &&
    Array.isArray(record.requests) && typeof record.block_size === "number";
}

/** "3 traces: 3 root sessions, 5 sub-agent streams, 240 requests". */
export function describeAgentTraces(dataset: Dataset): string {
  const children = dataset.conversations.filter((c) => c.child === true).length;
  const roots = dataset.conversations.length - children;
  const requests = dataset.conversations.reduce((n, c) => n + c.turns.length, 0);
  return `${roots} trace${roots === 1 ? "" : "s"}, ${children} sub-agent stream${children === 1 ? "" : "s"}, ` +
    `${requests} request${requests === 1 ? "" : "s"}`;
}

export const wekaTraceLoader = {
  ...WEKA_TRACE_FORMAT,
  canLoad: looksLikeWeka,
  async canLoadDirectory(dir: string): Promise<boolean> {
    const names: string[] = [];
    for await (const e of Deno.readDir(dir)) if (e.isFile && e.name.endsWith(".json")) names.push(e.name);
    if (names.length === 0) return false;
    try {
      return looksLikeWeka(JSON.parse(await Deno.readTextFile(`${dir}/${names.sort()[0]}`)));
    } catch {
      return false;
    }
  },
  load: loadWekaTrace,
  describe: describeAgentTraces,
} as const satisfies DatasetLoader;
