/**
 * The Exgentic agent LLM traces (`--public-dataset exgentic`, `exgentic_v2`), as AIPerf 0.13 replays them: each row
 * is one agent session (`harness`, `session_id`, `models`, `spans`, v2 also `benchmark`); each replayable span (an
 * `llm_call`, or an untyped span whose `gen_ai.operation.name` is `chat`; failed spans and spans without tokens are
 * skipped) is one request sent exactly as recorded: the system instructions and input messages (text, reasoning,
 * tool calls and tool results normalised to chat messages), the tool definitions, temperature and stop sequences, and
 * `max_tokens` as requested (else the recorded output tokens). A session's requests go in start order, each after the
 * previous one's recorded end (overlaps go at once); with `--fixed-schedule` each request is a session of its own at
 * its recorded offset from the session's start, so overlapping calls overlap again.
 *
 * `--dataset-filter harness=…`, `source_model=…` (provider prefixes dropped) and, for v2, `benchmark=…` keep the
 * matching sessions; combinations a version does not hold are refused with the ones it does. At most
 * `--conversation-num` (else `--request-count`, else 100) sessions are read: the dataset is large.
 */
import type { Conversation, Turn } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { HfReadContext, HfRowReader } from "./hf_reader.ts";
import type { HfRow } from "./hf_rows.ts";
import { messageText } from "./message_text.ts";

const HARNESSES = ["claude_code", "openai_solo", "smolagents_code", "tool_calling", "tool_calling_with_shortlisting"];
const SOURCE_MODELS = [
  "DeepSeek-V3.2",
  "Kimi-K2.5",
  "claude-opus-4-5",
  "gemini-3-pro-preview",
  "gpt-4.1",
  "gpt-5.2-2025-12-11",
];
const BENCHMARKS = ["appworld", "browsecompplus", "swebench", "tau2_airline", "tau2_retail", "tau2_telecom"];

/** Harness/model pairs each version holds no trace of (AIPerf's unsupported filter pairs). */
const V1_MISSING = [
  "openai_solo/gpt-5.2-2025-12-11",
  "smolagents_code/claude-opus-4-5",
  "smolagents_code/gemini-3-pro-preview",
  "smolagents_code/gpt-5.2-2025-12-11",
  "tool_calling/gpt-5.2-2025-12-11",
  "tool_calling_with_shortlisting/claude-opus-4-5",
  "tool_calling_with_shortlisting/gpt-4.1",
  "tool_calling_with_shortlisting/gpt-5.2-2025-12-11",
];
const V2_MISSING = [
  "claude_code/gpt-4.1",
  "openai_solo/gpt-4.1",
  "smolagents_code/gpt-4.1",
  "tool_calling/gpt-4.1",
  "tool_calling_with_shortlisting/claude-opus-4-5",
  "tool_calling_with_shortlisting/gpt-4.1",
  "tool_calling_with_shortlisting/gpt-5.2-2025-12-11",
];

/** Sessions read when no count is given (AIPerf's default dataset entries). */
const DEFAULT_SESSIONS = 100;

/** A recorded model name without its provider prefix. */
export function canonicalSourceModel(value: string): string {
  const lower = value.toLowerCase();
  for (const prefix of ["openai/azure/", "azure/", "aws/", "gcp/"]) {
    if (lower.startsWith(prefix)) return value.slice(prefix.length);
  }
  return value;
}

interface Filters {
  harness?: string;
  sourceModel?: string;
  benchmark?: string;
}

/** `--dataset-filter key=value` entries checked against what the version holds. */
function parseFilters(raw: readonly string[], v2: boolean, name: string): Filters {
  const filters: Filters = {};
  const missing = v2 ? V2_MISSING : V1_MISSING;
  const available = `harness=[${HARNESSES.join(", ")}], source_model=[${SOURCE_MODELS.join(", ")}]` +
    (v2 ? `, benchmark=[${BENCHMARKS.join(", ")}]` : "");
  const refuse = (why: string): never => {
    throw new DatasetError(`--dataset-filter`, undefined, `${why} (--public-dataset ${name}); available: ${available}`);
  };
  const pick = (choices: readonly string[], value: string, key: string) =>
    choices.find((c) => c.toLowerCase() === value.toLowerCase()) ?? refuse(`${key}=${value} is not a known value`);
  for (const entry of raw) {
    const at = entry.indexOf("=");
    if (at <= 0) refuse(`'${entry}' is not key=value`);
    const key = entry.slice(0, at).trim(), value = entry.slice(at + 1).trim();
    if (key === "harness") filters.harness = pick(HARNESSES, value, key);
    else if (key === "source_model") filters.sourceModel = pick(SOURCE_MODELS, canonicalSourceModel(value), key);
    else if (key === "benchmark" && v2) filters.benchmark = pick(BENCHMARKS, value, key);
    else refuse(`'${key}' is not a filter of this dataset`);
  }
  if (filters.harness !== undefined && filters.sourceModel !== undefined) {
    if (missing.includes(`${filters.harness}/${filters.sourceModel}`)) {
      const models = SOURCE_MODELS.filter((m) => !missing.includes(`${filters.harness}/${m}`));
      refuse(
        `harness=${filters.harness} with source_model=${filters.sourceModel} holds no trace; source models for ` +
          `this harness: ${models.join(", ")}`,
      );
    }
  }
  if (filters.sourceModel !== undefined && HARNESSES.every((h) => missing.includes(`${h}/${filters.sourceModel}`))) {
    refuse(`source_model=${filters.sourceModel} holds no trace in any harness`);
  }
  return filters;
}

