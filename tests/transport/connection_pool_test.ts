import { deepStrictEqual, ok } from "node:assert/strict";
import { ConnectionPool, type ConnectionSource } from "../../src/transport/connection_pool.ts";
import type { Connection } from "../../src/transport/connection.ts";
import { type ExchangeState, SendControl } from "../../src/transport/send_control.ts";

/** Stands in for a socket: the pool only reads `closed`/`ctl` and calls `finish`/`closeSocket`. */
class FakeConn {
  closed = false;
  ctl: SendControl | undefined = undefined;
  idleSince = 0;
  readonly #read = Promise.withResolvers<number | null>();
  constructor(readonly id: number) {}
  idleRead(): Promise<number | null> {
    return this.#read.promise;
  }
  /** The server closes its side: the read posted while idle completes. */
  serverCloses(): void {
    this.#read.resolve(null);
  }
  finish(): void {
    this.ctl = undefined;
  }
  closeSocket(): void {
    this.closed = true;
  }
}

/** Connects on demand; each attempt waits until the test resolves it (or fails it). */
class FakeSource implements ConnectionSource {
  made = 0;
  inFlight = 0;
  maxInFlight = 0;
  readonly pending: ((ok: boolean) => void)[] = [];
  connect(ex: ExchangeState, _ctl: SendControl): Promise<Connection | undefined> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    return new Promise((resolve) => {
      this.pending.push((ok) => {
        this.inFlight--;
        if (!ok) {
          ex.error = { kind: "connect", message: "refused" };
          resolve(undefined);
        } else resolve(new FakeConn(++this.made) as unknown as Connection);
      });
    });
  }
  settle(ok = true): void {
    this.pending.shift()!(ok);
  }
}

const exchange = (): ExchangeState => ({ reused: false, streamed: false, bytesSent: 0, bytesReceived: 0 });
const control = () => new SendControl("127.0.0.1:1", performance.now());
const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("ConnectionPool reuses idle connections last-in first-out and counts open sockets", async () => {
  const src = new FakeSource();
  const pool = new ConnectionPool(src, { maxConnections: 10, pooled: true, maxConcurrentConnects: 8 });
  const a = pool.acquire(exchange(), control(), false);
  const b = pool.acquire(exchange(), control(), false);
  await tick();
  src.settle();
  src.settle();
  const [ca, cb] = [await a, await b];
  deepStrictEqual(pool.openConnections, 2);
  pool.done(ca!, true);
  pool.done(cb!, true);
  deepStrictEqual(pool.idleConnections, 2);
  const ex = exchange();
  const again = await pool.acquire(ex, control(), false);
  ok(again === cb, "the most recently released connection comes first");
  deepStrictEqual(ex.reused, true);
  pool.discard(again!);
  ok((cb as unknown as FakeConn).closed);
  deepStrictEqual([pool.openConnections, pool.idleConnections], [1, 1]);
});

Deno.test("ConnectionPool with pooling off never keeps a connection", async () => {
  const src = new FakeSource();
  const pool = new ConnectionPool(src, { maxConnections: 10, pooled: false, maxConcurrentConnects: 8 });
  const p = pool.acquire(exchange(), control(), false);
  await tick();
  src.settle();
  const c = await p;
  pool.done(c!, true);
  ok((c as unknown as FakeConn).closed);
  deepStrictEqual([pool.openConnections, pool.idleConnections], [0, 0]);
});

Deno.test("ConnectionPool queues beyond maxConnections in FIFO order and hands over released connections", async () => {
  const src = new FakeSource();
  const pool = new ConnectionPool(src, { maxConnections: 1, pooled: true, maxConcurrentConnects: 8 });
  const first = pool.acquire(exchange(), control(), false);
  await tick();
  src.settle();
  const c = (await first)!;
  const order: number[] = [];
  const exs = [exchange(), exchange()];
  const w1 = pool.acquire(exs[0], control(), false).then((got) => (order.push(1), got));
  const w2 = pool.acquire(exs[1], control(), false).then((got) => (order.push(2), got));
  await tick();
  pool.done(c, true);
  const g1 = (await w1)!;
  ok(g1 === c);
  deepStrictEqual(exs[0].reused, true);
  // Not reusable: the slot goes to the next waiter, which connects anew.
  pool.done(g1, false);
  await tick();
  deepStrictEqual(src.pending.length, 1);
  src.settle();
  const g2 = (await w2)!;
  ok(g2 !== c);
  deepStrictEqual(order, [1, 2]);
  deepStrictEqual(pool.openConnections, 1);
});

Deno.test("ConnectionPool keeps at most maxConcurrentConnects attempts in flight", async () => {
  const src = new FakeSource();
  const pool = new ConnectionPool(src, { maxConnections: Infinity, pooled: true, maxConcurrentConnects: 3 });
  const all = Array.from({ length: 10 }, () => pool.acquire(exchange(), control(), false));
  await tick();
  deepStrictEqual(src.inFlight, 3);
  while (src.pending.length > 0) {
    src.settle();
    await tick();
  }
  const got = await Promise.all(all);
  ok(got.every((c) => c !== undefined));
  deepStrictEqual([src.maxInFlight, pool.openConnections], [3, 10]);
});

