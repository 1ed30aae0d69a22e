/**
 * AIPerf's `mooncake_trace` JSONL format (Mooncake / KV-cache traces): one request per line.
 *
 * ```jsonl
 * {"timestamp": 0, "input_length": 600, "output_length": 40, "hash_ids": [0, 1]}
 * {"timestamp": 250, "text_input": "Summarize TCP.", "output_length": 30}
 * {"session_id": "s1", "delay": 500, "input_length": 100, "output_length": 10}
 * {"timestamp": 900, "payload": {"model": "m", "messages": [{"role": "user", "content": "hi"}]}}
 * ```
 *
 * Exactly one input per line: `input_length` (a prompt synthesized to that many tokens; with `hash_ids`, blocks of
 * `--isl-block-size` tokens, default 512, shared between lines with the same id — see `hash_block_prompts.ts`),
 * `text_input` (the prompt as written) or `payload` (a complete request body sent as is). Optional: `output_length`
 * (→ max tokens), `timestamp` (ms; the run replays the trace on its schedule) or `delay` (ms after the previous
 * answer of the session), `session_id` (lines sharing it are one conversation, in file order, each line the next
 * user message, sent with the earlier ones and the server's real replies), `extra` (merged into the body).
 * A `messages` line (with optional `tools`) is sent with those messages as written (chat endpoint).
 */
import type { Conversation, Dataset, Turn } from "./conversation.ts";
import { MAX_PROMPT_TOKENS } from "./dataset_limits.ts";
import { InterruptCheck } from "../runtime/interrupt_check.ts";
import { UnknownFields } from "./unknown_fields.ts";
import { DatasetError } from "./dataset_error.ts";
import { messageText } from "./message_text.ts";
import type { DatasetLoader, LoaderContext } from "./dataset_loader.ts";
import { DEFAULT_CORPUS } from "./default_corpus.ts";
import { HashBlockPrompts } from "./hash_block_prompts.ts";
import { describeJson, field, isObject, type JsonRecord, readJsonRecords, recordError } from "./json_record.ts";
import { PromptSynthesizer } from "./prompt_synthesizer.ts";
import { synthesisParams, synthesizeTrace } from "./trace_synthesis.ts";
import { MOONCAKE_TRACE_FORMAT, TRACE_BLOCK_SIZE_KEY } from "./dataset_formats.ts";

export const MOONCAKE_TRACE = MOONCAKE_TRACE_FORMAT.name;
/** AIPerf's default tokens per hash block for Mooncake traces. */
export const MOONCAKE_BLOCK_SIZE = 512;

const INPUT_MODES = ["input_length", "text_input", "messages", "payload"] as const;

export function canLoadMooncakeTrace(record: unknown): boolean {
  if (!isObject(record)) return false;
  const type = field(record, "type");
  if (type !== undefined && type !== MOONCAKE_TRACE) return false;
  const modes = INPUT_MODES.filter((m) => field(record, m) !== undefined);
  if (modes.length !== 1) return false;
  if (field(record, "hash_ids") !== undefined && modes[0] !== "input_length") return false;
  // A bare chat body is a raw payload; a `messages` line is a trace line only with a trace field beside it.
  if (modes[0] === "messages") {
    return ["timestamp", "delay", "session_id", "output_length", "message_mode"].some((k) =>
      field(record, k) !== undefined
    );
  }
  return true;
}

/** A parsed line, before its prompt is synthesized. */
interface TraceLine {
  readonly line: number;
  readonly sessionId?: string;
  readonly turn: Turn;
  readonly synth?: { readonly length: number; readonly hashIds: readonly number[] };
}

function positiveInt(path: string, at: JsonRecord, name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw recordError(path, at, `"${name}" must be a positive integer (got ${describeJson(value)})`);
  }
  return value;
}

function millis(path: string, at: JsonRecord, name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw recordError(path, at, `"${name}" must be a number of milliseconds ≥ 0 (got ${describeJson(value)})`);
  }
  return value;
}

/** Every field a mooncake_trace line may have. */
const MOONCAKE_FIELDS = [
  ...INPUT_MODES,
  "type",
  "hash_ids",
  "output_length",
  "timestamp",
  "delay",
  "extra",
  "session_id",
  // Written by `synthesize agentic-code` on a session's first row (its prefix group, a restart's continuation);
  // replay does not need them.
  "group_id",
  "is_restart",
];

