/**
 * One socket of the HTTP client: its reused read buffers, response parser and SSE framer, and the exchange loop
 * that writes a request and reads its response (read → stamp → parse in place → synchronous callbacks). Whether
 * the socket may be used again is reported back as an {@linkcode ExchangeEnd}; the pool acts on it.
 */
import type { SseEventHandler } from "./http_exchange.ts";
import { type HttpResponseHead, HttpResponseParser } from "./http_response_parser.ts";
import { SseFramer } from "./sse_framer.ts";
import type { SocketOps } from "../runtime/socket_ops.ts";
import type { TurnStamp } from "../timing/turn_stamp.ts";
import type { Deadline, DeadlineQueue } from "../timing/deadline_queue.ts";
import { BodyDecoder, decompressionFormat } from "./body_decoder.ts";
import { errorText, type ExchangeState, type SendControl } from "./send_control.ts";
import { BodySlab } from "./body_slab.ts";

/**
 * How an exchange left its connection. `unused`: interrupted before anything was written, the socket is clean.
 * `reuse`: the response was read in full and the server allows keep-alive. `close`: done (answered or failed),
 * the socket must be closed. `retry`: on a kept-alive socket, the request certainly did not reach the server (its
 * first write failed, or the server answered `408 Request Timeout`, its word that it received no request); close
 * it and resend once on a fresh one. Nothing that may have reached the server is ever resent (RFC 9112 §9.3.1: a
 * POST is not idempotent): it is an error.
 */
export type ExchangeEnd = "unused" | "reuse" | "close" | "retry";

/** Preallocate at most this much for a Content-Length body, so a lying header cannot allocate gigabytes. */
const MAX_BODY_PREALLOC = 64 * 1024 * 1024;
/** Default limit on one response's body bytes, as received and as decoded (`HttpClientOptions.maxResponseBytes`). */
export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
const INITIAL_BODY_BYTES = 4096;
const EMPTY = new Uint8Array(0);
/**
 * After the handler said the answer is complete (`[DONE]`), how long the rest of the body (the terminating chunk)
 * may take before the exchange ends anyway and the connection is closed instead of reused.
 */
export const STREAM_END_GRACE_MS = 250;

/**
 * When a client's connections last received data (shared by them): a response head, body bytes of a plain
 * response, or an SSE event that carries data. Comments and blank lines of a stream are not progress: a server
 * that sends only keep-alive comments is stalled.
 */
export interface Progress {
  at: number;
}

/** A socket with its reused read buffers, parser and framer, and the per-exchange state they report into. */
export class Connection {
  readonly socket: Deno.Conn;
  readonly io: SocketOps;
  /** `host:port` of the server, for messages. */
  readonly remote: string;
  /** The buffer holding the bytes of the read last returned by `nextRead`. */
  buf: Uint8Array;
  /** With pipelined reads: the second buffer, the read posted ahead (and its buffer), the read handed out last. */
  readonly #otherBuf: Uint8Array | undefined;
  #ahead: Promise<number | null> | undefined;
  #aheadBuf: Uint8Array = EMPTY;
  #aheadMark = 0;
  #handedOut: Promise<number | null> | undefined;
  /** The client's arrival stamps, and the `mark()` taken when the read handed out last was posted. */
  readonly turn: TurnStamp;
  readMark = 0;
  readonly parser: HttpResponseParser;
  readonly framer: SseFramer;
  closed = false;
  /** Most body bytes one response may have, as received and as decoded; past it the exchange ends. */
  readonly maxBodyBytes: number;
  readonly #progress: Progress;
  /** Where small bodies' arrays come from (shared by a client's connections). */
  readonly #slab: BodySlab;
  /** Arrival of the latest SSE event with data on this connection (folded into `#progress` once per read). */
  dataAt = 0;
  /** Decoded body bytes of the exchange in progress (a compressed body; 0 otherwise). */
  decodedLen = 0;
  /** The body is over `maxBodyBytes` (announced by Content-Length, or decoded past it). */
  overLimit = false;

