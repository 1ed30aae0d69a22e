import { deepStrictEqual, match, ok } from "node:assert/strict";
import { Connector, type ConnectorOptions } from "../../src/transport/connector.ts";
import { parseTarget } from "../../src/transport/parse_target.ts";
import { type ExchangeState, SendControl } from "../../src/transport/send_control.ts";
import { DeadlineQueue } from "../../src/timing/deadline_queue.ts";
import { TurnStamp } from "../../src/timing/turn_stamp.ts";
import { startRawServer } from "./raw_server.ts";

const OPTIONS: ConnectorOptions = {
  connectTimeoutMs: 5000,
  caCerts: undefined,
  skipHostnameVerification: false,
  readBufferBytes: 4096,
  pipelinedReads: true,
  directSocketOps: true,
  maxResponseBytes: 64 * 1024 * 1024,
};
const exchange = (): ExchangeState => ({ reused: false, streamed: false, bytesSent: 0, bytesReceived: 0 });
const notClosed = () => false;

Deno.test("Connector opens TCP connections, stamps connectEnd, and names the target in each", async () => {
  const server = startRawServer(async (conn) => await conn.waitForClose());
  const target = parseTarget(`http://127.0.0.1:${server.port}`);
  const connector = new Connector(target, OPTIONS, new DeadlineQueue(), new TurnStamp());
  try {
    const conns = [];
    for (let i = 0; i < 3; i++) {
      const ex = exchange();
      ex.connectStart = performance.now();
      const c = await connector.connect(ex, new SendControl("x", 0), notClosed);
      ok(c !== undefined, ex.error?.message);
      ok(ex.connectEnd! >= ex.connectStart);
      deepStrictEqual(c.remote, `127.0.0.1:${server.port}`);
      conns.push(c);
    }
    while (server.accepted < 3) await new Promise((r) => setTimeout(r, 5));
    for (const c of conns) c.closeSocket();
  } finally {
    await server.close();
  }
});

Deno.test("Connector reports a refused connection and a TLS handshake past its time limit as connect errors", async () => {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const deadlines = new DeadlineQueue();
  const refused = new Connector(parseTarget(`http://127.0.0.1:${port}`), OPTIONS, deadlines, new TurnStamp());
  const ex = exchange();
  deepStrictEqual(await refused.connect(ex, new SendControl("x", 0), notClosed), undefined);
  deepStrictEqual(ex.error?.kind, "connect");
  match(ex.error.message, /TCP connect to 127\.0\.0\.1:\d+ failed .*check that the server is running/);

  const silent = startRawServer(async (conn) => await conn.waitForClose());
  try {
    const tls = new Connector(
      parseTarget(`https://127.0.0.1:${silent.port}`),
      { ...OPTIONS, connectTimeoutMs: 80 },
      deadlines,
      new TurnStamp(),
    );
    const ex2 = exchange();
    deepStrictEqual(await tls.connect(ex2, new SendControl("x", 0), notClosed), undefined);
    deepStrictEqual(ex2.error?.kind, "connect_timeout");
    match(ex2.error.message, /TLS handshake with 127\.0\.0\.1:\d+ took longer than 80 ms/);
    deepStrictEqual(deadlines.size, 0);
  } finally {
    await silent.close();
  }
});

Deno.test("Connector: an interrupt or a closed client ends the attempt with their error", async () => {
  const silent = startRawServer(async (conn) => await conn.waitForClose());
  try {
    const tls = new Connector(
      parseTarget(`https://127.0.0.1:${silent.port}`),
      OPTIONS,
      new DeadlineQueue(),
      new TurnStamp(),
    );
    const ctl = new SendControl("x", performance.now());
    const ex = exchange();
    const p = tls.connect(ex, ctl, notClosed);
    setTimeout(() => ctl.interrupt("cancelled", ""), 30);
    deepStrictEqual(await p, undefined);
    deepStrictEqual(ex.error?.kind, "cancelled");
    const plain = new Connector(
      parseTarget(`http://127.0.0.1:${silent.port}`),
      OPTIONS,
      new DeadlineQueue(),
      new TurnStamp(),
    );
    const ex2 = exchange();
    deepStrictEqual(await plain.connect(ex2, new SendControl("x", 0), () => true), undefined);
    deepStrictEqual(ex2.error?.kind, "cancelled");
  } finally {
    await silent.close();
  }
});
