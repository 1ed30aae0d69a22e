/**
 * The engine's HTTP/1.1 client on `Deno.connect` / `Deno.startTls`.
 *
 * Why not `fetch`: it streams SSE at ~40k events/s here and its timestamps lag by 100 ms+ under load, because
 * every chunk costs a promise and several copies. This client reads into one reused buffer per connection,
 * stamps `performance.now()` the moment `read()` resolves (one stamp for all the reads completed in one event-loop
 * turn: `TurnStamp`), and parses status, headers, chunked framing and SSE in place with synchronous callbacks
 * (design §3, §4).
 *
 * Connection reuse strategies: `pooled` (LIFO keep-alive pool) and `never` (one connection per request). The
 * design's "per-session" strategy is one `HttpClient` per session with `maxConnections: 1`.
 */
import type {
  HttpExchange,
  HttpRequest,
  SendOptions,
  SseEventHandler,
  Target,
  TransportError,
} from "./http_exchange.ts";
import { type HttpResponseHead, HttpResponseParser } from "./http_response_parser.ts";
import { SseFramer } from "./sse_framer.ts";
import { type SocketOps, socketOps } from "../runtime/socket_ops.ts";
import { type Deadline, DeadlineQueue } from "../timing/deadline_queue.ts";
import { TurnStamp } from "../timing/turn_stamp.ts";

export type ConnectionReuse = "pooled" | "never";

export interface HttpClientOptions {
  /**
   * Most sockets open at once (connecting, busy or idle). A `send()` finding none free waits (FIFO) for one;
   * its deadline and signal apply while it waits.
   * @default {Infinity}
   */
  readonly maxConnections?: number;
  /**
   * `"pooled"`: a connection whose response was fully read and whose server allows keep-alive goes back to a
   * LIFO idle pool. `"never"`: every request opens a fresh connection, sends `Connection: close` (unless the
   * request sets `Connection` itself) and closes it afterwards.
   * @default {"pooled"}
   */
  readonly reuse?: ConnectionReuse;
  /**
   * Connection attempts in flight at once; more wait their turn. Thousands of simultaneous SYNs overflow a
   * server's accept backlog (Deno.serve's is 511) and the kernel then retries them after 1 s, 3 s, … — a slow,
   * uneven start instead of a fast one.
   * @default {256}
   */
  readonly maxConcurrentConnects?: number;
  /** Budget for TCP connect plus TLS handshake; exceeding it is a `connect` error. @default {10000} */
  readonly connectTimeoutMs?: number;
  /**
   * Extra PEM root certificates trusted for https (e.g. a self-signed test CA). Deno cannot disable chain
   * verification per connection: for an untrusted server run Deno with
   * `--unsafely-ignore-certificate-errors=<host>` instead.
   */
  readonly caCerts?: readonly string[];
  /** Accept a certificate that does not name `target.hostname` (the chain is still verified). @default {false} */
  readonly skipHostnameVerification?: boolean;
  /**
   * Size of each connection's reused read buffer. Memory is `openConnections × readBufferBytes`
   * (20k connections × 64 KiB ≈ 1.25 GiB), so lower it for very high connection counts.
   * @default {65536}
   */
  readonly readBufferBytes?: number;
  /**
   * Read and write through the runtime's ops rather than `Deno.Conn`'s wrappers where the runtime has them
   * (runtime/socket_ops.ts). `false` forces the public methods. @default {true}
   */
  readonly directSocketOps?: boolean;
  /**
   * Where reads go through the public `Deno.Conn.read` (no direct ops): keep a second read posted on every
   * kept-alive plain-TCP connection (a second buffer of `readBufferBytes`). Why: see `Connection.nextRead`.
   * Turn it off where memory per connection matters more (tens of thousands of streams). @default {true}
   */
  readonly pipelinedReads?: boolean;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_READ_BUFFER_BYTES = 64 * 1024;
/** Preallocate at most this much for a Content-Length body, so a lying header cannot allocate gigabytes. */
const MAX_BODY_PREALLOC = 64 * 1024 * 1024;
const INITIAL_BODY_BYTES = 4096;
const EMPTY = new Uint8Array(0);
const HEADER_INJECTION = /[\r\n\0]/;
const BAD_PATH = /[\s\0]/;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type ExchangeState = Mutable<HttpExchange>;
type Interrupt = "timeout" | "cancelled";
type Stage =
  | "waiting for a free connection"
  | "connecting"
  | "sending the request"
  | "waiting for the response"
  | "reading the response body";

/** One `send()`'s cancellation state: why it was interrupted and what to close to unblock its pending await. */
class SendControl {
  reason: Interrupt | undefined = undefined;
  message = "";
  stage: Stage = "connecting";
  /** The connection in use; closing it makes a pending read or write reject at once. */
  conn: Connection | undefined = undefined;
  /** Unblocks a wait that closing `conn` cannot (queued for a slot, connecting). */
  onInterrupt: (() => void) | undefined = undefined;
  /** Planned cancellation, ms after the request is written (SendOptions.cancelAfterSentMs). */
  cancelAfterSentMs: number | undefined = undefined;
  /** The planned cancellation's queued deadline, once the request is written. */
  cancelTimer: Deadline | undefined = undefined;
  readonly #remote: string;
  readonly #startedAt: number;

