/**
 * Reads streamed chat answers' SSE payloads, giving for each exactly what the chat adapter's `parseEvent` gives,
 * without a `JSON.parse` for the chunks a server repeats: the role chunk, token chunks, the last token chunk with its
 * finish reason, the usage chunk. One reader serves a whole run (every response of it), so a 1-token answer's three
 * chunks are read from the shapes the earlier answers showed. The same reader reads non-streaming chat bodies (the
 * content under `choices[0].message`, giving what `parseBody` gives) and completions' chunks and bodies (the content
 * at `choices[0].text`).
 *
 * Why: such chunks repeat the same bytes from one to the next but for a few scalar values (the id, `created`, the
 * content text, the finish reason, the usage counts), and parsing each whole was most of the client's work per SSE
 * event. A chunk parsed in full that qualifies (below) becomes a template: its bytes split into literal pieces and
 * HOLES, the values at these paths, each of a kind:
 *
 * - `id` (a string) and `created` (a whole number): the chat reading never looks at them;
 * - `choices[0].delta.content` (a string): the Delta's content;
 * - `choices[0].finish_reason` (a string or null): the Delta's finish reason;
 * - `usage.KEY` for every key of a usage object whose values are all whole numbers: the Delta's usage.
 *
 * A later payload made of the template's literal pieces in order, with in each hole a value of the hole's kind — a
 * string without a quote, a backslash or a control character (so it reads as written), `null` where the hole allows
 * it, digits without a leading zero (at most 15, so the number is exact) — is the template with those values
 * replaced: valid JSON with the same keys, so its Delta is the template's with the holes' fields recomputed by the
 * same rules (`asText`, the usage reader). Anything else takes the full parse, with its errors.
 *
 * A chunk qualifies when it has no backslash (keys and strings read as written), no object in it repeats a key (so
 * the value at a path is the one `JSON.parse` keeps), its usage is absent or holes only, and its Delta has no error
 * or speculative-decoding statistics (objects no hole could change, which the Deltas read from the template would
 * then share); its body timing (`timings`, `meta_info`) must read as none even where the finish reason would let the
 * chat reading take it. Reasoning and tool-call text may be part of the literal bytes: a string is shared safely.
 */
import type { Delta, Usage } from "../endpoint_adapter.ts";
import type { JsonObject } from "./openai_fields.ts";
import { readBodyServerTiming } from "../server_timing.ts";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ZERO = 0x30;
const NINE = 0x39;
const MAX_DIGITS = 15;
/** A JSON number that is a whole number from 0 to 15 digits, written as the holes read it. */
const WHOLE_NUMBER = /^(?:0|[1-9][0-9]{0,14})$/;

/** What a hole holds. */
const IGNORED_TEXT = 0;
const IGNORED_COUNT = 1;
const CONTENT = 2;
const FINISH = 3;
const USAGE_COUNT = 4;
type HoleKind = typeof IGNORED_TEXT | typeof IGNORED_COUNT | typeof CONTENT | typeof FINISH | typeof USAGE_COUNT;

/** Most templates kept at once (a stream's few shapes, a few times over); the oldest goes first. */
const MAX_TEMPLATES = 8;
/** Usage answers remembered per template (a power of two). */
const USAGE_SLOTS = 64;
/** Full parses that may become templates before the reader stops trying, and how many full parses earn one more. */
const LEARN_CREDIT = 16;
const PARSES_PER_CREDIT = 64;
/** Misses in a row past which matching is tried on one payload in 16 only. */
const MISS_STREAK = 64;

