/**
 * The one Server-Sent Events framer: a pure, synchronous, byte-level state machine following the WHATWG
 * "event stream interpretation" rules (https://html.spec.whatwg.org/multipage/server-sent-events.html).
 *
 * It runs directly on the transport's read buffer, so it never copies bytes except the tail of a line that
 * continues in the next push, and it decodes only `data`/`event` values as UTF-8: a line split across pushes is
 * decoded once it is complete (so a multi-byte character split across pushes decodes correctly); lines inside
 * one read are sliced from a single decode of that read when its bytes map 1:1 onto chars (see
 * {@linkcode SseFramer.beginRead}). `id` and `retry` are ignored: a benchmark client never reconnects.
 */
import type { SseEventHandler } from "./http_exchange.ts";

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const BOM = [0xef, 0xbb, 0xbf] as const;
const INITIAL_CARRY_BYTES = 256;
// Whether the text of the current read/push is decoded yet, and whether its chars map 1:1 onto its bytes.
const TEXT_PENDING = 0;
const TEXT_OK = 1;
const TEXT_UNUSABLE = 2;
/** After a read whose text is not 1:1 (non-ASCII), skip whole-range decoding for this many ranges. */
const TEXT_COOLDOWN = 8;
/** Undeclared pushes smaller than this are decoded line by line. */
const MIN_UNDECLARED_TEXT_BYTES = 512;
/** `#textCr` before the text has been searched for a CR. */
const NO_CR = -2;
/**
 * Longest line, and longest event (all its `data` lines), accepted. Without a cap a server that never sends a
 * line break grows the carried line until memory runs out; 32 MiB is far above any token event, and leaves room
 * for base64 media in one event.
 */
export const MAX_SSE_LINE_BYTES = 32 * 1024 * 1024;