  // State of the exchange in progress, set by `begin` before each request.
  ex: ExchangeState | undefined = undefined;
  ctl: SendControl | undefined = undefined;
  sse: SseEventHandler | undefined = undefined;
  streaming = false;
  /** Arrival time of the read being parsed: every byte of it carries this time. */
  t = 0;
  body: Uint8Array = EMPTY;
  bodyLen = 0;
  handlerError: unknown = undefined;
  /** Arrival time of the event the handler called the end of the answer. */
  streamEndAt: number | undefined = undefined;
  /** A `408` may be resent (a kept-alive socket, first attempt); `timedOut408`: the head just read is one. */
  #may408 = false;
  timedOut408 = false;
  /** Decodes a `Content-Encoding` body; undefined for identity bodies (the usual case). */
  decoder: BodyDecoder | undefined = undefined;
  #coding = "";
  /** The last Content-Type seen on this connection and whether it is an event stream (a server repeats its own). */
  #lastType: string | undefined = undefined;
  #lastTypeIsStream = false;
  readonly #deadlines: DeadlineQueue;
  #grace: Deadline | undefined = undefined;
  /** A read posted while the connection idled in the pool (direct or public reads without a second buffer). */
  #early: Promise<number | null> | undefined = undefined;
  #earlyMark = 0;
  /** Set while the connection idles in the pool; a new value per idle period. */
  idleSince = 0;
  /** The pool's handler of a read completing while the connection idles (made once per connection). */
  idleEnded: (() => void) | undefined = undefined;
  /** Its place among its pool's connections in use (`IndexedSet`). */
  setIndex = -1;

  constructor(
    socket: Deno.Conn,
    io: SocketOps,
    remote: string,
    readBufferBytes: number,
    pipelined: boolean,
    turn: TurnStamp,
    deadlines: DeadlineQueue,
    maxBodyBytes: number = DEFAULT_MAX_RESPONSE_BYTES,
    progress: Progress = { at: 0 },
    slab: BodySlab = new BodySlab(),
  ) {
    this.socket = socket;
    this.#slab = slab;
    this.maxBodyBytes = maxBodyBytes;
    this.#progress = progress;
    this.#deadlines = deadlines;
    this.turn = turn;
    this.io = io;
    this.remote = remote;
    this.buf = new Uint8Array(readBufferBytes);
    this.#otherBuf = pipelined ? new Uint8Array(readBufferBytes) : undefined;
    // Callbacks are bound once per connection, so the per-read path allocates nothing.
    this.parser = new HttpResponseParser({
      onHead: (head) => this.#onHead(head),
      onBody: (bytes, start, end) => this.#onBody(bytes, start, end),
    });
    this.framer = new SseFramer((data, t, event) => {
      this.dataAt = t;
      const handler = this.sse;
      // Events already parsed from a read that arrived before a cancel are not delivered after it.
      if (handler === undefined || this.ctl?.reason !== undefined || this.handlerError !== undefined) return;
      try {
        if (handler(data, t, event) === true) this.streamEndAt ??= t;
      } catch (e) {
        this.handlerError = e;
      }
    });
  }

  /**
   * The next read of this socket, in order; its bytes are in `buf` once it resolves (valid until the next call).
   * `null` or 0: end of stream.
   *
   * Pipelined, a second read is always posted, into the other buffer. Only where reads go through the public
   * `Deno.Conn.read`: direct ops (runtime/socket_ops.ts) have no set, and a second op per connection measured worse
   * with them. Why: `Deno.Conn.read` keeps its pending promise in a per-connection set, and a set that empties
   * on every read re-allocates its table on every delete; once that table has aged into V8's old generation
   * (one idle wait across two young collections is enough), every read leaves ~110–175 B of old-generation
   * garbage, which at ~19 k reads/s was most of what triggered full collections, the longest pauses of the
   * engine thread. With a read always pending the set
   * never empties (11 B per read in isolation). `infermeter calibrate` at 256 streams, one client core,
   * request-latency error p99 in 12 interleaved pairs: lower in 11, median 8.7 ms against 19.6 ms
   * (docs/performance_history.md).
   * Reads complete in the order they were posted, so the byte stream is unchanged; a read posted ahead while
   * the connection idles in the pool sees the server's close at once, as the next exchange's first read.
   */
  nextRead(): Promise<number | null> {
    const other = this.#otherBuf;
    if (other === undefined) {
      const early = this.#early;
      if (early !== undefined) {
        this.#early = undefined;
        this.readMark = this.#earlyMark;
        return early;
      }
      this.readMark = this.turn.mark();
      return this.io.read(this.buf);
    }
    if (this.#handedOut === undefined) {
      // First read on this connection: post both.
      this.readMark = this.turn.mark();
      this.#handedOut = this.#post(this.buf);
      this.#ahead = this.#post(other);
      this.#aheadBuf = other;
      this.#aheadMark = this.readMark;
      return this.#handedOut;
    }
    // The read handed out last has been consumed: its buffer is free again, and goes behind the one ahead.
    const free = this.buf;
    this.buf = this.#aheadBuf;
    this.#handedOut = this.#ahead!;
    this.readMark = this.#aheadMark;
    this.#aheadMark = this.turn.mark();
    this.#ahead = this.#post(free);
    this.#aheadBuf = free;
    return this.#handedOut;
  }