/** A learned shape: literal `pieces[0]`, hole 0, `pieces[1]`, hole 1, …, `pieces[holes]`. */
interface Template {
  readonly pieces: readonly string[];
  readonly kinds: readonly HoleKind[];
  /** The usage key of each `USAGE_COUNT` hole, in the template's order (the others: ""). */
  readonly usageKeys: readonly string[];
  /** The full parse's Delta: a match takes its reasoning and tool-call text (literal bytes); no object of it. */
  readonly delta: Delta;
  /** The Delta has the fields of a choice with a delta object (else those of one without). */
  readonly withPart: boolean;
  /** The CONTENT hole, the FINISH hole (-1: none). */
  readonly content: number;
  readonly finish: number;
  readonly hasUsage: boolean;
  /**
   * It has a CONTENT hole, and its other holes are ignored ones and a FINISH hole after the content: the bytes before
   * and after the content string may then be compared whole with the last match's.
   */
  readonly simple: boolean;
  /** The bytes up to the content string of the last match (checked then). */
  lastHead: string | undefined;
  /** The bytes after the content string of the last match without usage, and the finish reason they held. */
  lastTail: string | undefined;
  lastFinish: string | undefined;
  /** Usage counts read before, and the Usage each gave, by a hash of the counts. */
  readonly usageCounts: (number[] | undefined)[];
  readonly usages: (Usage | undefined)[];
  /** The template that matched the payload after this one's last match. */
  successor: number;
}

export class ChatChunkReader {
  readonly #parseJson: (data: string) => JsonObject | undefined;
  readonly #readChunk: (obj: JsonObject) => Delta;
  readonly #readUsage: (value: unknown) => Usage | undefined;
  readonly #templates: Template[] = [];
  /** Where the next template goes once the list is full. */
  #oldest = 0;
  /** The template tried first: the one that followed the last one matched, last time (a stream's chunks come in order). */
  #next = 0;
  /** The template the last payload matched or became; -1 after a full parse. */
  #last = -1;
  /** Payloads in a row that no template read. */
  #missStreak = 0;
  #credit = LEARN_CREDIT;
  #parses = 0;
  /** Scratch for a match's hole bounds and counts: a read allocates only what it returns. */
  readonly #starts: number[] = [];
  readonly #ends: number[] = [];
  readonly #counts: number[] = [];
  /**
   * Where the content is: `choices[0].delta.content` (chat stream chunks), `choices[0].message.content` (chat bodies)
   * or `choices[0].text` (completions).
   */
  readonly #part: ContentAt;

  /**
   * `parseJson(data)`: the payload's JSON object, or undefined for `[DONE]` and empty payloads (throwing for
   * malformed ones); `readChunk(obj)`: its Delta (`parseEvent` is the two in turn); `readUsage`: the usage reader
   * `readChunk` uses; `part`: where `readChunk` reads the content (`delta`: `choices[0].delta.content`, `message`:
   * `choices[0].message.content`, `text`: `choices[0].text`, the Delta then in the completions adapter's shape).
   */
  constructor(
    parseJson: (data: string) => JsonObject | undefined,
    readChunk: (obj: JsonObject) => Delta,
    readUsage: (value: unknown) => Usage | undefined,
    part: ContentAt = "delta",
  ) {
    this.#part = part;
    this.#parseJson = parseJson;
    this.#readChunk = readChunk;
    this.#readUsage = readUsage;
  }

