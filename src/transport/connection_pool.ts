/**
 * The connections of one target: a LIFO idle list, the sends waiting for a free connection (FIFO), the count of
 * sockets open against `maxConnections`, and the queue that keeps at most `maxConcurrentConnects` connection
 * attempts in flight.
 */
import type { Connection } from "./connection.ts";
import { closedError, type ExchangeState, newExchangeState, SendControl } from "./send_control.ts";
import { IndexedSet } from "./indexed_set.ts";

export interface ConnectionPoolOptions {
  /** Most sockets open at once (connecting, busy or idle). */
  readonly maxConnections: number;
  /** Whether connections are kept alive and reused at all. */
  readonly pooled: boolean;
  /** Connection attempts in flight at once; more wait their turn. */
  readonly maxConcurrentConnects: number;
}

/** Where new connections come from (`Connector`; tests pass fakes). */
export interface ConnectionSource {
  connect(ex: ExchangeState, ctl: SendControl, isClosed: () => boolean): Promise<Connection | undefined>;
}

interface Waiter {
  done: boolean;
  /** A kept-alive connection, `"slot"` (permission to open one), or undefined (interrupted / client closed). */
  readonly resolve: (got: Connection | "slot" | undefined) => void;
}

export class ConnectionPool {
  readonly #connector: ConnectionSource;
  readonly #maxConnections: number;
  readonly #pooled: boolean;
  readonly #maxConcurrentConnects: number;
  #connecting = 0;
  #connectQueue: (() => void)[] = [];
  /** LIFO: the most recently used connection is the least likely to have been closed by the server. */
  readonly #idle: Connection[] = [];
  readonly #busy = new IndexedSet<Connection>();
  /** Connections counted against maxConnections: connecting, busy and idle. */
  #open = 0;
  #waiters: Waiter[] = [];
  #waitersHead = 0;
  #closed = false;
  #idleEpoch = 0;
  #evicted = 0;
  readonly #isClosed = (): boolean => this.#closed;

