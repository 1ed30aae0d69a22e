/**
 * Folds a response's SSE events (or its single body) into the fields of a RequestRecord.
 *
 * Stamp first, parse later: `onEvent` only keeps the payload and its arrival time and queues one microtask
 * to parse. When a batching server answers hundreds of streams in the same instant, the runtime resumes all
 * their pending reads in one batch; because parsing is queued behind that whole batch, every socket's read is
 * stamped before any JSON is parsed, instead of each waiting for its predecessors' parsing. Token counting
 * happens later still, off this thread (records/record_processor.ts).
 */
import type { Delta, EndpointAdapter, Usage } from "../endpoints/endpoint_adapter.ts";

export class ResponseCollector {
  readonly responseTimes: number[] = [];
  readonly #content = new TextParts();
  readonly #reasoning = new TextParts();
  firstOutputAt: number | undefined;
  lastResponseAt: number | undefined;
  usage: Usage | undefined;
  finishReason: string | undefined;
  /** First API error object seen in the stream or body. */
  apiError: Delta["error"] | undefined;
  /** First payload that could not be parsed. */
  parseError: string | undefined;
  /** What a finished video job reported about itself. */
  video: Delta["video"] | undefined;
  readonly #adapter: EndpointAdapter;
  /** Every payload as received, when the raw export asks for them. */
  readonly raw: { t: number; text: string }[] | undefined;

  readonly #isStreamEnd: ((data: string) => boolean) | undefined;

  constructor(adapter: EndpointAdapter, keepRaw = false) {
    this.#adapter = adapter;
    this.#isStreamEnd = adapter.isStreamEnd?.bind(adapter);
    this.raw = keepRaw ? [] : undefined;
  }

  // Events waiting for the parse microtask, in slots reused for the whole response: fresh arrays per read were
  // ~15 % of everything the engine allocated at 256 streams (V8 sampling heap profile), and allocation is what
  // sets how often the young-generation collector pauses the thread that stamps reads.
  readonly #pendingData: string[] = [];
  readonly #pendingTimes: number[] = [];
  #pending = 0;

  /**
   * SSE handler: `t` is the arrival time of the event's first byte. Parsing is deferred (see above). True when
   * the adapter says this event ends the answer, which tells the transport the exchange is complete.
   */
  readonly onEvent = (data: string, t: number): boolean => {
    this.raw?.push({ t, text: data });
    const i = this.#pending++;
    this.#pendingData[i] = data;
    this.#pendingTimes[i] = t;
    if (i === 0) queueMicrotask(this.flush);
    return this.#isStreamEnd !== undefined && this.#isStreamEnd(data);
  };

  /** Parses every event received so far; called before the record is built. */
  readonly flush = (): void => {
    const n = this.#pending;
    if (n === 0) return;
    this.#pending = 0;
    const data = this.#pendingData;
    const times = this.#pendingTimes;
    for (let i = 0; i < n; i++) {
      const payload = data[i];
      data[i] = ""; // an event may be a slice of its read's text: do not keep that text alive
      let delta: Delta | undefined;
      try {
        delta = this.#adapter.parseEvent(payload);
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
    const whole = new TextDecoder().decode(body);
    this.raw?.push({ t, text: whole });
    try {
      json = JSON.parse(whole);
    } catch {
      // An API whose answer may be plain text (a transcript) reads it its own way.
      if (this.#adapter.parseTextBody !== undefined) return this.add(this.#adapter.parseTextBody(whole), t);
      const text = new TextDecoder().decode(body.subarray(0, 200));
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
    if (delta.video !== undefined) this.video = delta.video;
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
 */
class TextParts {
  #parts: string[] = [];

  push(part: string): void {
    const parts = this.#parts;
    parts.push(part);
    if (parts.length >= JOIN_EVERY) this.#parts = [parts.join("")];
  }

  text(): string {
    const parts = this.#parts;
    if (parts.length === 0) return "";
    if (parts.length > 1) this.#parts = [parts.join("")];
    return this.#parts[0];
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
  return {
    promptTokens: later.promptTokens ?? earlier.promptTokens,
    completionTokens: later.completionTokens ?? earlier.completionTokens,
    totalTokens: later.totalTokens ?? earlier.totalTokens,
    reasoningTokens: later.reasoningTokens ?? earlier.reasoningTokens,
  };
}