export function parseMooncakeLine(path: string, at: JsonRecord, fields?: UnknownFields): TraceLine {
  const r = at.record;
  const fail = (reason: string): never => {
    throw recordError(path, at, reason);
  };
  if (!isObject(r)) return fail(`expected a JSON object with "input_length" (got ${describeJson(r)})`);
  fields?.check(r, path, at.line);
  const type = field(r, "type");
  if (type !== undefined && type !== MOONCAKE_TRACE) {
    fail(`"type" is ${describeJson(type)} but this file is read as ${MOONCAKE_TRACE}`);
  }
  const modes = INPUT_MODES.filter((m) => field(r, m) !== undefined);
  if (modes.length !== 1) {
    fail(
      modes.length === 0
        ? `expected exactly one of "input_length", "text_input", "messages" or "payload" (found none)`
        : `"${modes.join('", "')}" cannot be combined; give exactly one input per line`,
    );
  }
  const mode = modes[0];
  if (field(r, "hash_ids") !== undefined && mode !== "input_length") {
    fail(`"hash_ids" needs "input_length" (the prompt is synthesized from its blocks)`);
  }
  const turn: { -readonly [K in keyof Turn]: Turn[K] } = { texts: [] };
  let synth: TraceLine["synth"];
  const tools = field(r, "tools");
  if (tools !== undefined && mode !== "messages") fail(`"tools" is only allowed with "messages"`);
  if (mode === "messages") {
    const messages = field(r, "messages");
    if (!Array.isArray(messages) || messages.length === 0) {
      fail(`"messages" must be a non-empty list of chat messages (got ${describeJson(messages)})`);
    }
    (messages as unknown[]).forEach((m, i) => {
      if (!isObject(m) || typeof m.role !== "string" || m.role === "") {
        fail(`"messages"[${i}] must be an object with a "role" (got ${describeJson(m)})`);
      }
    });
    if (tools !== undefined && (!Array.isArray(tools) || tools.length === 0)) {
      fail(`"tools" must be a non-empty list of tool definitions (got ${describeJson(tools)})`);
    }
    const written = messages as Record<string, unknown>[];
    turn.messages = written;
    if (tools !== undefined) turn.tools = tools as unknown[];
    turn.texts = [written.map(messageText).filter((t) => t.length > 0).join("\n")];
  } else if (mode === "payload") {
    const payload = field(r, "payload");
    if (!isObject(payload) || Object.keys(payload).length === 0) {
      fail(`"payload" must be a non-empty object, the request body (got ${describeJson(payload)})`);
    }
    turn.rawPayload = JSON.stringify(payload);
  } else if (mode === "text_input") {
    const text = field(r, "text_input");
    if (typeof text !== "string" || text === "") fail(`"text_input" must be a non-empty string`);
    turn.texts = [text as string];
  } else {
    const length = positiveInt(path, at, "input_length", field(r, "input_length"));
    const ids = field(r, "hash_ids") ?? [];
    if (!Array.isArray(ids) || !ids.every((id) => Number.isInteger(id))) {
      fail(`"hash_ids" must be a list of integers (got ${describeJson(ids)})`);
    }
    synth = { length, hashIds: ids as number[] };
  }
  const output = field(r, "output_length");
  if (output !== undefined) turn.maxTokens = positiveInt(path, at, "output_length", output);
  const timestamp = field(r, "timestamp");
  const delay = field(r, "delay");
  if (timestamp !== undefined && delay !== undefined) fail(`"timestamp" and "delay" cannot both be set`);
  if (timestamp !== undefined) turn.timestampMs = millis(path, at, "timestamp", timestamp);
  if (delay !== undefined) turn.delayMs = millis(path, at, "delay", delay);
  const extra = field(r, "extra");
  if (extra !== undefined) {
    if (!isObject(extra)) fail(`"extra" must be an object of request-body fields (got ${describeJson(extra)})`);
    turn.extra = extra as Record<string, unknown>;
  }
  const sessionId = field(r, "session_id");
  if (sessionId !== undefined && (typeof sessionId !== "string" || sessionId === "")) {
    fail(`"session_id" must be a non-empty string (got ${describeJson(sessionId)})`);
  }
  return { line: at.line, ...(sessionId === undefined ? {} : { sessionId: sessionId as string }), turn, synth };
}

/**
 * Group trace lines into conversations (a `session_id` groups, in file order; other lines are their own), then
 * synthesize the prompts of `input_length` lines.
 */
export type { TraceLine };