  readonly read = (data: string): Delta | undefined => {
    const templates = this.#templates;
    const n = templates.length;
    // After many payloads in a row that no template read, try only now and then (a field that changes in every
    // chunk, such as a send time, makes templates that never match).
    if (n > 0 && data.charCodeAt(0) === 0x7b && (this.#missStreak < MISS_STREAK || (this.#missStreak & 15) === 0)) {
      let k = this.#next;
      for (let tried = 0; tried < n; tried++) {
        if (k >= n) k = 0;
        const template = templates[k];
        const delta = this.#match(template, data);
        if (delta !== undefined) {
          const last = this.#last;
          if (last >= 0 && last < n) templates[last].successor = k;
          this.#last = k;
          this.#next = template.successor;
          this.#missStreak = 0;
          return delta;
        }
        k++;
      }
    }
    const obj = this.#parseJson(data);
    if (obj === undefined) return undefined;
    const delta = this.#readChunk(obj);
    this.#last = -1;
    if (n > 0) this.#missStreak++;
    if (++this.#parses >= PARSES_PER_CREDIT) {
      this.#parses = 0;
      if (this.#credit < LEARN_CREDIT) this.#credit++;
    }
    if (this.#credit > 0 && data.indexOf("\\") < 0 && qualifies(delta, obj)) {
      this.#credit--;
      const template = learn(data, delta, this.#part);
      if (template !== undefined) {
        const at = n < MAX_TEMPLATES ? n : this.#oldest;
        if (n < MAX_TEMPLATES) templates.push(template);
        else {
          templates[at] = template;
          this.#oldest = (at + 1) % MAX_TEMPLATES;
        }
        template.successor = at;
        this.#last = at;
        this.#next = at;
      }
    }
    return delta;
  };

  /** The Delta of `data` read from `t`, or undefined when `data` is not `t` with other hole values. */
  #match(t: Template, data: string): Delta | undefined {
    const holes = t.kinds.length;
    const c = t.content;
    if (!t.simple) {
      const pos = this.#scan(t, data, 0, 0, holes);
      if (pos < 0 || !this.#endsWell(t, data, pos)) return undefined;
      const content = c < 0 ? undefined : this.#text(data, c);
      return this.#deltaOf(t, data, content, this.#finish(t, data));
    }
    // The bytes up to the content string: the same as last time (a stream's chunks share their id and `created`),
    // already checked then, or checked now.
    let pos: number;
    const head = t.lastHead;
    if (head !== undefined && data.slice(0, head.length) === head) pos = head.length;
    else {
      pos = this.#scan(t, data, 0, 0, c);
      if (pos < 0) return undefined;
      const piece = t.pieces[c];
      if (data.slice(pos, pos + piece.length) !== piece) return undefined;
      pos += piece.length;
      t.lastHead = data.slice(0, pos);
    }
    pos = this.#string(data, pos, c);
    if (pos < 0) return undefined;
    const content = this.#text(data, c);
    // The bytes after it: the same as last time (the finish reason read then), or read now.
    const tail = t.lastTail;
    if (tail !== undefined && data.length - pos === tail.length && data.slice(pos) === tail) {
      return this.#deltaOf(t, data, content, t.lastFinish);
    }
    const from = pos;
    pos = this.#scan(t, data, pos, c + 1, holes);
    if (pos < 0 || !this.#endsWell(t, data, pos)) return undefined;
    const finish = this.#finish(t, data);
    t.lastTail = data.slice(from);
    t.lastFinish = finish;
    return this.#deltaOf(t, data, content, finish);
  }

  /** Checks `t.pieces[h]` then hole `h` for `h` in `[from, to)` from `pos`; the position after, or -1. */
  #scan(t: Template, data: string, pos: number, from: number, to: number): number {
    const pieces = t.pieces;
    const kinds = t.kinds;
    const len = data.length;
    for (let h = from; h < to && pos >= 0; h++) {
      const piece = pieces[h];
      // A slice compared with `===` (one memory compare): `startsWith` compared char by char in optimized code.
      if (data.slice(pos, pos + piece.length) !== piece) return -1;
      pos += piece.length;
      const kind = kinds[h];
      if (kind === IGNORED_COUNT || kind === USAGE_COUNT) {
        const start = pos;
        if (data.charCodeAt(pos) === ZERO) pos++;
        else {
          while (pos < len && pos - start < MAX_DIGITS) {
            const c = data.charCodeAt(pos);
            if (c < ZERO || c > NINE) break;
            pos++;
          }
        }
        if (pos === start) return -1;
        // A digit left over: a leading zero, or more than MAX_DIGITS digits.
        const after = data.charCodeAt(pos);
        if (after >= ZERO && after <= NINE) return -1;
        this.#starts[h] = start;
        this.#ends[h] = pos;
      } else if (kind === FINISH && data.charCodeAt(pos) !== QUOTE) {
        if (data.slice(pos, pos + 4) !== "null") return -1;
        this.#starts[h] = -1;
        pos += 4;
      } else {
        pos = this.#string(data, pos, h);
      }
    }
    return pos;
  }

  /** Reads the string hole `h` (its quotes included) at `pos`: the position after it, or -1. */
  #string(data: string, pos: number, h: number): number {
    if (data.charCodeAt(pos) !== QUOTE) return -1;
    const start = ++pos;
    const len = data.length;
    for (;;) {
      if (pos >= len) return -1;
      const c = data.charCodeAt(pos);
      if (c === QUOTE) break;
      if (c === BACKSLASH || c < 0x20) return -1;
      pos++;
    }
    this.#starts[h] = start;
    this.#ends[h] = pos;
    return pos + 1;
  }

  /** `data` ends with the template's last piece at `pos`. */
  #endsWell(t: Template, data: string, pos: number): boolean {
    const last = t.pieces[t.kinds.length];
    return data.length - pos === last.length && data.slice(pos) === last;
  }

  /** The text of string hole `h` (asText's rule: an empty string is none). */
  #text(data: string, h: number): string | undefined {
    return this.#ends[h] > this.#starts[h] ? data.slice(this.#starts[h], this.#ends[h]) : undefined;
  }