  constructor(connector: ConnectionSource, options: ConnectionPoolOptions) {
    this.#connector = connector;
    this.#maxConnections = options.maxConnections;
    this.#pooled = options.pooled;
    this.#maxConcurrentConnects = options.maxConcurrentConnects;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Kept-alive connections waiting in the pool. */
  get idleConnections(): number {
    return this.#idle.length;
  }

  /** Idle connections dropped because the server closed them or sent something while they idled. */
  get evictedIdle(): number {
    return this.#evicted;
  }

  /** Connections counted against `maxConnections`: connecting, in use, or idle. */
  get openConnections(): number {
    return this.#open;
  }

  /**
   * An idle connection, taken at once, where `acquire` would take one without waiting (not interrupted, pool open,
   * pooled, one idle); else undefined, and `acquire` decides. Spares the usual request an async call.
   */
  takeIdle(ex: ExchangeState, ctl: SendControl): Connection | undefined {
    if (ctl.reason !== undefined || this.#closed || !this.#pooled) return undefined;
    const idle = this.#idle.pop();
    if (idle === undefined) return undefined;
    idle.idleSince = 0;
    ex.reused = true;
    return idle;
  }

  /**
   * A connection for this exchange, or undefined with `ex.error` set. `fresh`: a retry that keeps the slot of
   * the connection it replaces, so it never queues behind other sends and always connects anew.
   */
  async acquire(ex: ExchangeState, ctl: SendControl, fresh: boolean): Promise<Connection | undefined> {
    if (ctl.reason !== undefined) {
      ex.error = ctl.error();
      return undefined;
    }
    if (this.#closed) {
      ex.error = closedError();
      return undefined;
    }
    if (!fresh) {
      const idle = this.takeIdle(ex, ctl);
      if (idle !== undefined) return idle;
      if (this.#open < this.#maxConnections) {
        this.#open++;
      } else {
        ctl.stage = "waiting for a free connection";
        ex.poolWaitStart = performance.now();
        const got = await this.#waitForConnection(ctl);
        ex.poolWaitEnd = performance.now();
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

  /**
   * Opens up to `count` connections now, before any request needs them, and keeps them idle (pooled connections
   * only; each still watched for a server close). Resolves with how many opened and the first failure, if any.
   */
  async prewarm(count: number, remote: string): Promise<{ opened: number; error?: string }> {
    if (!this.#pooled || this.#closed) return { opened: 0 };
    const want = Math.max(0, Math.min(count, this.#maxConnections - this.#open));
    let opened = 0;
    let error: string | undefined;
    await Promise.all(Array.from({ length: want }, async () => {
      this.#open++;
      const ex = newExchangeState();
      const c = await this.#connect(ex, new SendControl(remote, performance.now()));
      if (c === undefined) {
        this.#freeSlot();
        error ??= ex.error?.message;
        return;
      }
      opened++;
      this.release(c, true);
    }));
    return { opened, ...(error === undefined ? {} : { error }) };
  }

  /** Marks `c` as carrying an exchange, so `close()` can interrupt it. */
  use(c: Connection, ctl: SendControl): void {
    ctl.conn = c;
    this.#busy.add(c);
  }

  /** Returns `c` to the pool (or to a waiter) when reusable, else closes it and frees its slot. */
  release(c: Connection, reusable: boolean): void {
    this.#busy.delete(c);
    if (c.ctl !== undefined) c.ctl.conn = undefined;
    c.finish();
    if (reusable && !c.closed && !this.#closed) {
      const w = this.#nextWaiter();
      if (w !== undefined) w.resolve(c);
      else {
        this.#idle.push(c);
        this.#watchIdle(c);
      }
      return;
    }
    c.closeSocket();
    this.#freeSlot();
  }

  /** A finished exchange's connection back, reusable only where connections are pooled. */
  done(c: Connection, reusable: boolean): void {
    this.release(c, reusable && this.#pooled);
  }

  /** Closes `c`; `keepSlot` when the caller opens its replacement at once (the stale-connection retry). */
  discard(c: Connection, keepSlot = false): void {
    this.#busy.delete(c);
    if (c.ctl !== undefined) c.ctl.conn = undefined;
    c.finish();
    c.closeSocket();
    if (!keepSlot) this.#freeSlot();
  }

  /**
   * Closes every socket: idle ones at once, busy ones by cancelling their exchanges (`cancelled`). Queued and
   * later acquisitions fail with `cancelled`.
   */
  close(): void {
    this.#closed = true;
    for (const c of this.#idle) c.closeSocket();
    this.#open -= this.#idle.length;
    this.#idle.length = 0;
    for (const c of this.#busy.members()) c.ctl?.interrupt("cancelled", " because the HTTP client was closed");
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

  /**
   * Drops `c` from the idle list as soon as its pending read completes while it idles: end of stream, a reset,
   * or bytes nobody asked for (an unsolicited `408 Request Timeout` before the server closes). Handing it to a
   * request would charge that request with an answer to nothing, or fail a request the server never received.
   */
  #watchIdle(c: Connection): void {
    c.idleSince = ++this.#idleEpoch;
    // One handler per connection, made at its first idle period, rather than a closure per period. A watched read
    // completes within the idle period that watched it or once the connection is in use again (idleSince 0): a
    // request awaits its connection's reads to their end before the connection can idle again, and a connection
    // given back unused idles on the same read.
    const ended = c.idleEnded ??= () => {
      if (c.idleSince === 0) return;
      c.idleSince = 0;
      const i = this.#idle.lastIndexOf(c);
      if (i < 0) return;
      this.#idle.splice(i, 1);
      this.#evicted++;
      c.closeSocket();
      this.#freeSlot();
    };
    c.idleRead().then(ended, ended);
  }

  /** Opens a connection once fewer than `maxConcurrentConnects` attempts are in flight. */
  async #connect(ex: ExchangeState, ctl: SendControl): Promise<Connection | undefined> {
    ctl.stage = "connecting";
    ex.connectStart = performance.now();
    if (this.#connecting >= this.#maxConcurrentConnects) {
      await new Promise<void>((resolve) => this.#connectQueue.push(resolve));
    }
    this.#connecting++;
    try {
      return await this.#connector.connect(ex, ctl, this.#isClosed);
    } finally {
      this.#connecting--;
      this.#connectQueue.shift()?.();
    }
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
}
