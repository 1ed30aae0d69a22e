/**
 * Folds a response's SSE events (or its single body) into the fields of a RequestRecord.
 *
 * Stamp first, parse later: `onEvent` only keeps the payload and its arrival time and queues one microtask
 * to parse. When a batching server answers hundreds of streams in the same instant, the runtime resumes all
 * their pending reads in one batch; because parsing is queued behind that whole batch, every socket's read is
 * stamped before any JSON is parsed, instead of each waiting for its predecessors' parsing. Token counting
 * happens later still, off this thread (records/record_processor.ts).
 */
import { type Delta, type EndpointAdapter, type Usage, USAGE_FIELDS } from "../endpoints/endpoint_adapter.ts";
import type { ServerTiming } from "../endpoints/server_timing.ts";

/** One decoder for every body (a non-streaming `decode` keeps no state between calls). */
const UTF8 = new TextDecoder();

export class ResponseCollector {
  readonly responseTimes: number[] = [];
  readonly #content = new TextParts();
  readonly #reasoning = new TextParts();
  firstOutputAt: number | undefined;
  lastResponseAt: number | undefined;
  usage: Usage | undefined;
  /** The last server timing a chunk or body carried. */
  serverTiming: ServerTiming | undefined;
  finishReason: string | undefined;
  /** First API error object seen in the stream or body. */
  apiError: Delta["error"] | undefined;
  /** First payload that could not be parsed. */
  parseError: string | undefined;
  /** What a finished video job reported about itself. */
  video: Delta["video"] | undefined;
  /** Every speculative-decoding payload the answer carried (one, unless the server sent several sequences). */
  specDecode: NonNullable<Delta["specDecode"]>[] | undefined;
  readonly #adapter: EndpointAdapter;
  /** Every payload as received, when the raw export asks for them. */
  readonly raw: { t: number; text: string }[] | undefined;

  /**
   * The reader of this response's events: the run's (shared by its responses), else the adapter's made at the first
   * event (null: the adapter has none).
   */
  #read: ((data: string) => Delta | undefined) | null | undefined;

  /** The run's reader of non-streaming bodies' text (the adapter's `bodyReader`, made once), if any. */
  readonly #readBody: ((text: string) => Delta | undefined) | undefined;

  /**
   * `read`: the run's reader of SSE payloads (the adapter's `eventReader`, made once), when the caller keeps one;
   * `readBody`: the same for whole bodies (`bodyReader`).
   */
  constructor(
    adapter: EndpointAdapter,
    keepRaw = false,
    read?: (data: string) => Delta | undefined,
    readBody?: (text: string) => Delta | undefined,
  ) {
    this.#adapter = adapter;
    this.raw = keepRaw ? [] : undefined;
    this.#read = read;
    this.#readBody = adapter.bodyForParse === undefined ? readBody : undefined;
  }

  // Events waiting for the parse microtask, in slots reused for the whole response: fresh arrays per read were
  // ~15 % of everything the engine allocated at 256 streams (V8 sampling heap profile), and allocation is what
  // sets how often the young-generation collector pauses the thread that stamps reads. Made at the first event,
  // as a plain body has none.
  #pendingData: string[] | undefined = undefined;
  #pendingTimes: number[] | undefined = undefined;
  #pending = 0;