  /** The finish reason the template's FINISH hole holds (asText's rule: null or "" is none). */
  #finish(t: Template, data: string): string | undefined {
    const h = t.finish;
    if (h < 0) return t.delta.finishReason;
    const start = this.#starts[h];
    return start >= 0 && this.#ends[h] > start ? data.slice(start, this.#ends[h]) : undefined;
  }

  /**
   * The Delta of a match, in the shape the chat reading gives (with a delta object, or without): the template's
   * fields, with the content, finish reason and usage read from `data`. The error, the timing and the statistics are
   * none (the template qualified so).
   */
  #deltaOf(t: Template, data: string, content: string | undefined, finish: string | undefined): Delta {
    const usage = t.hasUsage ? this.#usageOf(t, data) : undefined;
    if (this.#part === "text") {
      return {
        content: t.content < 0 ? t.delta.content : content,
        reasoning: t.delta.reasoning,
        usage,
        finishReason: finish,
        error: undefined,
        serverTiming: undefined,
        specDecode: undefined,
      };
    }
    if (!t.withPart) {
      return { usage, error: undefined, finishReason: finish, serverTiming: undefined, specDecode: undefined };
    }
    return {
      content: t.content < 0 ? t.delta.content : content,
      reasoning: t.delta.reasoning,
      toolCalls: t.delta.toolCalls,
      usage,
      finishReason: finish,
      error: undefined,
      serverTiming: undefined,
      specDecode: undefined,
    };
  }

  /** The usage reader's answer for the template's usage keys with the counts in `data`. */
  #usageOf(t: Template, data: string): Usage | undefined {
    let n = 0;
    for (let h = 0; h < t.kinds.length; h++) {
      if (t.kinds[h] !== USAGE_COUNT) continue;
      let value = 0;
      for (let i = this.#starts[h]; i < this.#ends[h]; i++) value = value * 10 + data.charCodeAt(i) - ZERO;
      this.#counts[n++] = value;
    }
    const counts = this.#counts;
    let hash = 0;
    for (let i = 0; i < n; i++) hash = (Math.imul(hash, 31) + counts[i]) | 0;
    const slot = (hash ^ (hash >>> 7)) & (USAGE_SLOTS - 1);
    const known = t.usageCounts[slot];
    let same = known !== undefined;
    for (let i = 0; same && i < n; i++) same = known![i] === counts[i];
    let usage: Usage | undefined;
    if (same) usage = t.usages[slot];
    else {
      // The usage reader is a pure function of the object: remember its answer for these counts.
      const value: Record<string, number> = {};
      const keys = t.usageKeys;
      let i = 0;
      for (let h = 0; h < t.kinds.length; h++) if (t.kinds[h] === USAGE_COUNT) value[keys[h]] = counts[i++];
      usage = this.#readUsage(value);
      t.usageCounts[slot] = counts.slice(0, n);
      t.usages[slot] = usage;
    }
    // A copy each time: records do not share their usage.
    return usage === undefined ? undefined : { ...usage };
  }
}

