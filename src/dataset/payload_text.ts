/**
 * The prompt inside a request body, so its ISL is counted from what the request carries, as AIPerf 0.13 does
 * (`extract_payload_inputs`, `compute_input_token_count`: "Source of truth is `request_info.payload_bytes`"): a
 * top-level `system` or `instructions` string, then the items of a chat `messages` or Responses `input` array (a
 * string `content`, the `text` of its content parts, replayed tool calls' name and arguments), then the `tools`
 * schemas; without an items array, a completions `prompt`, an embeddings `input`, a rankings `query` and
 * `passages`, or HuggingFace `inputs`. The ISL is the token count of these texts joined by one space; with
 * `--apply-chat-template`, of the chat template rendered over the role/content view of the items.
 */
import type { ChatMessage } from "../tokenizer/chat_template.ts";

/** A body's tokenisable texts in wire order, and its chat view when it carries an items array. */
export interface InputPrompt {
  readonly texts: readonly string[];
  /** Role and text of each item with a role (system/instructions first); absent for flat bodies. */
  readonly messages?: readonly ChatMessage[];
}

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function nonEmptyStrings(source: JsonObject, keys: readonly string[], out: string[]): void {
  for (const key of keys) {
    const v = source[key];
    if (typeof v === "string" && v.length > 0) out.push(v);
  }
}

/** Text parts of one content value (string, or parts with a `text`); returns this item's own parts. */
function contentTexts(content: unknown, out: string[]): string[] {
  const own: string[] = [];
  if (typeof content === "string") own.push(content);
  else if (Array.isArray(content)) {
    for (const part of content) {
      if (typeof part === "string") own.push(part);
      else if (isObject(part) && typeof part.text === "string") own.push(part.text);
    }
  }
  out.push(...own);
  return own;
}

function itemsArray(body: JsonObject, texts: string[], messages: ChatMessage[]): boolean {
  let found = false;
  for (const key of ["messages", "input"]) {
    const items = body[key];
    if (!Array.isArray(items) || !items.some((i) => isObject(i) && ("role" in i || "type" in i))) continue;
    found = true;
    for (const item of items) {
      if (!isObject(item)) continue;
      const own = contentTexts(item.content, texts);
      if (Array.isArray(item.tool_calls)) {
        for (const call of item.tool_calls) {
          if (isObject(call) && isObject(call.function)) nonEmptyStrings(call.function, ["name", "arguments"], texts);
        }
      }
      if (item.type === "function_call") nonEmptyStrings(item, ["name", "arguments"], texts);
      else if (item.type === "function_call_output") nonEmptyStrings(item, ["output"], texts);
      if (typeof item.role === "string") messages.push({ role: item.role, content: own.join("") });
    }
  }
  return found;
}

function toolSchemas(body: JsonObject, texts: string[]): void {
  if (!Array.isArray(body.tools)) return;
  for (const tool of body.tools) {
    if (!isObject(tool)) continue;
    for (const source of [tool.function, tool]) {
      if (!isObject(source)) continue;
      nonEmptyStrings(source, ["name", "description"], texts);
      if (isObject(source.parameters)) texts.push(JSON.stringify(source.parameters));
    }
  }
}

function flatFields(body: JsonObject, texts: string[]): void {
  for (const key of ["prompt", "input"]) {
    const v = body[key];
    if (typeof v === "string") return void texts.push(v);
    if (Array.isArray(v) && v.every((s) => typeof s === "string")) return void texts.push(...v);
  }
  if (typeof body.query === "string" && Array.isArray(body.passages)) {
    texts.push(body.query);
    for (const p of body.passages) {
      if (typeof p === "string") texts.push(p);
      else if (isObject(p) && typeof p.text === "string") texts.push(p.text);
    }
    return;
  }
  const query = isObject(body.query) ? body.query.text : undefined;
  if (typeof query === "string" && Array.isArray(body.passages)) {
    texts.push(query);
    for (const p of body.passages) if (isObject(p) && typeof p.text === "string") texts.push(p.text);
    return;
  }
  if (typeof body.inputs === "string") texts.push(body.inputs);
}

/** The prompt a request body carries (see the file comment for what counts). */
export function payloadPrompt(payload: unknown): InputPrompt {
  if (!isObject(payload)) return { texts: [] };
  const texts: string[] = [];
  const messages: ChatMessage[] = [];
  const lead: string[] = [];
  for (const key of ["system", "instructions"]) {
    const own = contentTexts(payload[key], lead);
    if (own.length > 0) messages.push({ role: "system", content: own.join("") });
  }
  texts.push(...lead);
  const items = itemsArray(payload, texts, messages);
  toolSchemas(payload, texts);
  if (!items) flatFields(payload, texts);
  return items ? { texts, messages } : { texts };
}

/** The text whose token count is the body's ISL: its prompt texts joined by one space ("" when it has none). */
export function payloadText(payload: unknown): string {
  return promptText(payloadPrompt(payload));
}

/** AIPerf's bare-text ISL rule: the texts joined by one space. */
export function promptText(prompt: InputPrompt): string {
  return prompt.texts.join(" ");
}