function jsonList(value: unknown, field: string): Record<string, unknown>[] {
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      throw new RangeError(`${field} is not valid JSON (${(error as Error).message})`);
    }
  }
  if (!Array.isArray(parsed) || !parsed.every((x) => x !== null && typeof x === "object" && !Array.isArray(x))) {
    throw new RangeError(`${field} must be a JSON array of objects`);
  }
  return parsed as Record<string, unknown>[];
}

const jsonString = (v: unknown) => typeof v === "string" ? v : JSON.stringify(v);

/** One recorded message (role + parts) as chat messages: tool results become `tool` messages of their own. */
function chatMessages(message: Record<string, unknown>): Record<string, unknown>[] {
  const role = message.role, parts = message.parts;
  if (typeof role !== "string" || !Array.isArray(parts)) {
    throw new RangeError("each input message needs a string role and a parts array");
  }
  const out: Record<string, unknown>[] = [];
  let content: string[] = [], reasoning: string[] = [], calls: unknown[] = [];
  const flush = () => {
    const m: Record<string, unknown> = { role: role === "developer" ? "system" : role, content: content.join("") };
    if (reasoning.length > 0) m.reasoning_content = reasoning.join("");
    if (calls.length > 0) m.tool_calls = calls;
    out.push(m);
    content = [], reasoning = [], calls = [];
  };
  for (const part of parts) {
    if (part === null || typeof part !== "object") throw new RangeError("message parts must be objects");
    const p = part as Record<string, unknown>;
    if (p.type === "tool_call_response") {
      if (content.length + reasoning.length + calls.length > 0) flush();
      out.push({ role: "tool", tool_call_id: p.id, content: jsonString(p.result) });
    } else if (p.type === "text") content.push(String(p.content ?? ""));
    else if (p.type === "thinking") reasoning.push(String(p.thinking ?? ""));
    else if (p.type === "tool_call") {
      calls.push({ id: p.id, type: "function", function: { name: p.name, arguments: jsonString(p.arguments) } });
    } else throw new RangeError(`unsupported '${role}' message part '${String(p.type)}'`);
  }
  if (content.length + reasoning.length + calls.length > 0 || out.length === 0) flush();
  return out;
}

function systemMessages(value: unknown): Record<string, unknown>[] {
  if (value === undefined || value === null || value === "") return [];
  if (typeof value !== "string") throw new RangeError("gen_ai.system_instructions must be a string");
  try {
    return chatMessages({ role: "system", parts: jsonList(value, "gen_ai.system_instructions") });
  } catch {
    return [{ role: "system", content: value }];
  }
}

function tools(value: unknown): unknown[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = jsonList(value, "gen_ai.tool.definitions").map((t) => {
    if (t.type !== "function") throw new RangeError(`unsupported tool type '${String(t.type)}'`);
    return { type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } };
  });
  return list.length > 0 ? list : undefined;
}