/**
 * The payload may become a template: its Delta holds no object a match would share (an error, statistics), and its
 * body timing reads as none even where a finish reason would let the chat reading take it.
 */
function qualifies(delta: Delta, obj: JsonObject): boolean {
  return delta.error === undefined && delta.specDecode === undefined && delta.finalContent === undefined &&
    delta.video === undefined && readBodyServerTiming(obj) === undefined;
}

/** Where an object's members sit, as far as holes go. */
const AT_OTHER = 0;
const AT_TOP = 1;
const AT_CHOICES = 2;
const AT_CHOICE0 = 3;
const AT_DELTA0 = 4;
const AT_USAGE = 5;
type Place =
  | typeof AT_OTHER
  | typeof AT_TOP
  | typeof AT_CHOICES
  | typeof AT_CHOICE0
  | typeof AT_DELTA0
  | typeof AT_USAGE;

/** Where the content of an answer is read from (see the constructor). */
type ContentAt = "delta" | "message" | "text";

/** Where the members of a container at `place` under `key` sit. */
function placeOf(place: Place, key: string, part: ContentAt): Place {
  if (place === AT_TOP) return key === "choices" ? AT_CHOICES : key === "usage" ? AT_USAGE : AT_OTHER;
  if (place === AT_CHOICES) return key === "0" ? AT_CHOICE0 : AT_OTHER;
  if (place === AT_CHOICE0) return part !== "text" && key === part ? AT_DELTA0 : AT_OTHER;
  return AT_OTHER;
}

/**
 * Splits a parsed payload (valid JSON, without a backslash) into pieces and holes; undefined when it does not
 * qualify (a repeated key, a usage object with other than whole numbers, no hole that matters).
 */
function learn(data: string, delta: Delta, part: ContentAt): Template | undefined {
  const scan = new SkeletonScan(data, part);
  if (!scan.run()) return undefined;
  const usageKeys: string[] = [];
  for (let h = 0; h < scan.kinds.length; h++) usageKeys.push(scan.kinds[h] === USAGE_COUNT ? scan.keys[h] : "");
  const hasUsage = scan.kinds.includes(USAGE_COUNT);
  if (delta.usage !== undefined && !hasUsage) return undefined;
  const pieces: string[] = [];
  let pos = 0;
  for (let h = 0; h < scan.kinds.length; h++) {
    pieces.push(data.slice(pos, scan.starts[h]));
    pos = scan.ends[h];
  }
  pieces.push(data.slice(pos));
  const content = scan.kinds.indexOf(CONTENT);
  return {
    pieces,
    kinds: scan.kinds,
    usageKeys,
    delta,
    withPart: "content" in delta,
    simple: content >= 0 &&
      scan.kinds.every((k, h) =>
        k === IGNORED_TEXT || k === IGNORED_COUNT || k === CONTENT || (k === FINISH && h > content)
      ),
    content,
    finish: scan.kinds.indexOf(FINISH),
    hasUsage,
    lastHead: undefined,
    lastTail: undefined,
    lastFinish: undefined,
    usageCounts: [],
    usages: [],
    successor: 0,
  };
}

/** A walk over JSON known to be valid and free of backslashes, noting the holes' bounds. */
class SkeletonScan {
  readonly #s: string;
  #i = 0;
  readonly kinds: HoleKind[] = [];
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  readonly keys: string[] = [];
  /** The usage object's values are whole numbers only (else it has no holes). */
  #usageFlat = true;
  #usageHoles: number[] = [];
  readonly #part: ContentAt;

  constructor(s: string, part: ContentAt) {
    this.#s = s;
    this.#part = part;
  }