Deno.test("ConnectionPool frees the slot of a failed connect and reports the error", async () => {
  const src = new FakeSource();
  const pool = new ConnectionPool(src, { maxConnections: 1, pooled: true, maxConcurrentConnects: 1 });
  const ex = exchange();
  const p = pool.acquire(ex, control(), false);
  await tick();
  src.settle(false);
  deepStrictEqual(await p, undefined);
  deepStrictEqual(ex.error?.kind, "connect");
  deepStrictEqual(pool.openConnections, 0);
});

Deno.test("ConnectionPool: an interrupted waiter leaves the queue, close() fails the rest and closes idle sockets", async () => {
  const src = new FakeSource();
  const pool = new ConnectionPool(src, { maxConnections: 1, pooled: true, maxConcurrentConnects: 1 });
  const first = pool.acquire(exchange(), control(), false);
  await tick();
  src.settle();
  const c = (await first)!;
  const ctl = control();
  const exA = exchange();
  const a = pool.acquire(exA, ctl, false);
  const exB = exchange();
  const b = pool.acquire(exB, control(), false);
  await tick();
  ctl.interrupt("timeout", "");
  deepStrictEqual(await a, undefined);
  deepStrictEqual(exA.error?.kind, "timeout");
  pool.close();
  deepStrictEqual(await b, undefined);
  deepStrictEqual(exB.error?.kind, "cancelled");
  pool.done(c, true);
  ok((c as unknown as FakeConn).closed, "a connection released after close() is closed");
  const exC = exchange();
  deepStrictEqual(await pool.acquire(exC, control(), false), undefined);
  deepStrictEqual(exC.error?.kind, "cancelled");
});

Deno.test("ConnectionPool: a fresh acquire (retry) keeps its slot and always connects", async () => {
  const src = new FakeSource();
  const pool = new ConnectionPool(src, { maxConnections: 1, pooled: true, maxConcurrentConnects: 1 });
  const first = pool.acquire(exchange(), control(), false);
  await tick();
  src.settle();
  const c = (await first)!;
  pool.discard(c, true);
  deepStrictEqual(pool.openConnections, 1);
  const retry = pool.acquire(exchange(), control(), true);
  await tick();
  src.settle();
  ok((await retry) !== undefined);
  deepStrictEqual(pool.openConnections, 1);
});

Deno.test("ConnectionPool drops an idle connection whose read completes while it idles (close or stray bytes)", async () => {
  const src = new FakeSource();
  const pool = new ConnectionPool(src, { maxConnections: 2, pooled: true, maxConcurrentConnects: 2 });
  const a = pool.acquire(exchange(), control(), false);
  const b = pool.acquire(exchange(), control(), false);
  await tick();
  src.settle();
  src.settle();
  const [ca, cb] = [(await a)!, (await b)!];
  pool.done(ca, true);
  pool.done(cb, true);
  (ca as unknown as FakeConn).serverCloses();
  await tick();
  deepStrictEqual([pool.idleConnections, pool.openConnections, pool.evictedIdle], [1, 1, 1]);
  ok((ca as unknown as FakeConn).closed);
  // A read completing while the connection is in use is the exchange's business, not the pool's.
  const ex = exchange();
  const again = await pool.acquire(ex, control(), false);
  ok(again === cb && ex.reused);
  (cb as unknown as FakeConn).serverCloses();
  await tick();
  deepStrictEqual([pool.openConnections, pool.evictedIdle], [1, 1]);
  ok(!(cb as unknown as FakeConn).closed);
});

Deno.test("ConnectionPool prewarm opens connections ahead, within the limit, and requests then reuse them", async () => {
  const src = new FakeSource();
  const pool = new ConnectionPool(src, { maxConnections: 3, pooled: true, maxConcurrentConnects: 8 });
  const warming = pool.prewarm(5, "127.0.0.1:1");
  await tick();
  deepStrictEqual(src.pending.length, 3, "no more than maxConnections");
  src.settle();
  src.settle();
  src.settle(false);
  deepStrictEqual(await warming, { opened: 2, error: "refused" });
  deepStrictEqual([pool.openConnections, pool.idleConnections], [2, 2]);
  const ex = exchange();
  const c = await pool.acquire(ex, control(), false);
  ok(c !== undefined);
  deepStrictEqual([ex.reused, src.made], [true, 2]);
  const unpooled = new ConnectionPool(new FakeSource(), { maxConnections: 3, pooled: false, maxConcurrentConnects: 8 });
  deepStrictEqual(await unpooled.prewarm(2, "127.0.0.1:1"), { opened: 0 });
});