  #post(buf: Uint8Array): Promise<number | null> {
    const read = this.io.read(buf);
    // A read posted ahead fails when the connection is closed; whoever awaits it sees that, nobody else must.
    read.catch(() => {});
    return read;
  }

  /**
   * The read that will be handed out next, posted now if it is not yet: the pool watches it while the connection
   * idles, so a server that closes the connection, or sends anything (an unsolicited `408`), is seen before the
   * connection is given to a request that the server would never receive. The caller handles its failure (the
   * pool's watch does), so it is posted without a handler of its own: one promise less per request.
   */
  idleRead(): Promise<number | null> {
    if (this.#otherBuf !== undefined && this.#ahead !== undefined) return this.#ahead;
    if (this.#early === undefined) {
      this.#earlyMark = this.turn.mark();
      this.#early = this.io.read(this.buf);
    }
    return this.#early;
  }

  /** Prepares the per-exchange state for a new request on this connection. */
  begin(ex: ExchangeState, ctl: SendControl, sse: SseEventHandler | undefined): void {
    this.ex = ex;
    this.ctl = ctl;
    this.sse = sse;
    this.streaming = false;
    this.body = EMPTY;
    this.bodyLen = 0;
    this.handlerError = undefined;
    this.streamEndAt = undefined;
    this.decodedLen = 0;
    this.overLimit = false;
    this.parser.start(false);
    this.framer.reset();
  }

  /** Drops references to the finished exchange so an idle connection retains nothing of it. */
  finish(): void {
    if (this.#grace !== undefined) {
      this.#deadlines.cancel(this.#grace);
      this.#grace = undefined;
    }
    if (this.decoder !== undefined) {
      this.decoder.abort();
      this.decoder = undefined;
    }
    this.ex = undefined;
    this.ctl = undefined;
    this.sse = undefined;
    this.body = EMPTY;
  }

  closeSocket(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.socket.close();
    } catch {
      // Already closed by the runtime: nothing left to release.
    }
  }

  /**
   * Writes `bytes` and reads the response into `ex`. `mayRetry`: a failure before any response byte on a
   * kept-alive connection ends in `retry` instead of an error. The caller set `ctl.conn` and checked that `ctl`
   * was not interrupted.
   */
  async exchange(
    bytes: Uint8Array,
    onSseEvent: SseEventHandler | undefined,
    ex: ExchangeState,
    ctl: SendControl,
    mayRetry: boolean,
  ): Promise<ExchangeEnd> {
    this.begin(ex, ctl, onSseEvent);
    const io = this.io;

    ctl.stage = "sending the request";
    ex.requestWriteStart = performance.now();
    this.#may408 = mayRetry && ex.reused;
    this.timedOut408 = false;
    let writes = 0;
    try {
      let off = await io.write(bytes);
      writes = 1;
      while (off < bytes.length) {
        off += await io.write(bytes.subarray(off));
        writes++;
      }
      ex.writes = writes;
    } catch (e) {
      // Only a first write that failed sent nothing of the request: that alone may be resent.
      return this.#fail(ex, ctl, mayRetry && writes === 0, `writing the request failed (${errorText(e)})`);
    }
    ex.requestSent = performance.now();
    ex.bytesSent = bytes.length;
    ctl.onSent?.(ex.requestSent);
    ctl.stage = "waiting for the response";

    // The hot loop: read → stamp → parse in place → synchronous callbacks. Nothing here awaits per event.
    const parser = this.parser;
    for (;;) {
      let n: number | null;
      try {
        n = await this.nextRead();
      } catch (e) {
        return this.#fail(ex, ctl, false, `the connection failed (${errorText(e)})`);
      }
      const t = this.turn.stamp(this.readMark);
      if (!n) {
        if (parser.finish()) {
          // Close-delimited body: EOF is its end.
          ex.lastByteAt = t;
          if (this.decoder !== undefined) await this.#endDecoder(ex);
          if (ex.error === undefined) this.#complete(ex);
          return "close";
        }
        return this.#fail(ex, ctl, false, `the server closed the connection`);
      }
      this.t = t;
      // Lets the framer decode this read's text once for all its events (chunks are sub-ranges of it).
      const buf = this.buf;
      this.framer.beginRead(buf, 0, n);
      ex.bytesReceived += n;
      if (ex.firstByteAt === undefined) ex.firstByteAt = t;
      const bodyBefore = parser.bodyBytes;
      let consumed: number;
      try {
        consumed = parser.push(buf, 0, n);
        // The HTTP trace's body timings (k6's waiting/receiving), taken where the bytes move.
        const bodyNow = parser.bodyBytes;
        if (bodyNow > bodyBefore) {
          if (ex.firstBodyAt === undefined) ex.firstBodyAt = t;
          ex.lastBodyAt = t;
          ex.bodyReads = (ex.bodyReads ?? 0) + 1;
          ex.bodyBytesReceived = (ex.bodyBytesReceived ?? 0) + bodyNow - bodyBefore;
          // An endless or enormous body ends here, before it can exhaust memory.
          if (bodyNow > this.maxBodyBytes) this.overLimit = true;
          if (!this.streaming) this.#progress.at = t;
          else if (this.dataAt > this.#progress.at) this.#progress.at = this.dataAt;
        }
      } catch (e) {
        ex.lastByteAt = t;
        ex.error = { kind: "protocol", message: `Response from ${this.remote} is invalid: ${errorText(e)}` };
        return "close";
      }
      if (ctl.reason !== undefined && this.streamEndAt === undefined) {
        ex.lastByteAt = t;
        ex.error = ctl.error();
        return "close";
      }
      // The idle timeout of a server that closed this connection as the request went out: it was not received.
      if (this.timedOut408) return "retry";
      if (this.overLimit) {
        ex.lastByteAt = t;
        ex.error = this.#tooLarge();
        return "close";
      }
      if (this.handlerError !== undefined) {
        ex.lastByteAt = t;
        ex.error = {
          kind: "protocol",
          message: `The onSseEvent handler threw (${errorText(this.handlerError)}); the stream was abandoned.`,
        };
        return "close";
      }
      if (parser.done) {
        ex.lastByteAt = t;
        if (this.decoder !== undefined && !(await this.#endDecoder(ex))) return "close";
        this.#complete(ex);
        // Bytes beyond the response are something we never asked for: don't trust the connection again.
        return parser.keepAlive && consumed === n ? "reuse" : "close";
      }
      if (this.streamEndAt !== undefined && this.#grace === undefined) this.#armGrace();
    }
  }

  /** The answer is complete but the body is still open: give its end a moment, then close the socket. */
  #armGrace(): void {
    this.#grace = this.#deadlines.add(performance.now() + STREAM_END_GRACE_MS, () => {
      this.#grace = undefined;
      this.closeSocket();
    });
  }

  /** Waits for the decoder's last bytes; false with `ex.error` set when the body could not be decoded. */
  async #endDecoder(ex: ExchangeState): Promise<boolean> {
    const error = await this.decoder!.end();
    this.decoder = undefined;
    if (this.overLimit) {
      ex.error = this.#tooLarge();
      return false;
    }
    if (error !== undefined) {
      ex.error = {
        kind: "protocol",
        message: `Response from ${this.remote} has a ${this.#coding} body that could not be decoded (${
          errorText(error)
        }).`,
      };
      return false;
    }
    if (this.handlerError !== undefined) {
      ex.error = {
        kind: "protocol",
        message: `The onSseEvent handler threw (${errorText(this.handlerError)}); the stream was abandoned.`,
      };
      return false;
    }
    return true;
  }

  #tooLarge(): ExchangeState["error"] {
    const length = this.parser.contentLength;
    const announced = length !== undefined && length > this.maxBodyBytes ? ` (Content-Length ${length})` : "";
    return {
      kind: "too_large",
      message: `Response from ${this.remote} has a body larger than ${this.maxBodyBytes} bytes${announced}; ` +
        `the rest was not read (raise --max-response-bytes if such answers are expected).`,
      group: `Response from ${this.remote} has a body larger than ${this.maxBodyBytes} bytes.`,
    };
  }

  #complete(ex: ExchangeState): void {
    if (!this.streaming) ex.body = this.bodyLen === 0 ? new Uint8Array(0) : this.body.subarray(0, this.bodyLen);
  }

  /** Records a failure (or asks for a retry when this was a stale kept-alive connection). */
  #fail(ex: ExchangeState, ctl: SendControl, mayRetry: boolean, what: string): ExchangeEnd {
    const now = performance.now();
    if (this.streamEndAt !== undefined && this.handlerError === undefined) {
      // The answer was complete before the connection ended (or was closed after the grace): not a failure.
      ex.lastByteAt = this.streamEndAt;
      return "close";
    }
    if (ctl.reason !== undefined) {
      ex.error = ctl.error();
    } else if (mayRetry && ex.reused && ex.bytesReceived === 0) {
      // The server had closed this idle connection before the request's first byte was written: resend once.
      return "retry";
    } else {
      const where = this.parser.phase === "head"
        ? ex.bytesReceived === 0 ? "before any response byte" : "before the response head was complete"
        : "mid-body";
      const paren = what.indexOf(" (");
      const cause = paren < 0 ? what : what.slice(0, paren);
      ex.error = {
        kind: "reset",
        message: `Response from ${this.remote} was cut short: ${what} ${where}${
          where === "mid-body" ? ` after ${this.parser.bodyBytes} body bytes` : ""
        }.`,
        group: `Response from ${this.remote} was cut short: ${cause} ${where}.`,
      };
    }
    ex.lastByteAt = now;
    if (!this.streaming && this.bodyLen > 0) ex.body = this.body.slice(0, this.bodyLen);
    return "close";
  }

  #onHead(head: HttpResponseHead): void {
    const ex = this.ex;
    if (ex === undefined) return;
    if (head.status === 408 && this.#may408) {
      this.timedOut408 = true;
      return;
    }
    ex.status = head.status;
    ex.headers = head.headers;
    ex.headersAt = this.t;
    this.#progress.at = this.t;
    if (this.ctl !== undefined) this.ctl.stage = "reading the response body";
    const type = head.headers.get("content-type");
    if (type !== this.#lastType && type !== undefined) {
      this.#lastType = type;
      this.#lastTypeIsStream = isEventStream(type);
    }
    this.streaming = this.sse !== undefined && type !== undefined && this.#lastTypeIsStream;
    ex.streamed = this.streaming;
    const length = this.parser.contentLength;
    if (length !== undefined && length > this.maxBodyBytes) {
      this.overLimit = true;
      return;
    }
    if (!this.streaming && length !== undefined && length > 0) {
      this.body = this.#slab.take(Math.min(length, MAX_BODY_PREALLOC));
    }
    const coding = head.headers.get("content-encoding");
    if (coding !== undefined) this.#startDecoder(ex, coding.trim().toLowerCase());
  }

  /** Sets up decoding of a `Content-Encoding` body; an encoding this runtime cannot decode is a protocol error. */
  #startDecoder(ex: ExchangeState, coding: string): void {
    if (coding === "" || coding === "identity") return;
    const format = decompressionFormat(coding);
    if (format === undefined) {
      throw new SyntaxError(
        `the body is encoded as "${coding}", which this client cannot decode; ask the server for gzip, deflate, br or none.`,
      );
    }
    this.#coding = coding;
    ex.contentEncoding = coding;
    this.decoder = new BodyDecoder(format, (bytes, t) => {
      if (this.overLimit) return;
      this.decodedLen += bytes.length;
      if (this.decodedLen > this.maxBodyBytes) {
        // A compression bomb: stop taking its output; the exchange ends at its next read.
        this.overLimit = true;
        return;
      }
      if (this.streaming) {
        this.framer.push(bytes, 0, bytes.length, t);
        if (this.streamEndAt !== undefined && this.#grace === undefined && !this.parser.done) this.#armGrace();
      } else this.#append(bytes, 0, bytes.length);
    });
  }

  #onBody(bytes: Uint8Array, start: number, end: number): void {
    if (this.decoder !== undefined) {
      this.decoder.write(bytes, start, end, this.t);
      return;
    }
    if (this.streaming) {
      this.framer.push(bytes, start, end, this.t);
      return;
    }
    this.#append(bytes, start, end);
  }

  #append(bytes: Uint8Array, start: number, end: number): void {
    const n = end - start;
    const need = this.bodyLen + n;
    if (need > this.body.length) {
      const grown = new Uint8Array(Math.max(need, this.body.length * 2, INITIAL_BODY_BYTES));
      grown.set(this.body.subarray(0, this.bodyLen));
      this.body = grown;
    }
    this.body.set(bytes.subarray(start, end), this.bodyLen);
    this.bodyLen = need;
  }
}

function isEventStream(contentType: string): boolean {
  const semi = contentType.indexOf(";");
  const mime = (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return mime === "text/event-stream";
}
