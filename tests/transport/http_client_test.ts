import { deepStrictEqual } from "node:assert/strict";
import assert from "node:assert/strict";
import { HttpClient } from "../../src/transport/http_client.ts";
import type { HttpRequest, Target } from "../../src/transport/http_exchange.ts";
import { parseTarget } from "../../src/transport/parse_target.ts";
import {
  chunk,
  delay,
  lengthResponse,
  type RawConnection,
  type RawServer,
  serveListener,
  SSE_HEAD,
  startRawServer,
} from "./raw_server.ts";

const dec = new TextDecoder();
const GET: HttpRequest = { method: "GET", path: "/v1/models", headers: [] };

function targetOf(server: RawServer): Target {
  return parseTarget(`http://127.0.0.1:${server.port}`);
}

/** Serves every request on a connection with `respond`, until the client closes it. */
function eachRequest(respond: (conn: RawConnection, n: number) => Promise<void>) {
  return async (conn: RawConnection) => {
    for (let n = 0;; n++) {
      if ((await conn.readRequest()) === undefined) return;
      await respond(conn, n);
    }
  };
}

Deno.test("HttpClient reuses a kept-alive connection for sequential requests", async () => {
  const server = startRawServer(eachRequest(async (conn, n) => {
    await conn.write(lengthResponse(200, `hello ${n}`));
  }));
  const client = new HttpClient(targetOf(server));
  try {
    const first = await client.send(GET);
    const second = await client.send(GET);
    deepStrictEqual([first.error, second.error], [undefined, undefined]);
    deepStrictEqual([dec.decode(first.body), dec.decode(second.body)], ["hello 0", "hello 1"]);
    deepStrictEqual([first.reused, second.reused], [false, true]);
    assert.ok(first.connectStart !== undefined && first.connectEnd !== undefined);
    deepStrictEqual(second.connectStart, undefined);
    deepStrictEqual(server.accepted, 1);
    deepStrictEqual([client.idleConnections, client.openConnections], [1, 1]);
    const ex = first;
    assert.ok(ex.connectStart! <= ex.connectEnd! && ex.connectEnd! <= ex.requestSent!);
    assert.ok(
      ex.requestSent! <= ex.firstByteAt! && ex.firstByteAt! <= ex.headersAt! && ex.headersAt! <= ex.lastByteAt!,
    );
    deepStrictEqual(ex.status, 200);
    deepStrictEqual(ex.headers?.get("content-type"), "text/plain");
    assert.ok(ex.bytesSent > 0 && ex.bytesReceived > 0);
    deepStrictEqual(ex.streamed, false);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient writes the request line, Host, given headers and Content-Length", async () => {
  const seen: { method: string; path: string; headers: ReadonlyMap<string, string>; body: string }[] = [];
  const server = startRawServer(async (conn) => {
    for (;;) {
      const req = await conn.readRequest();
      if (req === undefined) return;
      seen.push({ ...req, body: dec.decode(req.body) });
      await conn.write(lengthResponse(200, "ok"));
    }
  });
  const client = new HttpClient(targetOf(server));
  try {
    const body = new TextEncoder().encode('{"prompt":"héllo"}');
    const ex = await client.send({
      method: "POST",
      path: "/v1/completions",
      headers: [["Content-Type", "application/json"], ["X-Request-ID", "r1"]],
      body,
    });
    deepStrictEqual(ex.error, undefined);
    await client.send({ method: "POST", path: "/empty", headers: [] });
    deepStrictEqual(seen[0].method, "POST");
    deepStrictEqual(seen[0].path, "/v1/completions");
    deepStrictEqual(seen[0].headers.get("host"), `127.0.0.1:${server.port}`);
    deepStrictEqual(seen[0].headers.get("content-type"), "application/json");
    deepStrictEqual(seen[0].headers.get("x-request-id"), "r1");
    deepStrictEqual(seen[0].headers.get("content-length"), String(body.length));
    deepStrictEqual(seen[0].body, '{"prompt":"héllo"}');
    deepStrictEqual(seen[1].headers.get("content-length"), "0");
    deepStrictEqual(ex.bytesSent > body.length, true);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient writes commonHeaders before headers, checks them, and reuses them across requests", async () => {
  const seen: { method: string; path: string; headers: ReadonlyMap<string, string> }[] = [];
  const server = startRawServer(async (conn) => {
    for (;;) {
      const req = await conn.readRequest();
      if (req === undefined) return;
      seen.push(req);
      await conn.write(lengthResponse(200, "ok"));
    }
  });
  const client = new HttpClient(targetOf(server));
  try {
    const common: [string, string][] = [["Content-Type", "application/json"], ["Host", "example.test"]];
    for (const id of ["a", "b"]) {
      const ex = await client.send({ method: "POST", path: "/p", commonHeaders: common, headers: [["X-Id", id]] });
      deepStrictEqual(ex.error, undefined);
    }
    for (const [i, id] of ["a", "b"].entries()) {
      // The common Host replaces the client's own; Content-Length still comes last.
      deepStrictEqual([...seen[i].headers.keys()], ["content-type", "host", "x-id", "content-length"]);
      deepStrictEqual([seen[i].path, seen[i].headers.get("host"), seen[i].headers.get("x-id")], [
        "/p",
        "example.test",
        id,
      ]);
    }
    // The same array with another method and path, then with no Host of its own but one in the request's headers.
    await client.send({ method: "GET", path: "/q", commonHeaders: common, headers: [] });
    deepStrictEqual([seen[2].method, seen[2].path, seen[2].headers.get("host")], ["GET", "/q", "example.test"]);
    const plain: [string, string][] = [["Accept", "*/*"]];
    await client.send({ method: "GET", path: "/r", commonHeaders: plain, headers: [] });
    await client.send({ method: "GET", path: "/r", commonHeaders: plain, headers: [["Host", "own.test"]] });
    deepStrictEqual(seen[3].headers.get("host"), `127.0.0.1:${server.port}`);
    deepStrictEqual([...seen[4].headers.keys()], ["accept", "host"]);
    deepStrictEqual(seen[4].headers.get("host"), "own.test");
    const bad = await client.send({ method: "GET", path: "/", commonHeaders: [["X-Evil", "a\r\nb"]], headers: [] });
    deepStrictEqual(bad.error?.kind, "protocol");
    assert.match(bad.error?.message ?? "", /line break/);
    deepStrictEqual(seen.length, 5);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient honours Connection: close from the server", async () => {
  const server = startRawServer(async (conn) => {
    if ((await conn.readRequest()) === undefined) return;
    await conn.write(lengthResponse(200, "bye", "Connection: close\r\n"));
  });
  const client = new HttpClient(targetOf(server));
  try {
    const first = await client.send(GET);
    deepStrictEqual([first.error, client.idleConnections, client.openConnections], [undefined, 0, 0]);
    const second = await client.send(GET);
    deepStrictEqual([second.error, second.reused], [undefined, false]);
    deepStrictEqual(server.accepted, 2);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient retries once on a fresh connection when a pooled one was closed while idle", async () => {
  let firstClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => (firstClosed = resolve));
  const server = startRawServer(async (conn, index) => {
    if ((await conn.readRequest()) === undefined) return;
    await conn.write(lengthResponse(200, `conn ${index}`));
    if (index === 0) {
      // Keep-alive was promised, but the server drops the idle connection (as idle timeouts do).
      conn.close();
      firstClosed();
      return;
    }
    await eachRequest(async (c) => {
      await c.write(lengthResponse(200, "again"));
    })(conn);
  });
  const client = new HttpClient(targetOf(server));
  try {
    deepStrictEqual(dec.decode((await client.send(GET)).body), "conn 0");
    await closed;
    await delay(20);
    const ex = await client.send(GET);
    deepStrictEqual(ex.error, undefined);
    deepStrictEqual(dec.decode(ex.body), "conn 1");
    deepStrictEqual(ex.reused, false);
    assert.ok(ex.connectStart !== undefined);
    deepStrictEqual(server.accepted, 2);
    deepStrictEqual(client.openConnections, 1);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient never retries once response bytes have arrived on a reused connection", async () => {
  const server = startRawServer(async (conn) => {
    if ((await conn.readRequest()) === undefined) return;
    await conn.write(lengthResponse(200, "one"));
    if ((await conn.readRequest()) === undefined) return;
    await conn.write("HTTP/1.1 200 OK\r\nContent-Len");
    conn.close();
  });
  const client = new HttpClient(targetOf(server));
  try {
    await client.send(GET);
    const ex = await client.send(GET);
    deepStrictEqual(ex.error?.kind, "reset");
    assert.match(ex.error.message, /before the response head was complete/);
    deepStrictEqual(ex.reused, true);
    deepStrictEqual(server.accepted, 1);
    deepStrictEqual(client.openConnections, 0);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient delivers SSE events synchronously with increasing arrival times", async () => {
  const server = startRawServer(async (conn) => {
    if ((await conn.readRequest()) === undefined) return;
    await conn.write(SSE_HEAD);
    for (let i = 0; i < 5; i++) {
      await conn.write(chunk(`data: {"i":${i}}\n\n`));
      await delay(15);
    }
    await conn.write(chunk("event: end\ndata: [DONE]\n\n") + "0\r\n\r\n");
    await conn.waitForClose();
  });
  const client = new HttpClient(targetOf(server));
  try {
    const events: [string, number, string | undefined][] = [];
    const ex = await client.send(GET, { onSseEvent: (data, t, event) => events.push([data, t, event]) });
    deepStrictEqual(ex.error, undefined);
    deepStrictEqual(ex.streamed, true);
    deepStrictEqual(ex.body, undefined);
    deepStrictEqual(events.map((e) => e[0]), ['{"i":0}', '{"i":1}', '{"i":2}', '{"i":3}', '{"i":4}', "[DONE]"]);
    deepStrictEqual(events[5][2], "end");
    for (let i = 1; i < events.length; i++) assert.ok(events[i][1] > events[i - 1][1], `event ${i}`);
    assert.ok(events[0][1] >= ex.headersAt! && events[5][1] <= ex.lastByteAt!);
    deepStrictEqual(client.idleConnections, 1);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient buffers an SSE response as a body when no event handler is given", async () => {
  const server = startRawServer(eachRequest(async (conn) => {
    await conn.write(SSE_HEAD + chunk("data: a\n\n") + "0\r\n\r\n");
  }));
  const client = new HttpClient(targetOf(server));
  try {
    const ex = await client.send(GET);
    deepStrictEqual([ex.streamed, dec.decode(ex.body)], [false, "data: a\n\n"]);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient reports a server closing mid-stream as a reset with the partial data kept", async () => {
  const server = startRawServer(async (conn) => {
    if ((await conn.readRequest()) === undefined) return;
    await conn.write(SSE_HEAD + chunk("data: one\n\n") + chunk("data: two\n\n") + chunk("data: thr"));
    await delay(10);
    conn.close();
  });
  const client = new HttpClient(targetOf(server));
  try {
    const events: string[] = [];
    const ex = await client.send(GET, { onSseEvent: (data) => events.push(data) });
    deepStrictEqual(ex.error?.kind, "reset");
    assert.match(ex.error.message, /mid-body/);
    deepStrictEqual(events, ["one", "two"]);
    deepStrictEqual(ex.status, 200);
    assert.ok(ex.firstByteAt !== undefined && ex.headersAt !== undefined && ex.lastByteAt !== undefined);
    assert.ok(ex.bytesReceived > 0);
    deepStrictEqual([client.openConnections, client.idleConnections], [0, 0]);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient turns an exceeded deadline into a timeout and closes the connection", async () => {
  const server = startRawServer(async (conn) => {
    if ((await conn.readRequest()) === undefined) return;
    await conn.write(SSE_HEAD + chunk("data: first\n\n"));
    await conn.waitForClose();
  });
  const client = new HttpClient(targetOf(server));
  try {
    const events: string[] = [];
    const ex = await client.send(GET, {
      deadline: performance.now() + 150,
      onSseEvent: (data) => events.push(data),
    });
    deepStrictEqual(ex.error?.kind, "timeout");
    assert.match(ex.error.message, /deadline/);
    deepStrictEqual(events, ["first"]);
    deepStrictEqual(client.openConnections, 0);
    const late = await client.send(GET, { deadline: performance.now() - 1 });
    deepStrictEqual(late.error?.kind, "timeout");
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient turns an abort into cancelled, also when aborted from inside the event handler", async () => {
  const server = startRawServer(async (conn) => {
    if ((await conn.readRequest()) === undefined) return;
    await conn.write(SSE_HEAD + chunk("data: 1\n\ndata: 2\n\ndata: 3\n\n"));
    await conn.waitForClose();
  });
  const client = new HttpClient(targetOf(server));
  try {
    const outside = new AbortController();
    setTimeout(() => outside.abort(), 50);
    const ex = await client.send(GET, { signal: outside.signal, onSseEvent: () => {} });
    deepStrictEqual(ex.error?.kind, "cancelled");

    const inside = new AbortController();
    const events: string[] = [];
    const ex2 = await client.send(GET, {
      signal: inside.signal,
      onSseEvent: (data) => {
        events.push(data);
        inside.abort("enough tokens");
      },
    });
    deepStrictEqual(ex2.error?.kind, "cancelled");
    assert.match(ex2.error.message, /enough tokens/);
    deepStrictEqual(events, ["1"]);

    const already = new AbortController();
    already.abort();
    deepStrictEqual((await client.send(GET, { signal: already.signal })).error?.kind, "cancelled");
    deepStrictEqual(client.openConnections, 0);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient reports a refused connection as a connect error quickly", async () => {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const client = new HttpClient(parseTarget(`127.0.0.1:${port}`));
  try {
    const started = performance.now();
    const ex = await client.send(GET);
    deepStrictEqual(ex.error?.kind, "connect");
    assert.match(ex.error.message, /refused/i);
    assert.ok(performance.now() - started < 5000);
    deepStrictEqual(client.openConnections, 0);
  } finally {
    client.close();
  }
});

Deno.test("HttpClient returns non-2xx bodies without an error", async () => {
  const server = startRawServer(eachRequest(async (conn) => {
    await conn.write(
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
        chunk('{"error":') + chunk('"overloaded"}') + "0\r\n\r\n",
    );
  }));
  const client = new HttpClient(targetOf(server));
  try {
    const ex = await client.send(GET, { onSseEvent: () => assert.fail("not SSE") });
    deepStrictEqual(ex.error, undefined);
    deepStrictEqual(ex.status, 503);
    deepStrictEqual(JSON.parse(dec.decode(ex.body)), { error: "overloaded" });
    deepStrictEqual(client.idleConnections, 1);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient with reuse never opens a fresh connection per request and asks the server to close", async () => {
  const connectionHeaders: (string | undefined)[] = [];
  const server = startRawServer(eachRequest(async (conn) => {
    await conn.write(lengthResponse(200, "x"));
  }));
  const seen = startRawServer(async (conn) => {
    const req = await conn.readRequest();
    connectionHeaders.push(req?.headers.get("connection"));
    await conn.write(lengthResponse(200, "x"));
  });
  const client = new HttpClient(targetOf(server), { reuse: "never" });
  const client2 = new HttpClient(targetOf(seen), { reuse: "never" });
  try {
    const a = await client.send(GET);
    const b = await client.send(GET);
    deepStrictEqual([a.reused, b.reused, a.error, b.error], [false, false, undefined, undefined]);
    deepStrictEqual(server.accepted, 2);
    deepStrictEqual([client.idleConnections, client.openConnections], [0, 0]);
    await client2.send(GET);
    deepStrictEqual(connectionHeaders, ["close"]);
  } finally {
    client.close();
    client2.close();
    await server.close();
    await seen.close();
  }
});

Deno.test("HttpClient queues sends beyond maxConnections and hands connections over", async () => {
  const server = startRawServer(eachRequest(async (conn, n) => {
    await delay(5);
    await conn.write(lengthResponse(200, `r${n}`));
  }));
  const client = new HttpClient(targetOf(server), { maxConnections: 1 });
  try {
    const all = await Promise.all([client.send(GET), client.send(GET), client.send(GET)]);
    deepStrictEqual(all.map((e) => e.error), [undefined, undefined, undefined]);
    deepStrictEqual(all.map((e) => dec.decode(e.body)).sort(), ["r0", "r1", "r2"]);
    deepStrictEqual(all.map((e) => e.reused), [false, true, true]);
    deepStrictEqual(server.accepted, 1);
    // A queued send honours its deadline while it waits.
    const blocker = client.send({ method: "GET", path: "/slow", headers: [] });
    const queued = await client.send(GET, { deadline: performance.now() + 1 });
    deepStrictEqual(queued.error?.kind, "timeout");
    assert.match(queued.error.message, /waiting for a free connection/);
    await blocker;
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient reports an invalid response as a protocol error", async () => {
  const server = startRawServer(async (conn) => {
    if ((await conn.readRequest()) === undefined) return;
    await conn.write("SSH-2.0-OpenSSH_9.6\r\n\r\n");
    await conn.waitForClose();
  });
  const client = new HttpClient(targetOf(server));
  try {
    const ex = await client.send(GET);
    deepStrictEqual(ex.error?.kind, "protocol");
    assert.match(ex.error.message, /status line/);
    deepStrictEqual(client.openConnections, 0);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient refuses header injection before touching the network", async () => {
  const client = new HttpClient(parseTarget("127.0.0.1:9"));
  const ex = await client.send({ method: "GET", path: "/", headers: [["X-Evil", "a\r\nInjected: 1"]] });
  deepStrictEqual(ex.error?.kind, "protocol");
  deepStrictEqual(ex.connectStart, undefined);
  const ex2 = await client.send({ method: "GET", path: "/a b", headers: [] });
  deepStrictEqual(ex2.error?.kind, "protocol");
  client.close();
});

Deno.test("HttpClient reports an event handler that throws as a protocol error", async () => {
  const server = startRawServer(async (conn) => {
    if ((await conn.readRequest()) === undefined) return;
    await conn.write(SSE_HEAD + chunk("data: 1\n\ndata: 2\n\n"));
    await conn.waitForClose();
  });
  const client = new HttpClient(targetOf(server));
  try {
    let calls = 0;
    const ex = await client.send(GET, {
      onSseEvent: () => {
        calls++;
        throw new Error("bad json");
      },
    });
    deepStrictEqual(ex.error?.kind, "protocol");
    assert.match(ex.error.message, /bad json/);
    deepStrictEqual(calls, 1);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient reads close-delimited and 1xx-prefixed responses", async () => {
  const server = startRawServer(async (conn, index) => {
    if ((await conn.readRequest()) === undefined) return;
    if (index === 0) {
      await conn.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil");
      await conn.write(" the end");
      conn.close();
    } else {
      await conn.write("HTTP/1.1 100 Continue\r\n\r\n");
      await delay(5);
      await conn.write(lengthResponse(200, "after continue"));
      await conn.waitForClose();
    }
  });
  const client = new HttpClient(targetOf(server));
  try {
    const ex = await client.send(GET);
    deepStrictEqual([ex.error, dec.decode(ex.body)], [undefined, "until the end"]);
    deepStrictEqual(client.openConnections, 0);
    const ex2 = await client.send(GET);
    deepStrictEqual([ex2.error, ex2.status, dec.decode(ex2.body)], [undefined, 200, "after continue"]);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient close() cancels in-flight sends and closes idle connections", async () => {
  const server = startRawServer(async (conn) => {
    if ((await conn.readRequest()) === undefined) return;
    await conn.write(lengthResponse(200, "a"));
    if ((await conn.readRequest()) === undefined) return;
    await conn.waitForClose();
  });
  const client = new HttpClient(targetOf(server));
  try {
    await client.send(GET);
    const pending = client.send(GET);
    await delay(20);
    client.close();
    const ex = await pending;
    deepStrictEqual(ex.error?.kind, "cancelled");
    deepStrictEqual([client.idleConnections, client.openConnections], [0, 0]);
    deepStrictEqual((await client.send(GET)).error?.kind, "cancelled");
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient spreads new connections over extra hostnames round-robin", async () => {
  const server = startRawServer(eachRequest(async (conn) => {
    await conn.write(lengthResponse(200, "x"));
  }));
  let second: RawServer;
  try {
    second = startRawServer(
      eachRequest(async (conn) => {
        await conn.write(lengthResponse(200, "x"));
      }),
      "127.0.0.2",
      server.port,
    );
  } catch {
    await server.close();
    return; // 127.0.0.2 not routable here (non-Linux loopback): nothing to test.
  }
  const client = new HttpClient({ ...targetOf(server), extraHostnames: ["127.0.0.2"] }, { reuse: "never" });
  try {
    for (let i = 0; i < 4; i++) deepStrictEqual((await client.send(GET)).error, undefined);
    deepStrictEqual([server.accepted, second.accepted], [2, 2]);
  } finally {
    client.close();
    await server.close();
    await second.close();
  }
});

Deno.test("HttpClient speaks HTTPS with a self-signed CA when openssl is available", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // rustls refuses a self-signed leaf, so make a tiny CA and a leaf certificate signed by it.
    const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    await Deno.writeTextFile(`${dir}/leaf.ext`, "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
    const steps = [
      ["req", "-x509", ...ec, "-days", "1", "-subj", "/CN=infermeter test CA", "-keyout", "ca.key", "-out", "ca.pem"],
      ["req", ...ec, "-subj", "/CN=localhost", "-keyout", "key.pem", "-out", "leaf.csr"],
      ["x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "1"]
        .concat(["-extfile", "leaf.ext", "-out", "cert.pem"]),
    ];
    for (const args of steps) {
      const made = await new Deno.Command("openssl", { args, cwd: dir, stdout: "null", stderr: "null" }).output()
        .catch(() => undefined);
      if (made === undefined || !made.success) return; // no usable openssl: skip
    }
    const ca = await Deno.readTextFile(`${dir}/ca.pem`);
    const cert = await Deno.readTextFile(`${dir}/cert.pem`);
    const key = await Deno.readTextFile(`${dir}/key.pem`);
    const listener = Deno.listenTls({ hostname: "127.0.0.1", port: 0, cert, key });
    const server = serveListener(
      listener,
      eachRequest(async (conn) => {
        await conn.write(SSE_HEAD + chunk("data: secure\n\n") + "0\r\n\r\n");
      }),
    );
    const client = new HttpClient(parseTarget(`https://localhost:${server.port}`), { caCerts: [ca] });
    const untrusting = new HttpClient(parseTarget(`https://127.0.0.1:${server.port}`));
    try {
      const events: string[] = [];
      const ex = await client.send(GET, { onSseEvent: (d) => events.push(d) });
      deepStrictEqual([ex.error, events], [undefined, ["secure"]]);
      const again = await client.send(GET, { onSseEvent: (d) => events.push(d) });
      deepStrictEqual([again.error, again.reused], [undefined, true]);
      const refused = await untrusting.send(GET);
      deepStrictEqual(refused.error?.kind, "connect");
      assert.match(refused.error.message, /TLS/);
    } finally {
      client.close();
      untrusting.close();
      await server.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HttpClient bounds connection setup by connectTimeoutMs and by the request deadline", async () => {
  // Accepts TCP but never answers the TLS handshake, so setup hangs until a timer ends it.
  const server = startRawServer(async (conn) => {
    await conn.waitForClose();
  });
  const target = parseTarget(`https://127.0.0.1:${server.port}`);
  const client = new HttpClient(target, { connectTimeoutMs: 100 });
  const patient = new HttpClient(target);
  try {
    const ex = await client.send(GET);
    deepStrictEqual(ex.error?.kind, "connect_timeout");
    assert.match(ex.error.message, /took longer than 100 ms/);
    assert.ok(ex.connectStart !== undefined && ex.connectEnd === undefined);
    const ex2 = await patient.send(GET, { deadline: performance.now() + 100 });
    deepStrictEqual(ex2.error?.kind, "timeout");
    assert.match(ex2.error.message, /while connecting/);
    deepStrictEqual([client.openConnections, patient.openConnections], [0, 0]);
  } finally {
    client.close();
    patient.close();
    await server.close();
  }
});

Deno.test("HttpClient stamps an SSE event split across reads with the arrival of its first byte", async () => {
  let secondPartSentAt = 0;
  const server = startRawServer(async (conn) => {
    if ((await conn.readRequest()) === undefined) return;
    const body = "data: hel" + "lo\n\n" + "data: [DONE]\n\n";
    await conn.write(
      `HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nContent-Length: ${body.length}\r\n\r\ndata: hel`,
    );
    await delay(40);
    secondPartSentAt = performance.now();
    await conn.write("lo\n\ndata: [DONE]\n\n");
    await conn.waitForClose();
  });
  const client = new HttpClient(targetOf(server));
  try {
    const events: [string, number][] = [];
    const ex = await client.send(GET, { onSseEvent: (data, t) => events.push([data, t]) });
    deepStrictEqual(ex.error, undefined);
    deepStrictEqual(events.map((e) => e[0]), ["hello", "[DONE]"]);
    assert.ok(events[0][1] < secondPartSentAt, "first event carries the time of its first byte");
    assert.ok(events[1][1] > secondPartSentAt);
    deepStrictEqual(client.idleConnections, 1);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient connects to an IPv6 loopback target and sends a bracketed Host", async () => {
  let hostHeader: string | undefined;
  let server: RawServer;
  try {
    server = startRawServer(async (conn) => {
      const req = await conn.readRequest();
      hostHeader = req?.headers.get("host");
      await conn.write(lengthResponse(200, "v6"));
    }, "::1");
  } catch {
    return; // No IPv6 loopback here: nothing to test.
  }
  const client = new HttpClient(parseTarget(`http://[::1]:${server.port}`));
  try {
    const ex = await client.send(GET);
    deepStrictEqual([ex.error, dec.decode(ex.body)], [undefined, "v6"]);
    deepStrictEqual(hostHeader, `[::1]:${server.port}`);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient gives the same events with direct socket ops, a read posted ahead, or neither, across kept-alive exchanges", async () => {
  // Small writes with pauses: every response spans many reads, so both buffers take turns, and the read posted
  // ahead at the end of one response is the first read of the next one.
  const server = startRawServer(eachRequest(async (conn, n) => {
    await conn.write(SSE_HEAD);
    for (let i = 0; i < 6; i++) {
      await conn.write(chunk(`data: {"r":${n},"i":${i}}\n\n`));
      await delay(2);
    }
    await conn.write(chunk("data: [DONE]\n\n") + "0\r\n\r\n");
  }));
  const seen: Record<string, string[]> = {};
  try {
    const modes = {
      direct: { directSocketOps: true },
      pipelined: { directSocketOps: false, pipelinedReads: true },
      plain: { directSocketOps: false, pipelinedReads: false },
    };
    for (const [mode, options] of Object.entries(modes)) {
      const client = new HttpClient(targetOf(server), { ...options, readBufferBytes: 1024 });
      const events: string[] = [];
      try {
        for (let r = 0; r < 3; r++) {
          const deadline = performance.now() + 5_000; // a mixed-up buffer would leave the parser waiting
          const ex = await client.send(GET, { onSseEvent: (data) => events.push(data), deadline });
          deepStrictEqual([ex.error, ex.reused], [undefined, r > 0]);
        }
        deepStrictEqual(client.openConnections, 1);
      } finally {
        client.close();
      }
      seen[mode] = events;
    }
    const expected = [0, 1, 2].flatMap((
      r,
    ) => [...Array.from({ length: 6 }, (_, i) => `{"r":${r},"i":${i}}`), "[DONE]"]);
    deepStrictEqual(seen, { direct: expected, pipelined: expected, plain: expected });
  } finally {
    await server.close();
  }
});

Deno.test("HttpClient gives reads completed in one event-loop turn that turn's first stamp, not their turn's work", async () => {
  // Both connections' events leave in one go, so both reads complete at the same poll; the handler then spends
  // 5 ms on the first. The second event's bytes were there all along: its stamp must not carry those 5 ms.
  const conns: RawConnection[] = [];
  const server = startRawServer(async (conn) => {
    if ((await conn.readRequest()) === undefined) return;
    await conn.write(SSE_HEAD);
    conns.push(conn);
    if (conns.length < 2) return await conn.waitForClose();
    await delay(30); // both clients' reads are pending by now
    await Promise.all(conns.map((c) => c.write(chunk("data: x\n\n"))));
    await delay(30);
    await Promise.all(conns.map((c) => c.write(chunk("data: [DONE]\n\n") + "0\r\n\r\n")));
    await conn.waitForClose();
  });
  try {
    for (const options of [{ directSocketOps: true }, { directSocketOps: false, pipelinedReads: true }]) {
      conns.length = 0;
      const client = new HttpClient(targetOf(server), options);
      const stamps: number[] = [];
      const onSseEvent = (data: string, t: number) => {
        if (data !== "x") return;
        stamps.push(t);
        if (stamps.length === 1) {
          const end = performance.now() + 5;
          while (performance.now() < end) { /* the first event's work */ }
        }
      };
      try {
        const done = await Promise.all([client.send(GET, { onSseEvent }), client.send(GET, { onSseEvent })]);
        deepStrictEqual(done.map((ex) => ex.error), [undefined, undefined]);
        deepStrictEqual(stamps.length, 2);
        assert.ok(
          stamps[1] - stamps[0] < 1,
          `${JSON.stringify(options)}: the second read was stamped ${(stamps[1] - stamps[0]).toFixed(2)} ms later`,
        );
      } finally {
        client.close();
      }
    }
  } finally {
    await server.close();
  }
});

Deno.test("HttpClient sends each request's own bytes when many are encoded before any connection is ready", async () => {
  // Every send encodes its request at once, then waits for its connection: the encoder's reused buffers must stay
  // with their request until its writes are over, then serve later requests unchanged.
  const seen: string[] = [];
  const echo = startRawServer(async (conn) => {
    for (;;) {
      const req = await conn.readRequest();
      if (req === undefined) return;
      seen.push(`${req.headers.get("x-id")} ${dec.decode(req.body)}`);
      await conn.write(lengthResponse(200, dec.decode(req.body)));
    }
  });
  const client = new HttpClient(targetOf(echo));
  const enc = new TextEncoder();
  const request = (i: number): HttpRequest => ({
    method: "POST",
    path: "/echo",
    headers: [["X-Id", String(i)]],
    body: enc.encode(`{"n":${i},"pad":"${"p".repeat((i * 37) % 300)}"}`),
  });
  try {
    for (let round = 0; round < 3; round++) {
      const deadline = performance.now() + 3000;
      const sends = Array.from({ length: 16 }, (_, i) => client.send(request(round * 100 + i), { deadline }));
      const done = await Promise.all(sends);
      done.forEach((ex, i) => {
        deepStrictEqual(ex.error, undefined);
        deepStrictEqual(dec.decode(ex.body), dec.decode(request(round * 100 + i).body));
      });
    }
    deepStrictEqual(seen.length, 48);
    for (const line of seen) {
      const [id, body] = [line.slice(0, line.indexOf(" ")), line.slice(line.indexOf(" ") + 1)];
      deepStrictEqual(body, dec.decode(request(Number(id)).body));
    }
  } finally {
    client.close();
    await echo.close();
  }
});

Deno.test("HttpClient counts a send from the start its caller read, and sends nothing whose deadline is not after it", async () => {
  const server = startRawServer(eachRequest(async (c) => {
    await c.write(lengthResponse(200, "ok"));
  }));
  const client = new HttpClient(targetOf(server));
  try {
    // The caller's start, not a clock read of the client's own, decides: a deadline before it fails at once, unsent
    // (with the client's own, later-read start, it would be sent and answered well within the deadline).
    const now = performance.now();
    const late = await client.send(GET, { startedAt: now + 60_000, deadline: now + 30_000 });
    deepStrictEqual(late.error?.kind, "timeout");
    deepStrictEqual(late.requestSent, undefined);
    deepStrictEqual(server.accepted, 0);
    const ex = await client.send(GET, { startedAt: performance.now(), deadline: performance.now() + 5000 });
    deepStrictEqual(ex.error, undefined);
    deepStrictEqual(dec.decode(ex.body), "ok");
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("HttpClient tells an event stream from a plain body on each response of a kept-alive connection", async () => {
  // One connection, its responses' types changing: each response is streamed or buffered by its own Content-Type.
  const types = [
    "text/event-stream",
    "application/json",
    "application/json",
    "Text/Event-Stream; charset=utf-8",
    "text/event-stream",
    "text/plain",
  ];
  const server = startRawServer(eachRequest(async (c, n) => {
    const type = types[n % types.length];
    const body = `data: {"n":${n}}\n\n`;
    await c.write(`HTTP/1.1 200 OK\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  }));
  const client = new HttpClient(targetOf(server));
  try {
    for (let n = 0; n < 12; n++) {
      const events: string[] = [];
      const ex = await client.send(GET, { onSseEvent: (data) => void events.push(data) });
      const stream = types[n % types.length].toLowerCase().startsWith("text/event-stream");
      deepStrictEqual(ex.error, undefined);
      deepStrictEqual(ex.streamed, stream, `response ${n}`);
      deepStrictEqual(events, stream ? [`{"n":${n}}`] : []);
      deepStrictEqual(
        ex.body === undefined ? undefined : dec.decode(ex.body),
        stream ? undefined : `data: {"n":${n}}\n\n`,
      );
    }
    deepStrictEqual(server.accepted, 1);
  } finally {
    client.close();
    await server.close();
  }
});