  constructor(remote: string, startedAt: number) {
    this.#remote = remote;
    this.#startedAt = startedAt;
  }

  interrupt(reason: Interrupt, detail: string): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    const ms = Math.round(performance.now() - this.#startedAt);
    this.message = reason === "timeout"
      ? `Request to ${this.#remote} hit its deadline after ${ms} ms while ${this.stage}; raise the request timeout or check the server.`
      : `Request to ${this.#remote} was cancelled after ${ms} ms while ${this.stage}${detail}.`;
    this.conn?.closeSocket();
    this.onInterrupt?.();
  }

  error(): TransportError {
    return { kind: this.reason ?? "cancelled", message: this.message };
  }
}

/** A socket with its reused read buffers, parser and framer, and the per-exchange state they report into. */
class Connection {
  readonly socket: Deno.Conn;
  readonly io: SocketOps;
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

  // State of the exchange in progress, written by HttpClient before each request.
  ex: ExchangeState | undefined = undefined;
  ctl: SendControl | undefined = undefined;
  sse: SseEventHandler | undefined = undefined;
  streaming = false;
  /** Arrival time of the read being parsed: every byte of it carries this time. */
  t = 0;
  body: Uint8Array = EMPTY;
  bodyLen = 0;
  handlerError: unknown = undefined;

