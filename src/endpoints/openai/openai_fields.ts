/**
 * Field readers shared by the OpenAI-style adapters. Servers differ in small ways (vLLM `reasoning_content`
 * vs OpenAI/Ollama `reasoning`, usage inside or beside choices), so every reader tolerates missing fields
 * and wrong types instead of throwing.
 */
import type { Delta, HeaderContext, Usage } from "../endpoint_adapter.ts";
import { readUsageFields } from "../usage_fields.ts";

export type JsonObject = Record<string, unknown>;

export function asObject(value: unknown): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as JsonObject : undefined;
}

function asNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/**
 * A usage count as the server sent it, checked later (engine/usage_check.ts): absent or null → undefined, any number
 * as it is (negative, fractional or infinite included), anything else → NaN, so a wrong value is reported rather
 * than dropped.
 */
export function asCount(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === "number" ? value : NaN;
}

function asText(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** OpenAI `usage` → Usage (every vendor spelling AIPerf reads: `usage_fields.ts`). */
export function readUsage(value: unknown): Usage | undefined {
  return readUsageFields(value);
}

/** An `{"error": {...}}` or `{"object": "error", ...}` body, as OpenAI, vLLM and SGLang send them. */
export function readApiError(obj: JsonObject): Delta["error"] | undefined {
  const nested = asObject(obj.error);
  const src = nested ?? (obj.object === "error" ? obj : undefined);
  if (!src) {
    if (typeof obj.error === "string") return { message: obj.error };
    return undefined;
  }
  const message = typeof src.message === "string" ? src.message : JSON.stringify(src);
  const type = typeof src.type === "string" ? src.type : undefined;
  const code = asNumber(src.code);
  return { message, type, code };
}

/** Tool-call text counted as output (function name + arguments), streaming fragments or whole calls. */
export function readToolCallText(value: unknown, legacyFunctionCall?: unknown): string | undefined {
  let text = "";
  if (Array.isArray(value)) {
    for (const call of value) {
      const fn = asObject(asObject(call)?.function);
      if (!fn) continue;
      if (typeof fn.name === "string") text += fn.name;
      if (typeof fn.arguments === "string") text += fn.arguments;
    }
  }
  const legacy = asObject(legacyFunctionCall);
  if (legacy) {
    if (typeof legacy.name === "string") text += legacy.name;
    if (typeof legacy.arguments === "string") text += legacy.arguments;
  }
  return text.length > 0 ? text : undefined;
}

/** Reasoning text: vLLM/DeepSeek `reasoning_content`, OpenAI-compatible `reasoning` (string). */
export function readReasoning(obj: JsonObject): string | undefined {
  return asText(obj.reasoning_content) ?? asText(obj.reasoning);
}

export { asNumber, asText };

/** OpenAI-style streams end with `data: [DONE]`. */
export function isDoneEvent(data: string): boolean {
  return data.length === 6 && data === "[DONE]";
}

/**
 * Parse an SSE data payload as JSON. `[DONE]` and empty payloads → undefined. Malformed JSON throws a
 * SyntaxError naming the payload, which the engine turns into a record error.
 */
export function parseSseJson(data: string): JsonObject | undefined {
  if (data.length === 0 || data === "[DONE]") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch (cause) {
    const shown = data.length > 200 ? data.slice(0, 200) + "…" : data;
    throw new SyntaxError(`the server sent an SSE event that is not JSON: ${shown}`, { cause });
  }
  return asObject(parsed);
}

/**
 * Merge order shared by every adapter (AIPerf): adapter fields < `--extra-inputs` < the turn's `extra`.
 */
export function mergeExtras(
  body: JsonObject,
  extraInputs: Readonly<Record<string, unknown>>,
  turnExtra: Readonly<Record<string, unknown>> | undefined,
): JsonObject {
  for (const [k, v] of Object.entries(extraInputs)) body[k] = v;
  if (turnExtra) { for (const [k, v] of Object.entries(turnExtra)) body[k] = v; }
  return body;
}

/**
 * {@link mergeExtras} for an API whose fields named in `reserved` are written from the turn (an upload, its prompt):
 * `--extra-inputs` and a turn's extras cannot replace them (AIPerf ignores such keys too).
 */
export function mergeExtrasExcept(
  body: JsonObject,
  reserved: ReadonlySet<string>,
  extraInputs: Readonly<Record<string, unknown>>,
  turnExtra: Readonly<Record<string, unknown>> | undefined,
): JsonObject {
  for (const extras of [extraInputs, turnExtra ?? {}]) {
    for (const [k, v] of Object.entries(extras)) if (!reserved.has(k)) body[k] = v;
  }
  return body;
}

/** JSON in, JSON or SSE out, the credential as a bearer token: what every OpenAI-style API expects. */
export function openAiHeaders(ctx: HeaderContext): ReadonlyArray<readonly [string, string]> {
  const headers: [string, string][] = [
    ["Content-Type", "application/json"],
    ["Accept", ctx.streaming ? "text/event-stream" : "application/json"],
  ];
  if (ctx.apiKey !== undefined) headers.push(["Authorization", `Bearer ${ctx.apiKey}`]);
  return headers;
}