  run(): boolean {
    this.#ws();
    if (this.#s.charCodeAt(this.#i) !== 0x7b) return false;
    if (!this.#object(AT_TOP)) return false;
    if (!this.#usageFlat) {
      // Its counts stay literal: drop the holes noted in it.
      for (let k = this.#usageHoles.length - 1; k >= 0; k--) {
        const h = this.#usageHoles[k];
        this.kinds.splice(h, 1);
        this.starts.splice(h, 1);
        this.ends.splice(h, 1);
        this.keys.splice(h, 1);
      }
    }
    return this.kinds.some((k) => k !== IGNORED_TEXT && k !== IGNORED_COUNT);
  }

  #ws(): void {
    const s = this.#s;
    for (;;) {
      const c = s.charCodeAt(this.#i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.#i++;
    }
  }

  #hole(kind: HoleKind, start: number, end: number, key: string): void {
    this.kinds.push(kind);
    this.starts.push(start);
    this.ends.push(end);
    this.keys.push(key);
  }

  /** Reads the value at `#i`, a member of a container at `place`, under `key`; false when the payload does not qualify. */
  #value(place: Place, key: string): boolean {
    const s = this.#s;
    const c = s.charCodeAt(this.#i);
    if (c === 0x7b || c === 0x5b) {
      // A container in the usage object: its counts are not all at the top.
      if (place === AT_USAGE) this.#usageFlat = false;
      // `choices` counts only as an array, its item 0 and the delta only as objects (as the chat reading takes them).
      const inner = placeOf(place, key, this.#part);
      if (c === 0x5b) return this.#array(inner === AT_CHOICES ? AT_CHOICES : AT_OTHER);
      return this.#object(inner === AT_CHOICES ? AT_OTHER : inner);
    }
    if (c === QUOTE) {
      const start = this.#i;
      const close = s.indexOf('"', start + 1);
      this.#i = close + 1;
      if (place === AT_TOP && key === "id") this.#hole(IGNORED_TEXT, start, close + 1, key);
      else if (
        (place === AT_DELTA0 && key === "content") || (place === AT_CHOICE0 && key === "text" && this.#part === "text")
      ) this.#hole(CONTENT, start, close + 1, key);
      else if (place === AT_CHOICE0 && key === "finish_reason") this.#hole(FINISH, start, close + 1, key);
      else if (place === AT_USAGE) this.#usageFlat = false;
      return true;
    }
    const start = this.#i;
    while (this.#i < s.length) {
      const d = s.charCodeAt(this.#i);
      if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
      this.#i++;
    }
    const word = s.slice(start, this.#i);
    const count = WHOLE_NUMBER.test(word);
    if (place === AT_TOP && key === "created" && count) this.#hole(IGNORED_COUNT, start, this.#i, key);
    else if (place === AT_CHOICE0 && key === "finish_reason" && word === "null") {
      this.#hole(FINISH, start, this.#i, key);
    } else if (place === AT_USAGE) {
      if (count) {
        this.#usageHoles.push(this.kinds.length);
        this.#hole(USAGE_COUNT, start, this.#i, key);
      } else this.#usageFlat = false;
    }
    return true;
  }

  /** An object whose members sit at `here`; false on a repeated key. */
  #object(here: Place): boolean {
    const s = this.#s;
    const seen: string[] = [];
    this.#i++;
    this.#ws();
    if (s.charCodeAt(this.#i) === 0x7d) {
      this.#i++;
      return true;
    }
    for (;;) {
      this.#ws();
      const open = this.#i;
      const close = s.indexOf('"', open + 1);
      const name = s.slice(open + 1, close);
      if (seen.includes(name)) return false;
      seen.push(name);
      this.#i = close + 1;
      this.#ws();
      this.#i++; // the colon
      this.#ws();
      if (!this.#value(here, name)) return false;
      this.#ws();
      if (s.charCodeAt(this.#i++) === 0x7d) return true;
    }
  }

  /** An array whose items sit at `here` (under their index). */
  #array(here: Place): boolean {
    const s = this.#s;
    this.#i++;
    this.#ws();
    if (s.charCodeAt(this.#i) === 0x5d) {
      this.#i++;
      return true;
    }
    for (let index = 0;; index++) {
      this.#ws();
      if (!this.#value(here, String(index))) return false;
      this.#ws();
      if (s.charCodeAt(this.#i++) === 0x5d) return true;
    }
  }
}