  /**
   * SSE handler: `t` is the arrival time of the event's first byte. Parsing is deferred (see above). True when
   * the adapter says this event ends the answer, which tells the transport the exchange is complete.
   */
  readonly onEvent = (data: string, t: number): boolean => {
    this.raw?.push({ t, text: data });
    const i = this.#pending++;
    (this.#pendingData ??= [])[i] = data;
    (this.#pendingTimes ??= [])[i] = t;
    if (i === 0) queueMicrotask(this.flush);
    return this.#adapter.isStreamEnd !== undefined && this.#adapter.isStreamEnd(data);
  };

  /** Parses every event received so far; called before the record is built. */
  readonly flush = (): void => {
    const n = this.#pending;
    if (n === 0) return;
    this.#pending = 0;
    const data = this.#pendingData!;
    const times = this.#pendingTimes!;
    const adapter = this.#adapter;
    let read = this.#read;
    if (read === undefined) read = this.#read = adapter.eventReader?.() ?? null;
    for (let i = 0; i < n; i++) {
      const payload = data[i];
      data[i] = ""; // an event may be a slice of its read's text: do not keep that text alive
      let delta: Delta | undefined;
      try {
        delta = read !== null ? read(payload) : adapter.parseEvent(payload);
      } catch (err) {
        this.parseError ??= (err as Error).message;
        continue;
      }
      if (delta !== undefined) this.add(delta, times[i]);
    }
  };

  /** A complete non-streaming body, received in full at `t`. */
  addBody(body: Uint8Array, t: number): void {
    let json: unknown;
    // The whole text, decoded once where something needs it (the raw export, a parse of all of it, a text body).
    let whole: string | undefined;
    if (this.raw !== undefined) this.raw.push({ t, text: whole = UTF8.decode(body) });
    const readBody = this.#readBody;
    if (readBody !== undefined) {
      let delta: Delta | undefined;
      try {
        delta = readBody(whole ??= UTF8.decode(body));
      } catch {
        // Not JSON: the ordinary reading below says so (or reads it as text).
      }
      if (delta !== undefined) return this.add(delta, t);
    }
    try {
      const adapter = this.#adapter;
      json = JSON.parse(
        adapter.bodyForParse === undefined ? (whole ??= UTF8.decode(body)) : adapter.bodyForParse(body),
      );
    } catch {
      // An API whose answer may be plain text (a transcript) reads it its own way.
      if (this.#adapter.parseTextBody !== undefined) {
        return this.add(this.#adapter.parseTextBody(whole ?? UTF8.decode(body)), t);
      }
      const text = UTF8.decode(body.subarray(0, 200));
      this.parseError ??= `the response body is not JSON: ${text}`;
      return;
    }
    this.add(this.#adapter.parseBody(json), t);
  }

  /** The answer text so far (tool-call text included). */
  get content(): string {
    return this.#content.text();
  }

  /** The reasoning text so far. */
  get reasoning(): string {
    return this.#reasoning.text();
  }

  add(delta: Delta, t: number): void {
    this.lastResponseAt = t;
    if (delta.usage !== undefined) this.usage = mergeUsage(this.usage, delta.usage);
    if (delta.finishReason !== undefined) this.finishReason = delta.finishReason;
    if (delta.error !== undefined) this.apiError ??= delta.error;
    if (delta.serverTiming !== undefined) this.serverTiming = delta.serverTiming;
    if (delta.video !== undefined) this.video = delta.video;
    if (delta.specDecode !== undefined) (this.specDecode ??= []).push(delta.specDecode);
    let content = delta.content;
    if (delta.finalContent !== undefined) {
      if (this.firstOutputAt !== undefined) {
        this.responseTimes.push(t);
        return;
      }
      content = (content ?? "") + delta.finalContent;
    }
    const output = delta.toolCalls === undefined ? content : (content ?? "") + delta.toolCalls;
    const reasoning = delta.reasoning;
    if (output === undefined && reasoning === undefined) return;
    // A content response: counts for TTFT/ITL whether it carries answer, reasoning or tool-call text.
    this.responseTimes.push(t);
    if (reasoning !== undefined) this.#reasoning.push(reasoning);
    if (output !== undefined) {
      this.#content.push(output);
      if (this.firstOutputAt === undefined) this.firstOutputAt = t;
    }
  }
}

/**
 * A text built from many small parts, kept as few heap objects. `a += b` per token leaves two objects per token
 * (the part and a cons string) alive for the whole request; with hundreds of streams in flight those are tens of
 * thousands of young objects that every scavenge must copy, and the copying pauses stall socket reads (measured
 * with `infermeter calibrate` at 256 streams). Joining every `JOIN_EVERY` parts keeps a stream at a handful.
 *
 * The joined blocks are kept in levels, like the digits of a counter: `JOIN_EVERY` blocks of one level are joined
 * into one block of the next. Joining each time into the whole text so far copied it again every `JOIN_EVERY`
 * parts, which is quadratic: a 12 MiB answer of 64-byte events took 47 s of the engine thread (socket reads of every
 * stream held up meanwhile), now each character is copied once per level (a handful), and a stream holds at most
 * `JOIN_EVERY` strings per level.
 */
class TextParts {
  /**
   * `#levels[0]`: the latest parts; `#levels[i]`: blocks of `JOIN_EVERY`^i parts, older than those below. Made at
   * the second part: most answers have no reasoning, and a body's or a 1-token answer comes in one part.
   */
  #levels: string[][] | undefined = undefined;
  /** The only part so far, kept without the levels (a 1-token answer, a body's answer). */
  #only: string | undefined = undefined;

  push(part: string): void {
    if (this.#levels === undefined) {
      const only = this.#only;
      if (only === undefined) {
        this.#only = part;
        return;
      }
      this.#only = undefined;
      this.#levels = [[only]];
    }
    const levels = this.#levels;
    let item = part;
    for (let level = 0;; level++) {
      const blocks = levels[level] ??= [];
      blocks.push(item);
      if (blocks.length < JOIN_EVERY) return;
      item = blocks.join("");
      blocks.length = 0;
    }
  }

  text(): string {
    const levels = this.#levels;
    if (levels === undefined) return this.#only ?? "";
    if (levels.length === 1 && levels[0].length <= 1) return levels[0][0] ?? "";
    const all: string[] = [];
    for (let level = levels.length - 1; level >= 0; level--) for (const block of levels[level]) all.push(block);
    const text = all.join("");
    this.#levels = [[text]];
    return text;
  }
}

const JOIN_EVERY = 32;

/**
 * Usage fields of a later report replace earlier ones; fields it lacks keep their earlier values. Cumulative reports
 * (OpenAI's final chunk, continuous usage) come out as the last one; APIs that split usage over events (Anthropic:
 * input tokens in `message_start`, output tokens in `message_delta`) come out whole.
 */
export function mergeUsage(earlier: Usage | undefined, later: Usage): Usage {
  if (earlier === undefined) return later;
  const merged: { -readonly [K in keyof Usage]: Usage[K] } = {};
  for (const field of USAGE_FIELDS) {
    const value = later[field] ?? earlier[field];
    if (value !== undefined) merged[field] = value;
  }
  return merged;
}