  constructor(socket: Deno.Conn, io: SocketOps, readBufferBytes: number, pipelined: boolean, turn: TurnStamp) {
    this.socket = socket;
    this.turn = turn;
    this.io = io;
    this.buf = new Uint8Array(readBufferBytes);
    this.#otherBuf = pipelined ? new Uint8Array(readBufferBytes) : undefined;
    // Callbacks are bound once per connection, so the per-read path allocates nothing.
    this.parser = new HttpResponseParser({
      onHead: (head) => this.#onHead(head),
      onBody: (bytes, start, end) => this.#onBody(bytes, start, end),
    });
    this.framer = new SseFramer((data, t, event) => {
      const handler = this.sse;
      // Events already parsed from a read that arrived before a cancel are not delivered after it.
      if (handler === undefined || this.ctl?.reason !== undefined || this.handlerError !== undefined) return;
      try {
        handler(data, t, event);
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

  /** Prepares the per-exchange state for a new request on this connection. */
  begin(ex: ExchangeState, ctl: SendControl, sse: SseEventHandler | undefined): void {
    this.ex = ex;
    this.ctl = ctl;
    this.sse = sse;
    this.streaming = false;
    this.body = EMPTY;
    this.bodyLen = 0;
    this.handlerError = undefined;
    this.parser.start(false);
    this.framer.reset();
  }

  /** Drops references to the finished exchange so an idle connection retains nothing of it. */
  finish(): void {
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

  #onHead(head: HttpResponseHead): void {
    const ex = this.ex;
    if (ex === undefined) return;
    ex.status = head.status;
    ex.headers = head.headers;
    ex.headersAt = this.t;
    if (this.ctl !== undefined) this.ctl.stage = "reading the response body";
    const type = head.headers.get("content-type");
    this.streaming = this.sse !== undefined && type !== undefined && isEventStream(type);
    ex.streamed = this.streaming;
    const length = this.parser.contentLength;
    if (!this.streaming && length !== undefined && length > 0) {
      this.body = new Uint8Array(Math.min(length, MAX_BODY_PREALLOC));
    }
  }

  #onBody(bytes: Uint8Array, start: number, end: number): void {
    if (this.streaming) {
      this.framer.push(bytes, start, end, this.t);
      return;
    }
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

interface Waiter {
  done: boolean;
  /** A kept-alive connection, `"slot"` (permission to open one), or undefined (interrupted / client closed). */
  readonly resolve: (got: Connection | "slot" | undefined) => void;
}

/** HTTP/1.1 client for one {@linkcode Target}. `send()` never rejects: failures come back as `exchange.error`. */
export class HttpClient {
  readonly #target: Target;
  readonly #hosts: readonly string[];
  #nextHost = 0;
  readonly #remote: string;
  readonly #hostLine: string;
  readonly #maxConnections: number;
  readonly #reuse: ConnectionReuse;
  readonly #connectTimeoutMs: number;
  readonly #maxConcurrentConnects: number;
  #connecting = 0;
  #connectQueue: (() => void)[] = [];
  readonly #caCerts: string[] | undefined;
  readonly #skipHostnameVerification: boolean;
  readonly #readBufferBytes: number;
  readonly #pipelinedReads: boolean;
  readonly #directSocketOps: boolean;
  readonly #encoder = new TextEncoder();
  /** Every send's deadline and every connect's time limit, on one timer. */
  readonly #deadlines = new DeadlineQueue();
  readonly #turn = new TurnStamp();
  readonly #watchers = new WeakMap<AbortSignal, Set<SendControl>>();
  readonly #commonCache = new WeakMap<ReadonlyArray<readonly [string, string]>, CommonHead>();

  /** LIFO: the most recently used connection is the least likely to have been closed by the server. */
  readonly #idle: Connection[] = [];
  readonly #busy = new Set<Connection>();
  /** Connections counted against maxConnections: connecting, busy and idle. */
  #open = 0;
  #waiters: Waiter[] = [];
  #waitersHead = 0;
  #closed = false;

  constructor(target: Target, options: HttpClientOptions = {}) {
    this.#target = target;
    this.#hosts = [target.hostname, ...(target.extraHostnames ?? [])];
    this.#remote = hostPort(target.hostname, target.port);
    this.#hostLine = `Host: ${target.hostHeader}\r\n`;
    const max = options.maxConnections ?? Infinity;
    if (!(max >= 1)) {
      throw new RangeError(`HttpClient maxConnections ${max} is below 1; pass at least 1 (or omit it for no limit).`);
    }
    this.#maxConnections = max;
    this.#reuse = options.reuse ?? "pooled";
    this.#connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.#maxConcurrentConnects = Math.max(1, options.maxConcurrentConnects ?? 256);
    if (!(this.#connectTimeoutMs > 0)) {
      throw new RangeError(
        `HttpClient connectTimeoutMs ${this.#connectTimeoutMs} is not positive; pass milliseconds above 0.`,
      );
    }
    this.#caCerts = options.caCerts === undefined ? undefined : [...options.caCerts];
    this.#skipHostnameVerification = options.skipHostnameVerification ?? false;
    this.#readBufferBytes = options.readBufferBytes ?? DEFAULT_READ_BUFFER_BYTES;
    // A connection used once gains nothing from it (its set is new), and would pay for a second buffer.
    this.#pipelinedReads = (options.pipelinedReads ?? true) && this.#reuse === "pooled";
    this.#directSocketOps = options.directSocketOps ?? true;
    if (!(this.#readBufferBytes >= 1024)) {
      throw new RangeError(
        `HttpClient readBufferBytes ${this.#readBufferBytes} is below 1024; pass a larger buffer size.`,
      );
    }
  }

  /** Kept-alive connections waiting in the pool. */
  get idleConnections(): number {
    return this.#idle.length;
  }

  /** Connections counted against `maxConnections`: connecting, in use, or idle. */
  get openConnections(): number {
    return this.#open;
  }

  /**
   * Sends one request and reads its response. Never rejects: network, protocol, timeout and cancellation
   * failures are returned in `exchange.error`, with whatever timings were observed before them.
   */
  async send(req: HttpRequest, opts: SendOptions = {}): Promise<HttpExchange> {
    const startedAt = performance.now();
    const ex: ExchangeState = { reused: false, streamed: false, bytesSent: 0, bytesReceived: 0 };
    let bytes: Uint8Array;
    try {
      bytes = this.#encode(req);
    } catch (e) {
      ex.error = { kind: "protocol", message: errorText(e) };
      return ex;
    }
    const ctl = new SendControl(this.#remote, startedAt);
    ctl.cancelAfterSentMs = opts.cancelAfterSentMs;
    const signal = opts.signal;
    if (signal?.aborted) {
      ctl.interrupt("cancelled", abortDetail(signal));
      ex.error = ctl.error();
      return ex;
    }
    let deadline: Deadline | undefined;
    if (opts.deadline !== undefined) {
      if (opts.deadline <= startedAt) {
        ctl.interrupt("timeout", "");
        ex.error = ctl.error();
        return ex;
      }
      deadline = this.#deadlines.add(opts.deadline, () => ctl.interrupt("timeout", ""));
    }
    const watchers = signal === undefined ? undefined : this.#abortWatchers(signal);
    watchers?.add(ctl);
    try {
      let fresh = false;
      for (;;) {
        const conn = await this.#acquire(ex, ctl, fresh);
        if (conn === undefined) break;
        // Only a reused connection that failed before any response byte is retried, and only once.
        if (await this.#exchange(conn, bytes, opts.onSseEvent, ex, ctl, !fresh) !== "retry") break;
        fresh = true;
        ex.reused = false;
        ex.requestSent = undefined;
        ex.bytesSent = 0;
        ex.lastByteAt = undefined;
      }
    } finally {
      if (deadline !== undefined) this.#deadlines.cancel(deadline);
      if (ctl.cancelTimer !== undefined) this.#deadlines.cancel(ctl.cancelTimer);
      watchers?.delete(ctl);
    }
    return ex;
  }

  /**
   * The sends in flight under `signal`, interrupted together when it aborts. One listener per signal and client
   * rather than one per send: adding and removing an `abort` listener on every request was ~3 % of the engine
   * thread's busy time (the engine passes one signal to all the requests of a phase).
   */
  #abortWatchers(signal: AbortSignal): Set<SendControl> {
    let watchers = this.#watchers.get(signal);
    if (watchers === undefined) {
      const set = new Set<SendControl>();
      watchers = set;
      this.#watchers.set(signal, set);
      signal.addEventListener("abort", () => {
        const detail = abortDetail(signal);
        for (const ctl of set) ctl.interrupt("cancelled", detail);
        set.clear();
      }, { once: true });
    }
    return watchers;
  }

  /**
   * Closes every socket: idle ones at once, busy ones by cancelling their exchanges (`cancelled`). Queued and
   * later sends fail with `cancelled`.
   */
  close(): void {
    this.#closed = true;
    for (const c of this.#idle) c.closeSocket();
    this.#open -= this.#idle.length;
    this.#idle.length = 0;
    for (const c of this.#busy) c.ctl?.interrupt("cancelled", " because the HTTP client was closed");
    for (let i = this.#waitersHead; i < this.#waiters.length; i++) {
      const w = this.#waiters[i];
      if (!w.done) {
        w.done = true;
        w.resolve(undefined);
      }
    }
    this.#waiters = [];
    this.#waitersHead = 0;
  }

  /** A connection for this exchange, or undefined with `ex.error` set. */
  async #acquire(ex: ExchangeState, ctl: SendControl, fresh: boolean): Promise<Connection | undefined> {
    if (ctl.reason !== undefined) {
      ex.error = ctl.error();
      return undefined;
    }
    if (this.#closed) {
      ex.error = closedError();
      return undefined;
    }
    // A retry keeps the slot of the connection it replaces, so it never queues behind other sends.
    if (!fresh) {
      if (this.#reuse === "pooled") {
        const idle = this.#idle.pop();
        if (idle !== undefined) {
          ex.reused = true;
          return idle;
        }
      }
      if (this.#open < this.#maxConnections) {
        this.#open++;
      } else {
        ctl.stage = "waiting for a free connection";
        const got = await this.#waitForConnection(ctl);
        if (got === undefined) {
          ex.error = ctl.reason !== undefined ? ctl.error() : closedError();
          return undefined;
        }
        if (got !== "slot") {
          ex.reused = true;
          return got;
        }
      }
    }
    const conn = await this.#connect(ex, ctl);
    if (conn === undefined) this.#freeSlot();
    return conn;
  }

  #waitForConnection(ctl: SendControl): Promise<Connection | "slot" | undefined> {
    return new Promise((resolve) => {
      const waiter: Waiter = { done: false, resolve };
      this.#waiters.push(waiter);
      ctl.onInterrupt = () => {
        if (waiter.done) return;
        waiter.done = true;
        resolve(undefined);
      };
    }).finally(() => {
      ctl.onInterrupt = undefined;
    }) as Promise<Connection | "slot" | undefined>;
  }

  #nextWaiter(): Waiter | undefined {
    while (this.#waitersHead < this.#waiters.length) {
      const w = this.#waiters[this.#waitersHead++];
      if (!w.done) {
        w.done = true;
        this.#compactWaiters();
        return w;
      }
    }
    this.#compactWaiters();
    return undefined;
  }

  #compactWaiters(): void {
    if (this.#waitersHead === this.#waiters.length) {
      this.#waiters = [];
      this.#waitersHead = 0;
    } else if (this.#waitersHead > 1024 && this.#waitersHead * 2 > this.#waiters.length) {
      this.#waiters = this.#waiters.slice(this.#waitersHead);
      this.#waitersHead = 0;
    }
  }

  /** A slot was given up: hand it to the next waiter, or stop counting it. */
  #freeSlot(): void {
    const w = this.#nextWaiter();
    if (w !== undefined) w.resolve("slot");
    else this.#open--;
  }

  /** Opens a connection (TCP, then TLS for https) within connectTimeoutMs; undefined with `ex.error` on failure. */
  async #connect(ex: ExchangeState, ctl: SendControl): Promise<Connection | undefined> {
    const target = this.#target;
    const hostname = this.#hosts[this.#nextHost];
    this.#nextHost = (this.#nextHost + 1) % this.#hosts.length;
    ctl.stage = "connecting";
    ex.connectStart = performance.now();
    if (this.#connecting >= this.#maxConcurrentConnects) {
      await new Promise<void>((resolve) => this.#connectQueue.push(resolve));
    }
    this.#connecting++;
    const aborter = new AbortController();
    let pending: Deno.Conn | undefined;
    let timedOut = false;
    const abortConnect = () => {
      aborter.abort();
      try {
        pending?.close();
      } catch {
        // Already closed.
      }
    };
    const deadline = this.#deadlines.add(performance.now() + this.#connectTimeoutMs, () => {
      timedOut = true;
      abortConnect();
    });
    ctl.onInterrupt = abortConnect;
    let socket: Deno.Conn;
    let phase = "TCP connect to";
    try {
      const tcp = await Deno.connect({ hostname, port: target.port, signal: aborter.signal });
      pending = tcp;
      tcp.setNoDelay(true);
      if (target.scheme === "https") {
        phase = "TLS handshake with";
        // SNI and certificate checks use the target's name even when the socket goes to an extra address.
        const tls = await Deno.startTls(tcp, {
          hostname: target.hostname,
          caCerts: this.#caCerts,
          unsafelyDisableHostnameVerification: this.#skipHostnameVerification,
        });
        pending = tls;
        await tls.handshake();
        socket = tls;
      } else {
        socket = tcp;
      }
      if (ctl.reason !== undefined || timedOut || this.#closed) throw new Error("interrupted");
    } catch (e) {
      abortConnect();
      if (ctl.reason !== undefined) ex.error = ctl.error();
      else if (this.#closed) ex.error = closedError();
      else if (timedOut) {
        ex.error = {
          kind: "connect",
          message: `${phase} ${
            hostPort(hostname, target.port)
          } took longer than ${this.#connectTimeoutMs} ms; check the address or raise the connect timeout.`,
        };
      } else {
        ex.error = {
          kind: "connect",
          message: `${phase} ${hostPort(hostname, target.port)} failed (${errorText(e)}); ${
            phase === "TCP connect to"
              ? "check that the server is running and the URL is right"
              : "check the server's certificate or pass its CA in caCerts"
          }.`,
        };
      }
      return undefined;
    } finally {
      this.#deadlines.cancel(deadline);
      ctl.onInterrupt = undefined;
      this.#connecting--;
      this.#connectQueue.shift()?.();
    }
    ex.connectEnd = performance.now();
    const io = socketOps(socket, this.#directSocketOps);
    // Plain TCP only: a read posted ahead on a TLS stream is not something this client has been measured with.
    const pipelined = this.#pipelinedReads && !io.direct && target.scheme !== "https";
    return new Connection(socket, io, this.#readBufferBytes, pipelined, this.#turn);
  }

  /**
   * Writes the request and reads the response on `c`. Returns "retry" when `c` was a stale kept-alive connection
   * (failed before any response byte) and a retry is allowed; otherwise the outcome is in `ex`.
   */
  async #exchange(
    c: Connection,
    bytes: Uint8Array,
    onSseEvent: SseEventHandler | undefined,
    ex: ExchangeState,
    ctl: SendControl,
    mayRetry: boolean,
  ): Promise<"done" | "retry"> {
    if (ctl.reason !== undefined) {
      // Interrupted between getting the connection and using it: the connection itself is still clean.
      ex.error = ctl.error();
      this.#release(c, true);
      return "done";
    }
    c.begin(ex, ctl, onSseEvent);
    ctl.conn = c;
    this.#busy.add(c);
    const io = c.io;

    ctl.stage = "sending the request";
    try {
      let off = await io.write(bytes);
      while (off < bytes.length) off += await io.write(bytes.subarray(off));
    } catch (e) {
      return this.#fail(c, ex, ctl, mayRetry, `writing the request failed (${errorText(e)})`);
    }
    ex.requestSent = performance.now();
    ex.bytesSent = bytes.length;
    ctl.stage = "waiting for the response";
    if (ctl.cancelAfterSentMs !== undefined && ctl.cancelTimer === undefined) {
      ctl.cancelTimer = this.#deadlines.add(
        ex.requestSent + ctl.cancelAfterSentMs,
        () => ctl.interrupt("cancelled", " as planned (--request-cancellation-rate)"),
      );
    }

    // The hot loop: read → stamp → parse in place → synchronous callbacks. Nothing here awaits per event.
    const parser = c.parser;
    for (;;) {
      let n: number | null;
      try {
        n = await c.nextRead();
      } catch (e) {
        return this.#fail(c, ex, ctl, mayRetry, `the connection failed (${errorText(e)})`);
      }
      const t = c.turn.stamp(c.readMark);
      if (!n) {
        if (parser.finish()) {
          // Close-delimited body: EOF is its end.
          ex.lastByteAt = t;
          this.#complete(c, ex, false);
          return "done";
        }
        return this.#fail(c, ex, ctl, mayRetry, `the server closed the connection`);
      }
      c.t = t;
      // Lets the framer decode this read's text once for all its events (chunks are sub-ranges of it).
      const buf = c.buf;
      c.framer.beginRead(buf, 0, n);
      ex.bytesReceived += n;
      if (ex.firstByteAt === undefined) ex.firstByteAt = t;
      let consumed: number;
      try {
        consumed = parser.push(buf, 0, n);
      } catch (e) {
        ex.lastByteAt = t;
        ex.error = { kind: "protocol", message: `Response from ${this.#remote} is invalid: ${errorText(e)}` };
        this.#discard(c);
        return "done";
      }
      if (ctl.reason !== undefined) {
        ex.lastByteAt = t;
        ex.error = ctl.error();
        this.#discard(c);
        return "done";
      }
      if (c.handlerError !== undefined) {
        ex.lastByteAt = t;
        ex.error = {
          kind: "protocol",
          message: `The onSseEvent handler threw (${errorText(c.handlerError)}); the stream was abandoned.`,
        };
        this.#discard(c);
        return "done";
      }
      if (parser.done) {
        ex.lastByteAt = t;
        // Bytes beyond the response are something we never asked for: don't trust the connection again.
        this.#complete(c, ex, parser.keepAlive && consumed === n);
        return "done";
      }
    }
  }

  #complete(c: Connection, ex: ExchangeState, reusable: boolean): void {
    if (!c.streaming) ex.body = c.bodyLen === 0 ? new Uint8Array(0) : c.body.subarray(0, c.bodyLen);
    this.#release(c, reusable && this.#reuse === "pooled");
  }

  /** Records a failure on `c` (or asks for a retry when `c` was a stale kept-alive connection). */
  #fail(c: Connection, ex: ExchangeState, ctl: SendControl, mayRetry: boolean, what: string): "done" | "retry" {
    const now = performance.now();
    if (ctl.reason !== undefined) {
      ex.error = ctl.error();
    } else if (mayRetry && ex.reused && ex.bytesReceived === 0) {
      // The server closed this idle connection before we used it; nothing was processed, so resend once.
      this.#discard(c, true);
      return "retry";
    } else {
      const where = c.parser.phase === "head"
        ? ex.bytesReceived === 0 ? "before any response byte" : "before the response head was complete"
        : `mid-body after ${c.parser.bodyBytes} body bytes`;
      ex.error = {
        kind: "reset",
        message: `Response from ${this.#remote} was cut short: ${what} ${where}.`,
      };
    }
    ex.lastByteAt = now;
    if (!c.streaming && c.bodyLen > 0) ex.body = c.body.slice(0, c.bodyLen);
    this.#discard(c);
    return "done";
  }

  /** Returns `c` to the pool (or to a waiter) when reusable, else closes it and frees its slot. */
  #release(c: Connection, reusable: boolean): void {
    this.#busy.delete(c);
    if (c.ctl !== undefined) c.ctl.conn = undefined;
    c.finish();
    if (reusable && !c.closed && !this.#closed) {
      const w = this.#nextWaiter();
      if (w !== undefined) w.resolve(c);
      else this.#idle.push(c);
      return;
    }
    c.closeSocket();
    this.#freeSlot();
  }

  /** Closes `c`; `keepSlot` when the caller opens its replacement at once (the stale-connection retry). */
  #discard(c: Connection, keepSlot = false): void {
    this.#busy.delete(c);
    if (c.ctl !== undefined) c.ctl.conn = undefined;
    c.finish();
    c.closeSocket();
    if (!keepSlot) this.#freeSlot();
  }

  /**
   * Serializes head + body into one buffer so the request usually leaves in one write. The request line, Host
   * and `commonHeaders` are the same for every request of a run: they are checked, joined and encoded once per
   * `commonHeaders` array and copied in as bytes, so only the request's own few headers are handled per request.
   */
  #encode(req: HttpRequest): Uint8Array {
    if (BAD_PATH.test(req.path) || req.path === "") {
      throw new TypeError(
        `Request path ${JSON.stringify(req.path)} is empty or contains whitespace; percent-encode it.`,
      );
    }
    const own = serializeFields(req.headers);
    const common = req.commonHeaders === undefined ? undefined : this.#commonHead(req, own.hasHost);
    let head = common === undefined ? this.#requestLine(req, own.hasHost) : "";
    head += own.text;
    const fields = common?.fields;
    const body = req.body;
    if (!fields?.hasLength && !own.hasLength && (body !== undefined || req.method === "POST")) {
      head += `Content-Length: ${body?.length ?? 0}\r\n`;
    }
    if (this.#reuse === "never" && !fields?.hasConnection && !own.hasConnection) head += "Connection: close\r\n";
    head += "\r\n";
    const prefix = common?.bytes ?? EMPTY;
    const bodyLen = body?.length ?? 0;
    const out = new Uint8Array(prefix.length + head.length * 3 + bodyLen);
    out.set(prefix);
    const { written } = this.#encoder.encodeInto(head, prefix.length === 0 ? out : out.subarray(prefix.length));
    const headLen = prefix.length + written;
    if (body !== undefined) out.set(body, headLen);
    return out.subarray(0, headLen + bodyLen);
  }

  /** The request line, and the client's Host line unless a header sets Host. */
  #requestLine(req: HttpRequest, hostSet: boolean): string {
    const line = `${req.method} ${req.path} HTTP/1.1\r\n`;
    return hostSet ? line : line + this.#hostLine;
  }