function extra(attributes: Record<string, unknown>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const temperature = attributes["gen_ai.request.temperature"];
  if (temperature !== undefined && temperature !== null) {
    if (typeof temperature !== "number" || !Number.isFinite(temperature)) {
      throw new RangeError("gen_ai.request.temperature must be a finite number");
    }
    out.temperature = temperature;
  }
  const stop = attributes["gen_ai.request.stop_sequences"];
  if (stop !== undefined && stop !== null) {
    if (!Array.isArray(stop) || !stop.every((s) => typeof s === "string")) {
      throw new RangeError("gen_ai.request.stop_sequences must be a list of strings");
    }
    if (stop.length > 0) out.stop = stop;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function timeMs(value: unknown): number {
  if (typeof value !== "string") throw new RangeError("start_time and end_time must be ISO-8601 timestamps");
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
  if (Number.isNaN(ms)) throw new RangeError(`'${value}' is not an ISO-8601 timestamp`);
  return ms;
}

interface Call {
  readonly start: number;
  readonly index: number;
  readonly end: number;
  readonly turn: Turn;
}

function parseSpan(span: Record<string, unknown>): Call | "skip" {
  const attributes = (span.attributes ?? {}) as Record<string, unknown>;
  const replayable = span.type === "llm_call" ||
    ((span.type === undefined || span.type === null) && attributes["gen_ai.operation.name"] === "chat");
  if (!replayable) return "skip";
  if ((span.status as Record<string, unknown> | undefined)?.code === 2) return "skip";
  const input = attributes["gen_ai.usage.input_tokens"], output = attributes["gen_ai.usage.output_tokens"];
  if (!Number.isInteger(input) || !Number.isInteger(output)) throw new RangeError("has non-integer token counts");
  if ((input as number) <= 0 || (output as number) <= 0) return "skip";
  const start = timeMs(span.start_time), end = timeMs(span.end_time);
  if (end < start) throw new RangeError("ends before it starts");
  const requested = attributes["gen_ai.request.max_tokens"];
  if (requested !== undefined && requested !== null && (!Number.isInteger(requested) || (requested as number) < 1)) {
    throw new RangeError("gen_ai.request.max_tokens must be a positive integer");
  }
  const messages = [
    ...systemMessages(attributes["gen_ai.system_instructions"]),
    ...jsonList(attributes["gen_ai.input.messages"], "gen_ai.input.messages").flatMap(chatMessages),
  ];
  const t = tools(attributes["gen_ai.tool.definitions"]);
  const x = extra(attributes);
  return {
    start,
    index: 0,
    end,
    turn: {
      texts: [messages.map(messageText).filter((s) => s.length > 0).join("\n")],
      messages,
      maxTokens: (requested as number | undefined) ?? (output as number),
      ...(t === undefined ? {} : { tools: t }),
      ...(x === undefined ? {} : { extra: x }),
    },
  };
}

/** The reader of one Exgentic version (v2 adds the benchmark filter). */
export function exgenticReader(v2: boolean): HfRowReader {
  return async (rows: AsyncIterable<HfRow>, ctx: HfReadContext): Promise<Conversation[]> => {
    const options = ctx.options ?? {};
    const filters = parseFilters((options.datasetFilter as string[] | undefined) ?? [], v2, ctx.name);
    const fixedSchedule = options.fixedSchedule === true;
    const cap = ctx.entries ?? ctx.limit ?? DEFAULT_SESSIONS;
    const out: Conversation[] = [];
    const seen = new Set<string>();
    const combinations = new Set<string>();
    let sessions = 0;
    let index = 0;
    for await (const row of rows) {
      index++;
      const fail = (why: string): never => {
        throw new DatasetError(ctx.where, undefined, `row ${index}: ${why}`);
      };
      const harness = row.harness, sid = row.session_id;
      if (typeof harness !== "string" || harness === "") fail("has no harness");
      if (typeof sid !== "string" || sid === "") fail("has no session_id");
      const models = row.models, spans = row.spans;
      if (!Array.isArray(models) || !models.every((m) => typeof m === "string" && m !== "")) {
        fail("models must be a list of non-empty strings");
      }
      if (!Array.isArray(spans) || !spans.every((s) => s !== null && typeof s === "object")) {
        fail("spans must be a list of objects");
      }
      const sources = (models as string[]).map(canonicalSourceModel);
      for (const m of sources) combinations.add(`${harness}/${m}`);
      if (filters.harness !== undefined && harness !== filters.harness) continue;
      if (
        filters.sourceModel !== undefined &&
        !sources.some((m) => m.toLowerCase() === filters.sourceModel!.toLowerCase())
      ) continue;
      if (filters.benchmark !== undefined && row.benchmark !== filters.benchmark) continue;
      const calls: Call[] = [];
      (spans as Record<string, unknown>[]).forEach((span, i) => {
        let call: Call | "skip";
        try {
          call = parseSpan(span);
        } catch (error) {
          if (error instanceof RangeError) fail(`session ${sid} span ${i}: ${error.message}`);
          throw error;
        }
        if (call !== "skip") calls.push({ ...call, index: i });
      });
      calls.sort((a, b) => a.start - b.start || a.index - b.index);
      if (calls.length === 0) continue;
      if (seen.has(sid as string)) fail(`session_id ${sid} repeats an earlier row's`);
      seen.add(sid as string);
      if (fixedSchedule) {
        for (const c of calls) {
          out.push({
            id: `${sid}:${c.index}`,
            turns: [{ ...c.turn, timestampMs: c.start - calls[0].start }],
            contextMode: "message_array_with_responses",
          });
        }
      } else {
        const turns = calls.map((c, k) =>
          k === 0 ? c.turn : { ...c.turn, delayMs: Math.max(0, c.start - calls[k - 1].end) }
        );
        out.push({ id: sid as string, turns, contextMode: "message_array_with_responses" });
      }
      if (++sessions >= cap) break;
    }
    if (out.length === 0) {
      const have = [...combinations].sort().join(", ") || "none";
      throw new DatasetError(
        ctx.where,
        undefined,
        `has no replayable session matching the filters (harness=${filters.harness ?? "any"}, source_model=` +
          `${filters.sourceModel ?? "any"}${v2 ? `, benchmark=${filters.benchmark ?? "any"}` : ""}); ` +
          `combinations seen: ${have}`,
      );
    }
    return out;
  };
}
