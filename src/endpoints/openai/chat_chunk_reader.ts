/**
 * Reads one streamed chat answer's SSE payloads, giving for each exactly what the chat adapter's `parseEvent` gives,
 * without a `JSON.parse` for the usual token chunk.
 *
 * Why: a stream's token chunks repeat the same bytes around their text (id, object, created, model, index, the
 * delta's other fields, logprobs, finish reason), and parsing each whole was most of the client's work per SSE event.
 * Once a chunk has been parsed in full and qualifies as a template (below), a later chunk whose bytes are the
 * template's up to its content string, then a TEXT, then the template's from the string's closing quote on, is the
 * template with one string value replaced by another: valid JSON, the same fields everywhere but that string, so its
 * Delta is the template's (nothing but content) with TEXT as content. TEXT is taken only without a quote, a backslash
 * or a control character, so it is the string `JSON.parse` would give; anything else (an escape, reasoning, tool
 * calls, a finish reason, usage, an error, a changed prefix) goes the full way, with the full way's errors.
 *
 * A chunk becomes the template only when no backslash appears in it (keys and strings are then written as they
 * read), the key `"content"` appears in it once, followed by a string (so that string is `choices[0].delta.content`,
 * the only one), and its full parse gave non-empty content and no other field.
 */
import type { Delta } from "../endpoint_adapter.ts";

const CONTENT_KEY = '"content"';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

export class ChatChunkReader {
  /** The template's bytes up to its content string's opening quote, included; undefined before one qualifies. */
  #prefix: string | undefined = undefined;
  /** The template's bytes from its content string's closing quote on. */
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

  /** The text of `data` when it is prefix + TEXT + suffix with a plain TEXT; else undefined. */
  #templateText(data: string, start: number): string | undefined {
    const suffix = this.#suffix;
    const quote = data.length - suffix.length;
    if (quote < start || data.slice(quote) !== suffix) return undefined;
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
    const key = data.indexOf(CONTENT_KEY);
    if (key < 0 || data.indexOf(CONTENT_KEY, key + 1) >= 0) return;
    const colon = key + CONTENT_KEY.length;
    if (data.charCodeAt(colon) !== COLON || data.charCodeAt(colon + 1) !== QUOTE) return;
    // Parsed, and without a backslash: the string ends at the next quote.
    const open = colon + 1;
    const close = data.indexOf('"', open + 1);
    if (close < 0) return;
    this.#prefix = data.slice(0, open + 1);
    this.#suffix = data.slice(close);
  }
}