  /** The encoded request line, Host line (unless a header sets Host) and common fields of `req`, cached. */
  #commonHead(req: HttpRequest, ownHost: boolean): CommonHead {
    const headers = req.commonHeaders!;
    const cached = this.#commonCache.get(headers);
    if (
      cached !== undefined && cached.method === req.method && cached.path === req.path && cached.ownHost === ownHost
    ) {
      return cached;
    }
    const fields = cached?.fields ?? serializeFields(headers);
    const text = this.#requestLine(req, fields.hasHost || ownHost) + fields.text;
    const made: CommonHead = { method: req.method, path: req.path, ownHost, fields, bytes: this.#encoder.encode(text) };
    this.#commonCache.set(headers, made);
    return made;
  }
}

/** A request line, Host line and common header fields, encoded; cached per `commonHeaders` array. */
interface CommonHead {
  readonly method: string;
  readonly path: string;
  /** Whether the request's own headers set Host (then the client writes none). */
  readonly ownHost: boolean;
  readonly fields: SerializedFields;
  readonly bytes: Uint8Array;
}

interface SerializedFields {
  /** `Name: value\r\n` per field. */
  readonly text: string;
  readonly hasHost: boolean;
  readonly hasLength: boolean;
  readonly hasConnection: boolean;
}

/** Checks header fields (no injection) and serializes them, noting the ones the client would otherwise add. */
function serializeFields(headers: ReadonlyArray<readonly [string, string]>): SerializedFields {
  let hasHost = false;
  let hasLength = false;
  let hasConnection = false;
  let text = "";
  for (const [name, value] of headers) {
    if (HEADER_INJECTION.test(name) || HEADER_INJECTION.test(value) || name === "" || name.includes(":")) {
      throw new TypeError(
        `Request header ${JSON.stringify(name)} has an invalid name or a line break in its value; fix the header.`,
      );
    }
    // Compare case-insensitively only names of the right length, to keep this loop cheap.
    if (name.length === 4 && name.toLowerCase() === "host") hasHost = true;
    else if (name.length === 14 && name.toLowerCase() === "content-length") hasLength = true;
    else if (name.length === 10 && name.toLowerCase() === "connection") hasConnection = true;
    text += `${name}: ${value}\r\n`;
  }
  return { text, hasHost, hasLength, hasConnection };
}

function isEventStream(contentType: string): boolean {
  const semi = contentType.indexOf(";");
  const mime = (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return mime === "text/event-stream";
}

/** `host:port`, with brackets around an IPv6 address. */
function hostPort(hostname: string, port: number): string {
  return hostname.includes(":") ? `[${hostname}]:${port}` : `${hostname}:${port}`;
}

function closedError(): TransportError {
  return { kind: "cancelled", message: "Request was not sent because the HTTP client was closed." };
}

function abortDetail(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === "string" && reason !== "") return ` (${reason})`;
  if (reason instanceof Error && reason.name !== "AbortError") return ` (${reason.message})`;
  return "";
}

function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