export class SseFramer {
  readonly #onEvent: SseEventHandler;
  // ignoreBOM keeps a U+FEFF that starts a data value; only the stream-level BOM is skipped (by #bomMatched).
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });

  /** Bytes of a line that started in an earlier push and has not ended yet. */
  #carry = new Uint8Array(INITIAL_CARRY_BYTES);
  #carryLen = 0;
  /** Arrival time of the push that held the carried line's first byte. */
  #carryT = 0;
  /** The previous line ended with CR at the end of a push: an LF opening the next push belongs to it. */
  #skipLf = false;
  /** How many BOM bytes matched at stream start; 3 once the check is over (matched or not). */
  #bomMatched = 0;
  #bomT = 0;

  /**
   * Decoding a whole read once and slicing values out of it costs ~250 ns less per event than one TextDecoder
   * call per line. Usable only when every byte became exactly one UTF-16 unit (ASCII, or lone invalid bytes
   * that each became U+FFFD), because only then do byte offsets equal string offsets.
   */
  #textBytes: Uint8Array | undefined = undefined;
  #textStart = 0;
  #textEnd = 0;
  #text = "";
  #textState = TEXT_UNUSABLE;
  /** Where the text's next CR is, as far as `#pushText` has searched (-1: none to its end; NO_CR: not searched). */
  #textCr = NO_CR;
  #textCrFrom = 0;
  /** The current text range was declared by {@linkcode beginRead} (spans several pushes). */
  #textDeclared = false;
  #textCooldown = 0;

  /** The event being assembled. */
  #data = "";
  #hasData = false;
  #eventType: string | undefined = undefined;
  #started = false;
  #eventT = 0;

  /** `onEvent(data, t, event)` runs synchronously inside {@linkcode push} for every dispatched event. */
  constructor(onEvent: SseEventHandler) {
    this.#onEvent = onEvent;
  }

  /**
   * Feeds `bytes[start, end)`, all of which arrived at time `t`. Complete events are dispatched before this
   * returns; a partial line is kept for the next push.
   */
  push(bytes: Uint8Array, start: number, end: number, t: number): void {
    let i = start;
    if (i >= end) return;
    if (!this.#textDeclared || bytes !== this.#textBytes || start < this.#textStart || end > this.#textEnd) {
      this.#setText(bytes, start, end, false);
    }
    if (this.#bomMatched < 3) {
      i = this.#skipBom(bytes, i, end, t);
      if (i >= end) return;
    }
    if (this.#skipLf) {
      this.#skipLf = false;
      if (bytes[i] === LF && ++i >= end) return;
    }
    if (this.#carryLen === 0 && this.#textState !== TEXT_UNUSABLE && this.#pushText(bytes, i, end, t)) return;
    while (i < end) {
      // A plain loop beats indexOf here: lines are short and we need the first of two terminator bytes.
      let j = i;
      while (j < end) {
        const b = bytes[j];
        if (b === LF || b === CR) break;
        j++;
      }
      if (j === end) {
        this.#appendCarry(bytes, i, end, t);
        return;
      }
      if (this.#carryLen > 0) {
        this.#appendCarry(bytes, i, j, t);
        const len = this.#carryLen;
        this.#carryLen = 0;
        this.#line(this.#carry, 0, len, this.#carryT);
      } else {
        this.#line(bytes, i, j, t);
      }
      if (bytes[j] === CR) {
        j++;
        if (j === end) {
          this.#skipLf = true;
          return;
        }
        if (bytes[j] === LF) j++;
      } else {
        j++;
      }
      i = j;
    }
  }

  /**
   * `push` on the decoded text of `bytes[i, end)` when its chars map 1:1 onto the bytes and it has no CR: lines are
   * found by `indexOf` (a fast search) instead of a loop over every byte. False, with nothing consumed, when the text
   * is not usable so.
   */
  #pushText(bytes: Uint8Array, i: number, end: number, t: number): boolean {
    if (this.#textState === TEXT_PENDING) this.#decodeText();
    if (this.#textState !== TEXT_OK) return false;
    const text = this.#text;
    const base = this.#textStart;
    let s = i - base;
    const e = end - base;
    // The first CR at or after `s`, found once per read where nothing passes it (a chunked body's pushes each end
    // before the CR of their chunk's trailer, so each search is short).
    let cr = this.#textCr;
    if (cr === NO_CR || s < this.#textCrFrom || (cr >= 0 && cr < s)) {
      cr = this.#textCr = text.indexOf("\r", s);
      this.#textCrFrom = s;
    }
    if (cr >= 0 && cr < e) return false;
    while (s < e) {
      const lf = text.indexOf("\n", s);
      if (lf < 0 || lf >= e) {
        this.#appendCarry(bytes, s + base, end, t);
        return true;
      }
      if (lf === s) this.#dispatch();
      else if (text.charCodeAt(s) !== 0x3a) {
        if (!this.#started) {
          this.#started = true;
          this.#eventT = t;
        }
        if (text.startsWith("data:", s)) {
          let v = s + 5;
          if (v < lf && text.charCodeAt(v) === SPACE) v++;
          this.#appendValue(text.slice(v, lf));
        } else this.#line(bytes, s + base, lf + base, t);
      }
      s = lf + 1;
    }
    return true;
  }

  /**
   * Optional hint from a transport that reuses its read buffer: the pushes that follow, until the next
   * `beginRead`, are sub-ranges of `bytes[start, end)`, whose contents will not change meanwhile (e.g. the
   * de-chunked pieces of one `read()`). The framer may then decode that range once and slice every `data`
   * value out of it. Without the hint, a push of 512 bytes or more is decoded as a unit, smaller ones line by
   * line.
   *
   * Consequence for handlers: a `data` string may be a slice sharing storage with the whole range's text, so a
   * handler that keeps `data` itself (rather than what it parsed from it) keeps up to one read's text alive.
   */
  beginRead(bytes: Uint8Array, start: number, end: number): void {
    this.#setText(bytes, start, end, true);
  }

  /**
   * The stream ended. Per the spec, an event not yet terminated by a blank line is discarded (not dispatched).
   * The framer is then ready for a new stream.
   */
  end(): void {
    this.reset();
  }

  /** Forgets all state (partial line, partial event, BOM check) so the framer can parse a new stream. */
  reset(): void {
    this.#carryLen = 0;
    // A huge line of an earlier stream must not stay allocated for the life of the connection.
    if (this.#carry.length > 1024 * 1024) this.#carry = new Uint8Array(INITIAL_CARRY_BYTES);
    this.#skipLf = false;
    this.#bomMatched = 0;
    this.#textBytes = undefined;
    this.#text = "";
    this.#textState = TEXT_UNUSABLE;
    this.#textDeclared = false;
    this.#textCooldown = 0;
    this.#clearEvent();
  }

  #setText(bytes: Uint8Array, start: number, end: number, declared: boolean): void {
    this.#textBytes = bytes;
    this.#textStart = start;
    this.#textEnd = end;
    this.#textDeclared = declared;
    this.#text = "";
    if (!declared && end - start < MIN_UNDECLARED_TEXT_BYTES) {
      // A small standalone push holds about one event: decoding per line costs the same without the slicing.
      this.#textState = TEXT_UNUSABLE;
    } else if (this.#textCooldown > 0) {
      this.#textCooldown--;
      this.#textState = TEXT_UNUSABLE;
    } else {
      this.#textState = TEXT_PENDING;
    }
  }

  /** The UTF-8 text of `buf[s, e)`: a slice of the decoded range when possible, else its own decode. */
  #decode(buf: Uint8Array, s: number, e: number): string {
    if (s >= e) return "";
    if (buf === this.#textBytes) {
      if (this.#textState === TEXT_PENDING) this.#decodeText();
      if (this.#textState === TEXT_OK) return this.#text.slice(s - this.#textStart, e - this.#textStart);
    }
    return this.#decoder.decode(buf.subarray(s, e));
  }

  /** Decodes the current range; its text is usable when its chars map 1:1 onto its bytes. */
  #decodeText(): void {
    const start = this.#textStart;
    const text = this.#decoder.decode(this.#textBytes!.subarray(start, this.#textEnd));
    if (text.length === this.#textEnd - start) {
      this.#text = text;
      this.#textState = TEXT_OK;
      this.#textCr = NO_CR;
    } else {
      // Multi-byte characters shift offsets; stop trying for a while (non-ASCII streams tend to stay so).
      this.#textState = TEXT_UNUSABLE;
      this.#textCooldown = TEXT_COOLDOWN;
    }
  }

  /** Consumes a leading UTF-8 BOM, possibly split across pushes; returns where parsing continues. */
  #skipBom(bytes: Uint8Array, i: number, end: number, t: number): number {
    while (this.#bomMatched < 3 && i < end) {
      if (bytes[i] !== BOM[this.#bomMatched]) {
        // Not a BOM after all: the bytes matched so far are ordinary line bytes.
        const matched = this.#bomMatched;
        this.#bomMatched = 3;
        if (matched > 0) this.#appendCarry(new Uint8Array(BOM.slice(0, matched)), 0, matched, this.#bomT);
        return i;
      }
      if (this.#bomMatched === 0) this.#bomT = t;
      this.#bomMatched++;
      i++;
    }
    return i;
  }

  #appendCarry(bytes: Uint8Array, start: number, end: number, t: number): void {
    if (this.#carryLen === 0) this.#carryT = t;
    const n = end - start;
    if (n === 0) return;
    const need = this.#carryLen + n;
    if (need > MAX_SSE_LINE_BYTES) {
      throw new SyntaxError(
        `an SSE line exceeds ${MAX_SSE_LINE_BYTES} bytes without a line break; the server's event stream is broken.`,
      );
    }
    if (need > this.#carry.length) {
      const grown = new Uint8Array(Math.max(need, this.#carry.length * 2));
      grown.set(this.#carry.subarray(0, this.#carryLen));
      this.#carry = grown;
    }
    this.#carry.set(bytes.subarray(start, end), this.#carryLen);
    this.#carryLen = need;
  }

  /** Interprets one complete line `buf[s, e)` (terminator excluded) whose first byte arrived at `t`. */
  #line(buf: Uint8Array, s: number, e: number, t: number): void {
    if (s === e) {
      this.#dispatch();
      return;
    }
    const first = buf[s];
    if (first === COLON) return; // comment / keep-alive: does not start an event
    if (!this.#started) {
      this.#started = true;
      this.#eventT = t;
    }
    // Fast path for the line nearly every event consists of: `data:`.
    if (
      first === 0x64 && e - s >= 5 && buf[s + 1] === 0x61 && buf[s + 2] === 0x74 && buf[s + 3] === 0x61 &&
      buf[s + 4] === COLON
    ) {
      this.#appendData(buf, s + 5, e);
      return;
    }
    let colon = s;
    while (colon < e && buf[colon] !== COLON) colon++;
    const nameLen = colon - s;
    if (nameLen === 4 && isName(buf, s, "data")) {
      this.#appendData(buf, colon + 1, e);
    } else if (nameLen === 5 && isName(buf, s, "event")) {
      let v = colon + 1;
      if (v < e && buf[v] === SPACE) v++;
      this.#eventType = this.#decode(buf, v, e);
    }
    // `id`, `retry` and unknown fields are ignored.
  }

  /** `v` is just past the colon (or `e` when the line had none). */
  #appendData(buf: Uint8Array, v: number, e: number): void {
    if (v < e && buf[v] === SPACE) v++;
    this.#appendValue(this.#decode(buf, v, e));
  }

  /** Adds a `data` line's value to the event being assembled. */
  #appendValue(value: string): void {
    if (this.#hasData) {
      if (this.#data.length + value.length >= MAX_SSE_LINE_BYTES) {
        throw new SyntaxError(
          `an SSE event's data exceeds ${MAX_SSE_LINE_BYTES} characters; the server's event stream is broken.`,
        );
      }
      this.#data += "\n" + value;
    } else {
      this.#data = value;
      this.#hasData = true;
    }
  }

  #dispatch(): void {
    if (!this.#hasData) {
      this.#clearEvent();
      return;
    }
    const data = this.#data;
    const t = this.#eventT;
    const type = this.#eventType;
    this.#clearEvent();
    this.#onEvent(data, t, type === "" ? undefined : type);
  }

  #clearEvent(): void {
    this.#data = "";
    this.#hasData = false;
    this.#eventType = undefined;
    this.#started = false;
  }
}

/** True when `buf` at `s` spells the ASCII field `name` (length already checked by the caller). */
function isName(buf: Uint8Array, s: number, name: string): boolean {
  for (let k = 0; k < name.length; k++) {
    if (buf[s + k] !== name.charCodeAt(k)) return false;
  }
  return true;
}
