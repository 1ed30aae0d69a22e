/**
 * What the embeddings adapters share: reading an OpenAI-style embeddings answer (`{"object":"list","data":[{"object":
 * "embedding","embedding":[…],"index":0}],"usage":{"prompt_tokens":…,"total_tokens":…}}`), as OpenAI, vLLM, NIM and
 * TEI's OpenAI route send it. An answer without embeddings is an error: a request that returned nothing to measure
 * must not count as a success.
 */
import type { Delta } from "../endpoint_adapter.ts";
import { asObject, parseSseJson, readApiError, readUsage } from "./openai_fields.ts";

export function readEmbeddings(json: unknown): Delta {
  const obj = asObject(json);
  if (!obj) return { error: { message: "the response body is not a JSON object", type: "ParseError" } };
  const usage = readUsage(obj.usage);
  const error = readApiError(obj);
  if (error) return { error, usage };
  const data = Array.isArray(obj.data) ? obj.data : [];
  if (data.length === 0) {
    return { usage, error: { message: "the response has no embeddings ('data' is empty)", type: "ParseError" } };
  }
  for (const item of data) {
    const entry = asObject(item);
    if (!entry || entry.object !== "embedding" || entry.embedding === undefined) {
      return {
        usage,
        error: { message: "the response's 'data' holds an item that is not an embedding", type: "ParseError" },
      };
    }
  }
  return { usage };
}

/** An embeddings answer that arrived as an SSE event (no server streams them; the warm-up and odd proxies do). */
export function readEmbeddingsEvent(data: string): Delta | undefined {
  const obj = parseSseJson(data);
  return obj ? readEmbeddings(obj) : undefined;
}

const SAMPLE = '{"object":"list","data":[{"object":"embedding","embedding":[0.25,-0.5,0.125],"index":0}],"model":"m",' +
  '"usage":{"prompt_tokens":3,"total_tokens":3}}';

/** Sample responses of every embeddings adapter. */
export const EMBEDDINGS_SAMPLES = { stream: `data: ${SAMPLE}\n\n`, body: SAMPLE } as const;

/** The ISL text of an embeddings request: every input, one per line. */
export function joinedInputs(texts: readonly string[]): string {
  return texts.join("\n");
}

/**
 * `text` with the numbers of every `"embedding": [ … ]` array left out (`[]`), for `parseBody` to check the answer's
 * shape without converting hundreds of floats per request (the largest cost per embeddings request on the engine
 * thread; docs/performance.md). Each array is checked against JSON's number grammar as it
 * is skipped; a malformed one leaves the text whole, so `JSON.parse` still raises the error it would have.
 */
export function embeddingsBodyForParse(text: string): string {
  let out = "";
  let last = 0;
  for (let at = text.indexOf(EMBEDDING_KEY); at >= 0; at = text.indexOf(EMBEDDING_KEY, at + 1)) {
    let i = at + EMBEDDING_KEY.length;
    while (isSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== 0x3a) continue; // ':' after the key
    i++;
    while (isSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== 0x5b) continue; // not an array (base64 vectors are strings)
    const end = numberArrayEnd(text, i);
    if (end < 0) return text;
    out += text.slice(last, i + 1);
    last = end; // the closing bracket stays
    at = end;
  }
  return last === 0 ? text : out + text.slice(last);
}

const EMBEDDING_KEY = '"embedding"';

/**
 * {@linkcode embeddingsBodyForParse} of the body's bytes, without decoding the vectors: each array of numbers written
 * without spaces (as the servers we know write them) is checked in the bytes by a state machine, faster than decoding
 * it and running the compiled regular expression (docs/performance.md), and left out; the text around it is decoded. The key, the
 * brackets and the number characters are ASCII, so a match in the bytes is a match in the text and the cuts never
 * split a character. Anything else (spaces in an array, a malformed one) takes the text path, so the result is
 * always that of {@linkcode embeddingsBodyForParse}.
 */
export function embeddingsBytesForParse(body: Uint8Array): string {
  let out = "";
  let last = 0;
  const n = body.length;
  for (let at = body.indexOf(QUOTE); at >= 0 && at < n; at = body.indexOf(QUOTE, at + 1)) {
    if (!isKeyAt(body, at)) continue;
    let i = at + KEY_BYTES.length;
    while (isSpace(body[i])) i++;
    if (body[i] !== 0x3a) continue; // ':' after the key
    i++;
    while (isSpace(body[i])) i++;
    if (body[i] !== 0x5b) continue; // not an array (base64 vectors are strings)
    const end = compactNumberArrayEnd(body, i);
    if (end < 0) return embeddingsBodyForParse(UTF8.decode(body));
    out += UTF8.decode(body.subarray(last, i + 1));
    last = end; // the closing bracket stays
    at = end;
  }
  return last === 0 ? UTF8.decode(body) : out + UTF8.decode(body.subarray(last));
}

const UTF8 = new TextDecoder();
const QUOTE = 0x22;
const KEY_BYTES = new TextEncoder().encode(EMBEDDING_KEY);

function isKeyAt(body: Uint8Array, at: number): boolean {
  for (let k = 1; k < KEY_BYTES.length; k++) if (body[at + k] !== KEY_BYTES[k]) return false;
  return true;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * Index of the `]` closing the array of JSON numbers without spaces (`[1,-0.5,2e-3]`) that opens at `open`, or -1
 * when it is anything else (spaces included: the text path decides those).
 */
function compactNumberArrayEnd(b: Uint8Array, open: number): number {
  let i = open + 1;
  let c = b[i];
  if (c === 0x5d) return i;
  for (;;) {
    if (c === 0x2d) c = b[++i]; // '-'
    if (c === 0x30) c = b[++i]; // a leading zero stands alone
    else if (c >= 0x31 && c <= 0x39) {
      do c = b[++i]; while (isDigit(c));
    } else return -1;
    if (c === 0x2e) { // '.' and at least one digit
      c = b[++i];
      if (!isDigit(c)) return -1;
      do c = b[++i]; while (isDigit(c));
    }
    if (c === 0x65 || c === 0x45) { // exponent: 'e'/'E', a sign, at least one digit
      c = b[++i];
      if (c === 0x2b || c === 0x2d) c = b[++i];
      if (!isDigit(c)) return -1;
      do c = b[++i]; while (isDigit(c));
    }
    if (c === 0x5d) return i;
    if (c !== 0x2c) return -1;
    c = b[++i];
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

const NUMBER = String.raw`-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?`;
const WS = "[ \\t\\n\\r]*";
/**
 * An array of JSON numbers, matched where it opens (sticky): a regular expression runs as compiled code, several
 * times faster than a loop over the characters.
 */
const NUMBER_ARRAY = new RegExp(`\\[${WS}(?:${NUMBER}${WS}(?:,${WS}${NUMBER}${WS})*)?\\]`, "y");

/** Index of the `]` closing the array of JSON numbers that opens at `open`, or -1 when it is not one. */
function numberArrayEnd(text: string, open: number): number {
  NUMBER_ARRAY.lastIndex = open;
  return NUMBER_ARRAY.test(text) ? NUMBER_ARRAY.lastIndex - 1 : -1;
}
