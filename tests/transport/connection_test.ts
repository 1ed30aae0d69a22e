import { deepStrictEqual, match, ok } from "node:assert/strict";
import { Connection } from "../../src/transport/connection.ts";
import { type ExchangeState, SendControl } from "../../src/transport/send_control.ts";
import { socketOps } from "../../src/runtime/socket_ops.ts";
import { TurnStamp } from "../../src/timing/turn_stamp.ts";
import { DeadlineQueue } from "../../src/timing/deadline_queue.ts";
import { chunk, lengthResponse, type RawConnection, SSE_HEAD, startRawServer } from "./raw_server.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const REQUEST = enc.encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
const exchange = (reused = false): ExchangeState => ({ reused, streamed: false, bytesSent: 0, bytesReceived: 0 });

async function open(port: number, pipelined: boolean, direct: boolean): Promise<Connection> {
  const socket = await Deno.connect({ hostname: "127.0.0.1", port });
  return new Connection(
    socket,
    socketOps(socket, direct),
    `127.0.0.1:${port}`,
    4096,
    pipelined,
    new TurnStamp(),
    new DeadlineQueue(),
  );
}

for (const [pipelined, direct] of [[false, true], [true, false], [false, false]]) {
  Deno.test(`Connection reads a body, then SSE, on one kept-alive socket (pipelined ${pipelined}, direct ${direct})`, async () => {
    const server = startRawServer(async (conn: RawConnection) => {
      await conn.readRequest();
      await conn.write(lengthResponse(200, "hello"));
      await conn.readRequest();
      await conn.write(SSE_HEAD + chunk("data: a\n\n") + chunk("data: b\n\n") + "0\r\n\r\n");
      await conn.waitForClose();
    });
    const c = await open(server.port, pipelined, direct);
    try {
      const ex = exchange();
      deepStrictEqual(await c.exchange(REQUEST, undefined, ex, new SendControl("x", 0), false), "reuse");
      deepStrictEqual([ex.status, dec.decode(ex.body), ex.bytesSent], [200, "hello", REQUEST.length]);
      ok(ex.requestSent! <= ex.firstByteAt! && ex.firstByteAt! <= ex.lastByteAt!);
      c.finish();
      const events: string[] = [];
      const ex2 = exchange(true);
      deepStrictEqual(
        await c.exchange(
          REQUEST,
          (d) => {
            events.push(d);
          },
          ex2,
          new SendControl("x", 0),
          true,
        ),
        "reuse",
      );
      deepStrictEqual([ex2.streamed, ex2.body, events], [true, undefined, ["a", "b"]]);
    } finally {
      c.closeSocket();
      await server.close();
    }
  });
}

Deno.test("Connection: close-delimited bodies end with 'close', bytes beyond the response too", async () => {
  const server = startRawServer(async (conn: RawConnection, i) => {
    await conn.readRequest();
    if (i === 0) await conn.write("HTTP/1.1 200 OK\r\n\r\nuntil close");
    else await conn.write(lengthResponse(200, "ok") + "HTTP/1.1 200 OK\r\n");
    conn.close();
  });
  try {
    const a = await open(server.port, false, true);
    const ex = exchange();
    deepStrictEqual(await a.exchange(REQUEST, undefined, ex, new SendControl("x", 0), false), "close");
    deepStrictEqual(dec.decode(ex.body), "until close");
    a.closeSocket();
    const b = await open(server.port, false, true);
    const ex2 = exchange();
    deepStrictEqual(await b.exchange(REQUEST, undefined, ex2, new SendControl("x", 0), false), "close");
    deepStrictEqual(dec.decode(ex2.body), "ok");
    b.closeSocket();
  } finally {
    await server.close();
  }
});

Deno.test("Connection: a request the server read is never resent, a 408 on a reused socket is; a reset names where", async () => {
  const server = startRawServer(async (conn: RawConnection, i) => {
    await conn.readRequest();
    if (i === 1) await conn.write(SSE_HEAD + chunk("data: a\n\n"));
    if (i === 2) await conn.write(lengthResponse(408, "idle timeout"));
    conn.close();
  });
  try {
    const a = await open(server.port, false, true);
    const first = exchange(true);
    deepStrictEqual(await a.exchange(REQUEST, undefined, first, new SendControl("x", 0), true), "close");
    deepStrictEqual(first.error?.kind, "reset");
    match(first.error.message, /the server closed the connection before any response byte/);
    a.closeSocket();
    const b = await open(server.port, false, true);
    const ex = exchange(true);
    deepStrictEqual(await b.exchange(REQUEST, () => {}, ex, new SendControl("x", 0), true), "close");
    deepStrictEqual(ex.error?.kind, "reset");
    match(ex.error.message, /cut short: the server closed the connection mid-body after \d+ body bytes/);
    b.closeSocket();
    const c = await open(server.port, false, true);
    deepStrictEqual(await c.exchange(REQUEST, undefined, exchange(true), new SendControl("x", 0), true), "retry");
    c.closeSocket();
  } finally {
    await server.close();
  }
});

Deno.test("Connection: an invalid response is a protocol error and an interrupt ends the read loop", async () => {
  const server = startRawServer(async (conn: RawConnection, i) => {
    await conn.readRequest();
    if (i === 0) await conn.write("HTTP/9 nonsense\r\n\r\n");
    await conn.waitForClose();
  });
  try {
    const a = await open(server.port, false, true);
    const ex = exchange();
    deepStrictEqual(await a.exchange(REQUEST, undefined, ex, new SendControl("x", 0), false), "close");
    deepStrictEqual(ex.error?.kind, "protocol");
    a.closeSocket();
    const b = await open(server.port, false, true);
    const ctl = new SendControl("x", performance.now());
    ctl.conn = b;
    const ex2 = exchange();
    const p = b.exchange(REQUEST, undefined, ex2, ctl, false);
    setTimeout(() => ctl.interrupt("timeout", ""), 20);
    deepStrictEqual(await p, "close");
    deepStrictEqual(ex2.error?.kind, "timeout");
    match(ex2.error.message, /while waiting for the response/);
  } finally {
    await server.close();
  }
});
