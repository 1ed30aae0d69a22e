/**
 * Reads one streamed chat answer's SSE payloads, giving for each exactly what the chat adapter's `parseEvent` gives,
 * without a `JSON.parse` for the usual token chunk.
 *
 * Why: a stream's token chunks repeat the same bytes around their text (id, object, created, model, index,
 * logprobs, finish reason), and parsing each whole was most of the client's work per SSE event. Once a chunk has
 * been parsed in full and qualifies as a template (below), a later chunk whose bytes are the template's prefix,
 * then `{"content":"TEXT"}`, then the template's suffix, is the template with one object value replaced by another:
 * valid JSON, the same fields everywhere but that delta, so its Delta is the template's (nothing but content) with
 * TEXT as content. TEXT is taken only without a quote, a backslash or a control character, so it is the string
 * `JSON.parse` would give; anything else (an escape, reasoning, tool calls, a finish reason, usage, an error, a
 * changed prefix) goes the full way, with the full way's errors.
 *
 * A chunk becomes the template only when no backslash appears in it (keys are then written as they read), the key
 * `"delta"` appears in it once (so the object after it is `choices[0].delta`, the only one), its full parse gave
 * non-empty content and no other field, and its delta is `{"content":"…"}` or `{"role":"assistant","content":"…"}`
 * with a plain string.
 */
import type { Delta } from "../endpoint_adapter.ts";

const DELTA_KEY = '"delta"';
const TEXT_DELTA = '{"content":"';
/**
 * A template's delta value, matched where its `"delta":` ends. The string needs no check of its own: the chunk was
 * parsed as JSON and has no backslash, so the string holds neither a quote nor a control character.
 */
const TEMPLATE_DELTA = /\{(?:"role":"assistant",)?"content":"[^"]*"\}/y;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;

export class ChatChunkReader {
  /** The template's bytes up to its delta value (ending in `"delta":`), undefined before one qualifies. */
  #prefix: string | undefined = undefined;
  /** The template's bytes after its delta value. */
  #suffix = "";
  readonly #parseEvent: (data: string) => Delta | undefined;

  /** `parseEvent`: the full reading, which every payload not read from the template gets. */
  constructor(parseEvent: (data: string) => Delta | undefined) {
    this.#parseEvent = parseEvent;
  }

  readonly read = (data: string): Delta | undefined => {
    const prefix = this.#prefix;
    // A slice compared with `===` (one memory compare), not `startsWith`/`endsWith`: those compared char by char here,
    // and cost more than the parse they replace.
    if (prefix !== undefined && data.slice(0, prefix.length) === prefix) {
      const text = this.#templateText(data, prefix.length);
      if (text !== undefined) {
        // asText's rule: an empty string is no content. Every key, in readChoice's order, for one object shape.
        return {
          content: text.length > 0 ? text : undefined,
          reasoning: undefined,
          toolCalls: undefined,
          usage: undefined,
          finishReason: undefined,
          error: undefined,
          serverTiming: undefined,
          specDecode: undefined,
        };
      }
    }
    const delta = this.#parseEvent(data);
    if (delta !== undefined) this.#learn(data, delta);
    return delta;
  };

  /** The text of `data` when it is prefix + `{"content":"TEXT"}` + suffix with a plain TEXT; else undefined. */
  #templateText(data: string, at: number): string | undefined {
    if (!data.startsWith(TEXT_DELTA, at)) return undefined;
    const start = at + TEXT_DELTA.length;
    const suffix = this.#suffix;
    const quote = data.length - suffix.length - 2;
    if (quote < start || data.charCodeAt(quote) !== QUOTE || data.charCodeAt(quote + 1) !== CLOSE_BRACE) {
      return undefined;
    }
    if (data.slice(quote + 2) !== suffix) return undefined;
    for (let i = start; i < quote; i++) {
      const c = data.charCodeAt(i);
      if (c === QUOTE || c === BACKSLASH || c < 0x20) return undefined;
    }
    return data.slice(start, quote);
  }

  /** Makes `data` the template when it qualifies (see the module's comment); otherwise keeps the one there is. */
  #learn(data: string, delta: Delta): void {
    if (
      delta.content === undefined || delta.reasoning !== undefined || delta.toolCalls !== undefined ||
      delta.usage !== undefined || delta.finishReason !== undefined || delta.error !== undefined ||
      delta.serverTiming !== undefined || delta.specDecode !== undefined || delta.finalContent !== undefined ||
      delta.video !== undefined
    ) return;
    if (data.indexOf("\\") >= 0) return;
    const key = data.indexOf(DELTA_KEY);
    if (key < 0 || data.indexOf(DELTA_KEY, key + 1) >= 0 || data.charCodeAt(key + DELTA_KEY.length) !== 0x3a) return;
    const valueAt = key + DELTA_KEY.length + 1;
    TEMPLATE_DELTA.lastIndex = valueAt;
    const m = TEMPLATE_DELTA.exec(data);
    if (m === null) return;
    this.#prefix = data.slice(0, valueAt);
    this.#suffix = data.slice(valueAt + m[0].length);
  }
}