export async function traceConversations(
  path: string,
  lines: readonly TraceLine[],
  ctx: LoaderContext | undefined,
  defaultBlockSize: number,
  idPrefix: string,
): Promise<Conversation[]> {
  const configured = ctx?.options?.[TRACE_BLOCK_SIZE_KEY];
  const blockSize = typeof configured === "number" ? configured : defaultBlockSize;
  const synthesis = synthesisParams(ctx?.options);
  if (ctx !== undefined && Object.keys(synthesis).length > 0) {
    // Sessions together, in the order they first appear: the order AIPerf's synthesis walks them in.
    const rank = new Map<string, number>();
    const keyOf = (l: TraceLine, i: number) => l.sessionId ?? `\0${i}`;
    lines.forEach((l, i) => rank.has(keyOf(l, i)) || rank.set(keyOf(l, i), i));
    const ordered = lines.map((l, i) => ({ l, r: rank.get(keyOf(l, i))!, i }))
      .sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.l);
    lines = synthesizeTrace(path, ordered, synthesis, blockSize, ctx.rng.derive("trace.synthesis"));
  }
  // Before any prompt is built, so a typo late in a long trace costs no time and never runs out of memory.
  for (const line of lines) {
    if (line.synth !== undefined && line.synth.length > MAX_PROMPT_TOKENS) {
      throw new DatasetError(
        path,
        line.line,
        `an input length of ${line.synth.length} tokens is above the ${MAX_PROMPT_TOKENS.toLocaleString("en-US")} ` +
          "a prompt may have; check the value (and its unit: tokens).",
      );
    }
  }
  const groups: { id: string; lines: TraceLine[] }[] = [];
  const byId = new Map<string, { id: string; lines: TraceLine[] }>();
  for (const line of lines) {
    const existing = line.sessionId === undefined ? undefined : byId.get(line.sessionId);
    if (existing !== undefined) existing.lines.push(line);
    else {
      const group = { id: line.sessionId ?? `${idPrefix}${groups.length}`, lines: [line] };
      if (line.sessionId !== undefined) byId.set(line.sessionId, group);
      groups.push(group);
    }
  }
  let prompts: HashBlockPrompts | undefined;
  if (lines.some((l) => l.synth !== undefined)) {
    if (ctx?.tokenizer === undefined) {
      throw new TypeError(`Loading ${path} synthesizes prompts and needs a tokenizer; pass ctx.tokenizer`);
    }
    const synthesizer = new PromptSynthesizer(
      ctx.tokenizer,
      ctx.corpus ?? DEFAULT_CORPUS,
      ctx.rng.derive("trace.prompts"),
    );
    prompts = new HashBlockPrompts(synthesizer, blockSize);
  }
  const conversations: Conversation[] = [];
  const interrupt = new InterruptCheck(ctx?.signal, `building the prompts of ${path}`);
  for (const group of groups) {
    const turns: Turn[] = [];
    for (const line of group.lines) {
      const pause = interrupt.check();
      if (pause !== undefined) await pause;
      if (line.synth === undefined) {
        turns.push(line.turn);
        continue;
      }
      let text: string;
      try {
        text = await prompts!.prompt(line.synth.length, line.synth.hashIds);
      } catch (error) {
        if (error instanceof RangeError) throw new DatasetError(path, line.line, error.message, { cause: error });
        throw error;
      }
      turns.push({ ...line.turn, texts: [text] });
    }
    // Lines holding their whole request (a payload, or the messages) are sent as written, without history.
    const raw = turns.some((t) => t.rawPayload !== undefined || t.messages !== undefined);
    conversations.push(
      raw ? { id: group.id, turns, contextMode: "message_array_with_responses" } : { id: group.id, turns },
    );
  }
  return conversations;
}

export async function loadMooncakeTrace(path: string, ctx?: LoaderContext): Promise<Dataset> {
  const lines: TraceLine[] = [];
  const fields = new UnknownFields(MOONCAKE_TRACE, MOONCAKE_FIELDS, { strict: ctx?.strict, warn: ctx?.warn });
  for await (const at of readJsonRecords(path, { signal: ctx?.signal })) {
    lines.push(parseMooncakeLine(path, at, fields));
  }
  if (lines.length === 0) throw new DatasetError(path, undefined, "has no records; write one request per line");
  const conversations = await traceConversations(path, lines, ctx, MOONCAKE_BLOCK_SIZE, "trace_");
  return { conversations, defaultSampling: "sequential", source: "file", format: MOONCAKE_TRACE };
}

/** "120 requests in 80 sessions over 35.2 s": what a timestamped trace holds. */
export function describeTrace(dataset: Dataset): string {
  const turns = dataset.conversations.reduce((n, c) => n + c.turns.length, 0);
  const stamps = dataset.conversations.map((c) => c.turns[0]?.timestampMs).filter((t) => t !== undefined);
  const span = stamps.length > 1 ? (Math.max(...stamps) - Math.min(...stamps)) / 1000 : undefined;
  return `${turns} request${turns === 1 ? "" : "s"} in ${dataset.conversations.length} session` +
    `${dataset.conversations.length === 1 ? "" : "s"}` +
    (span !== undefined ? `, first turns over ${Number(span.toPrecision(4))} s` : "");
}

export const mooncakeTraceLoader = {
  ...MOONCAKE_TRACE_FORMAT,
  canLoad: canLoadMooncakeTrace,
  load: loadMooncakeTrace,
  describe: describeTrace,
} as const satisfies DatasetLoader;
