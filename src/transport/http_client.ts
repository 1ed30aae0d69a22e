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
 *
 * The pieces: `RequestEncoder` (request bytes), `Connector` (TCP/TLS within a time limit), `ConnectionPool`
 * (idle list, waiters, connect queue), `Connection` (one socket's write and read loop); this class composes
 * them and owns what spans them: deadlines, cancellation, and the stale-connection retry.
 */
import type { HttpExchange, HttpRequest, SendOptions, Target } from "./http_exchange.ts";
import { type Deadline, DeadlineQueue } from "../timing/deadline_queue.ts";
import { TurnStamp } from "../timing/turn_stamp.ts";
import { RequestEncoder } from "./request_encoder.ts";
import { Connector } from "./connector.ts";
import { ConnectionPool } from "./connection_pool.ts";
import { DEFAULT_MAX_RESPONSE_BYTES, type Progress } from "./connection.ts";
import { errorText, hostPort, newExchangeState, SendControl, type Stage } from "./send_control.ts";
import { IndexedSet } from "./indexed_set.ts";

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
  /**
   * Most body bytes one response may have, as received and, for a compressed body, as decoded. A larger one (an
   * endless chunked body, a decompression bomb, a Content-Length above it) ends as a `too_large` error and its
   * connection is closed, so one answer cannot exhaust memory.
   * @default {256 MiB}
   */
  readonly maxResponseBytes?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_READ_BUFFER_BYTES = 64 * 1024;

/** What a client's requests are doing now, for the stall notice (stall_detector.ts). */
export interface TransportActivity {
  /** `host:port` of the target. */
  readonly target: string;
  /**
   * `performance.now()` of the latest data received on any of its connections (0: none yet): a response head, body
   * bytes of a plain response, an SSE event with data. SSE comments (keep-alives) are not progress.
   */
  readonly lastDataAt: number;
  /** Requests in flight per stage; stages with none are absent. */
  readonly stages: Readonly<Partial<Record<Stage, number>>>;
  readonly inFlight: number;
}

/** HTTP/1.1 client for one {@linkcode Target}. `send()` never rejects: failures come back as `exchange.error`. */
export class HttpClient {
  readonly #remote: string;
  readonly #encoder: RequestEncoder;
  readonly #pool: ConnectionPool;
  /** Every send's deadline and every connect's time limit, on one timer. */
  readonly #deadlines = new DeadlineQueue();
  /** Signals this client listens to: each interrupts the sends in flight that carry it. */
  readonly #watched = new WeakSet<AbortSignal>();
  readonly #turn = new TurnStamp();
  readonly #progress: Progress = { at: 0 };
  /** Sends in flight, for `activity()`. */
  readonly #inFlight = new IndexedSet<SendControl>();

  constructor(target: Target, options: HttpClientOptions = {}) {
    this.#remote = hostPort(target.hostname, target.port);
    const max = options.maxConnections ?? Infinity;
    if (!(max >= 1)) {
      throw new RangeError(`HttpClient maxConnections ${max} is below 1; pass at least 1 (or omit it for no limit).`);
    }
    const reuse = options.reuse ?? "pooled";
    const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    if (!(connectTimeoutMs > 0)) {
      throw new RangeError(
        `HttpClient connectTimeoutMs ${connectTimeoutMs} is not positive; pass milliseconds above 0.`,
      );
    }
    const readBufferBytes = options.readBufferBytes ?? DEFAULT_READ_BUFFER_BYTES;
    if (!(readBufferBytes >= 1024)) {
      throw new RangeError(
        `HttpClient readBufferBytes ${readBufferBytes} is below 1024; pass a larger buffer size.`,
      );
    }
    const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    if (!(maxResponseBytes >= 1)) {
      throw new RangeError(`HttpClient maxResponseBytes ${maxResponseBytes} is below 1; pass a byte count.`);
    }
    this.#encoder = new RequestEncoder(target.hostHeader, reuse === "never");
    const connector = new Connector(
      target,
      {
        connectTimeoutMs,
        caCerts: options.caCerts === undefined ? undefined : [...options.caCerts],
        skipHostnameVerification: options.skipHostnameVerification ?? false,
        readBufferBytes,
        // A connection used once gains nothing from it (its set is new), and would pay for a second buffer.
        pipelinedReads: (options.pipelinedReads ?? true) && reuse === "pooled",
        directSocketOps: options.directSocketOps ?? true,
        maxResponseBytes,
      },
      this.#deadlines,
      this.#turn,
      this.#progress,
    );
    this.#pool = new ConnectionPool(connector, {
      maxConnections: max,
      pooled: reuse === "pooled",
      maxConcurrentConnects: Math.max(1, options.maxConcurrentConnects ?? 256),
    });
  }

  /** Opens `count` connections ahead of the first requests (kept-alive clients only); see ConnectionPool.prewarm. */
  prewarm(count: number): Promise<{ opened: number; error?: string }> {
    return this.#pool.prewarm(count, this.#remote);
  }

  /** Kept-alive connections waiting in the pool. */
  get idleConnections(): number {
    return this.#pool.idleConnections;
  }

  /** Connections counted against `maxConnections`: connecting, in use, or idle. */
  get openConnections(): number {
    return this.#pool.openConnections;
  }

  /** Idle connections dropped because the server closed them, or sent something unasked, while they idled. */
  get evictedIdleConnections(): number {
    return this.#pool.evictedIdle;
  }

  /** Requests in flight by stage, and when a read last completed: what a stall notice reports. */
  activity(): TransportActivity {
    const stages: Partial<Record<Stage, number>> = {};
    for (const ctl of this.#inFlight.members()) stages[ctl.stage] = (stages[ctl.stage] ?? 0) + 1;
    return { target: this.#remote, lastDataAt: this.#progress.at, stages, inFlight: this.#inFlight.size };
  }

  /**
   * Sends one request and reads its response. Never rejects: network, protocol, timeout and cancellation
   * failures are returned in `exchange.error`, with whatever timings were observed before them.
   */
  async send(req: HttpRequest, opts: SendOptions = {}): Promise<HttpExchange> {
    const startedAt = opts.startedAt ?? performance.now();
    const ex = newExchangeState();
    let bytes: Uint8Array;
    try {
      bytes = this.#encoder.encode(req);
    } catch (e) {
      ex.error = { kind: "protocol", message: errorText(e) };
      return ex;
    }
    const ctl = new SendControl(this.#remote, startedAt);
    const cancelAfter = opts.cancelAfterSentMs;
    if (cancelAfter !== undefined) {
      ctl.onSent = (at) => {
        ctl.cancelTimer ??= this.#deadlines.add(
          at + cancelAfter,
          () => ctl.interrupt("cancelled", " as planned (--request-cancellation-rate)"),
        );
      };
    }
    const signal = opts.signal;
    if (signal?.aborted) {
      ctl.interrupt("cancelled", abortDetail(signal));
      ex.error = ctl.error();
      this.#encoder.release(bytes);
      return ex;
    }
    let deadline: Deadline | undefined;
    if (opts.deadline !== undefined) {
      if (opts.deadline <= startedAt) {
        ctl.interrupt("timeout", "");
        ex.error = ctl.error();
        this.#encoder.release(bytes);
        return ex;
      }
      deadline = this.#deadlines.add(opts.deadline, () => ctl.interrupt("timeout", ""));
    }
    if (signal !== undefined) {
      ctl.signal = signal;
      this.#watchAbort(signal);
    }
    const pool = this.#pool;
    this.#inFlight.add(ctl);
    try {
      let fresh = false;
      for (;;) {
        const conn = (fresh ? undefined : pool.takeIdle(ex, ctl)) ?? await pool.acquire(ex, ctl, fresh);
        if (conn === undefined) break;
        if (ctl.reason !== undefined) {
          // Interrupted between getting the connection and using it: the connection itself is still clean.
          ex.error = ctl.error();
          pool.release(conn, true);
          break;
        }
        pool.use(conn, ctl);
        // A reused connection whose request certainly did not reach the server is resent once (ExchangeEnd).
        const end = await conn.exchange(bytes, opts.onSseEvent, ex, ctl, !fresh);
        if (end === "reuse") {
          pool.done(conn, true);
          break;
        }
        if (end !== "retry") {
          pool.discard(conn);
          break;
        }
        pool.discard(conn, true);
        ex.retries = (ex.retries ?? 0) + 1;
        fresh = true;
        ex.reused = false;
        ex.requestSent = undefined;
        ex.requestWriteStart = undefined;
        ex.writes = undefined;
        ex.bodyReads = undefined;
        ex.firstBodyAt = undefined;
        ex.lastBodyAt = undefined;
        ex.bodyBytesReceived = undefined;
        ex.firstByteAt = undefined;
        ex.bytesSent = 0;
        ex.bytesReceived = 0;
        ex.lastByteAt = undefined;
      }
    } finally {
      if (deadline !== undefined) this.#deadlines.cancel(deadline);
      if (ctl.cancelTimer !== undefined) this.#deadlines.cancel(ctl.cancelTimer);
      this.#inFlight.delete(ctl);
      // Every write of these bytes has completed (an exchange awaits its writes, failed ones included).
      this.#encoder.release(bytes);
    }
    if (ex.requestSent !== undefined) ex.bodyBytesSent = req.body?.length ?? 0;
    return ex;
  }

  /**
   * Interrupts the sends in flight under `signal` when it aborts. One listener per signal and client rather than one
   * per send: adding and removing an `abort` listener on every request was ~3 % of the engine thread's busy time (the
   * engine passes one signal to all the requests of a phase).
   */
  #watchAbort(signal: AbortSignal): void {
    if (this.#watched.has(signal)) return;
    this.#watched.add(signal);
    signal.addEventListener("abort", () => {
      const detail = abortDetail(signal);
      for (const ctl of this.#inFlight.members()) if (ctl.signal === signal) ctl.interrupt("cancelled", detail);
    }, { once: true });
  }

  /**
   * Closes every socket: idle ones at once, busy ones by cancelling their exchanges (`cancelled`). Queued and
   * later sends fail with `cancelled`.
   */
  close(): void {
    this.#pool.close();
  }
}

function abortDetail(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === "string" && reason !== "") return ` (${reason})`;
  if (reason instanceof Error && reason.name !== "AbortError") return ` (${reason.message})`;
  return "";
}
