/**
 * Every request ends in exactly one record of the right class, against a server that misbehaves on purpose
 * (fault_server.ts), over real sockets.
 */
import { deepStrictEqual, match, ok } from "node:assert/strict";
import { HttpClient, type HttpClientOptions } from "../../src/transport/http_client.ts";
import { parseTarget } from "../../src/transport/parse_target.ts";
import { executeRequest } from "../../src/engine/request_executor.ts";
import { CHAT_ADAPTER } from "../../src/endpoints/openai/chat.ts";
import type { RequestRecord } from "../../src/records/request_record.ts";
import { StallDetector } from "../../src/transport/stall_detector.ts";
import { type Fault, type FaultServer, type FaultServerOptions, startFaultServer } from "./fault_server.ts";

interface RunOptions {
  readonly requests: number;
  readonly streaming?: boolean;
  readonly timeoutMs?: number;
  /** Pause between sequential requests (lets idle faults act). */
  readonly gapMs?: number;
  /** Awaited before each request after the first (after `gapMs`): lets a test wait for the server to act. */
  readonly before?: (i: number) => Promise<void>;
  readonly client?: HttpClientOptions;
  readonly scheme?: "http" | "https";
  /** Called at each request's first response event (AIPerf's first-token hook). */
  readonly onFirstResponse?: () => void;
}

const BODY = new TextEncoder().encode('{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}');

/** Sends `requests` requests one after another through the engine's executor; returns their records. */
async function run(server: FaultServer, o: RunOptions, client?: HttpClient): Promise<RequestRecord[]> {
  const own = client ?? new HttpClient(parseTarget(`${o.scheme ?? "http"}://127.0.0.1:${server.port}`), o.client);
  const streaming = o.streaming ?? true;
  const ctx = {
    sender: own,
    adapter: CHAT_ADAPTER,
    path: "/v1/chat/completions",
    headers: CHAT_ADAPTER.headers({ streaming }),
    timeoutMs: o.timeoutMs ?? 5000,
    clockOffsetMs: 0,
    workerId: "worker_0",
    phase: "profiling" as const,
  };
  const records: RequestRecord[] = [];
  const signal = new AbortController().signal;
  try {
    for (let i = 0; i < o.requests; i++) {
      if (i > 0 && o.gapMs) await new Promise((r) => setTimeout(r, o.gapMs));
      if (i > 0 && o.before) await o.before(i);
      const meta = {
        requestIndex: i,
        sessionIndex: i,
        turnIndex: 0,
        creditIssuedAt: performance.now(),
        onFirstResponse: o.onFirstResponse,
      };
      records.push(
        await executeRequest(ctx, { conversationId: `c${i}`, turnIndex: 0, body: BODY }, meta, `s${i}`, signal),
      );
    }
  } finally {
    if (client === undefined) own.close();
  }
  return records;
}

const classOf = (r: RequestRecord) => r.error?.type ?? "ok";

async function withServer<T>(options: FaultServerOptions, body: (s: FaultServer) => Promise<T>): Promise<T> {
  const server = startFaultServer(options);
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

const script = (...faults: Fault[]) => (n: number) => faults[n % faults.length];

/**
 * Waits until `done()` (the server has acted), then a little more so the client's event loop has polled its sockets
 * and seen what the server did. Timers alone race on a loaded machine: the server's and the client's run in one
 * process, and after a stall both fire in the same turn.
 */
async function serverActed(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 2));
  await new Promise((r) => setTimeout(r, 10));
}

Deno.test("fault: an unsolicited 408 on an idle kept-alive connection is never charged to the next request", async () => {
  await withServer({ script: script("idle-408"), idleMs: 20 }, async (server) => {
    const client = new HttpClient(parseTarget(`http://127.0.0.1:${server.port}`));
    try {
      const before = (i: number) => serverActed(() => server.idleClosed >= i);
      const records = await run(server, { requests: 6, before }, client);
      deepStrictEqual(records.map(classOf), Array(6).fill("ok"));
      deepStrictEqual(server.received, 6);
      ok(client.evictedIdleConnections >= 4, `evicted ${client.evictedIdleConnections}`);
    } finally {
      client.close();
    }
  });
});

Deno.test("fault: a FIN on an idle connection costs nothing; reuse resumes on a fresh one", async () => {
  await withServer({ script: script("idle-close"), idleMs: 20 }, async (server) => {
    const records = await run(server, { requests: 5, before: (i) => serverActed(() => server.idleClosed >= i) });
    deepStrictEqual(records.map(classOf), Array(5).fill("ok"));
    deepStrictEqual([server.received, server.accepted], [5, 5]);
  });
});

Deno.test("fault: FIN and RST mid-stream are one ConnectionResetError record each, grouped by kind", async () => {
  await withServer({ script: script("ok", "fin-mid-stream", "ok", "rst-mid-stream") }, async (server) => {
    const records = await run(server, { requests: 8 });
    deepStrictEqual(records.map(classOf), [
      "ok",
      "ConnectionResetError",
      "ok",
      "ConnectionResetError",
      "ok",
      "ConnectionResetError",
      "ok",
      "ConnectionResetError",
    ]);
    deepStrictEqual(server.received, 8);
    const fin = records[1].error!;
    match(fin.message, /mid-body after \d+ body bytes/);
    ok(fin.group !== undefined && !/\d+ body bytes/.test(fin.group), "the summary group has no byte count");
    // The partial answer was seen before the cut.
    deepStrictEqual(records[1].content, "Hello world");
  });
});

Deno.test("fault: a server that never answers gives TimeoutError records and one stall notice", async () => {
  await withServer({ script: script("never-answer") }, async (server) => {
    const client = new HttpClient(parseTarget(`http://127.0.0.1:${server.port}`));
    const detector = new StallDetector(100);
    try {
      const pending = run(server, { requests: 2, timeoutMs: 400 }, client);
      await new Promise((r) => setTimeout(r, 20));
      deepStrictEqual(detector.check(performance.now(), [client.activity()]), []);
      await new Promise((r) => setTimeout(r, 150));
      const notices = detector.check(performance.now(), [client.activity()]);
      deepStrictEqual(notices.length, 1);
      match(
        notices[0],
        new RegExp(`127\\.0\\.0\\.1:${server.port} .*1 request in flight \\(1 waiting for the response\\)`),
      );
      deepStrictEqual(detector.check(performance.now(), [client.activity()]), [], "said once");
      const records = await pending;
      deepStrictEqual(records.map(classOf), ["TimeoutError", "TimeoutError"]);
      deepStrictEqual(server.received, 2);
    } finally {
      client.close();
    }
  });
});

Deno.test("fault: a server that never accepts: plain requests time out, TLS setup hits the connect limit", async () => {
  await withServer({ script: script("ok"), neverAccept: true }, async (server) => {
    const records = await run(server, { requests: 2, timeoutMs: 200 });
    deepStrictEqual(records.map(classOf), ["TimeoutError", "TimeoutError"]);
    const tls = await run(server, { requests: 2, scheme: "https", client: { connectTimeoutMs: 100 } });
    deepStrictEqual(tls.map(classOf), ["ConnectTimeoutError", "ConnectTimeoutError"]);
    deepStrictEqual(server.received, 0);
  });
});

Deno.test("fault: a byte-by-byte answer is complete and correct", async () => {
  await withServer({ script: script("drip") }, async (server) => {
    const records = await run(server, { requests: 2 });
    deepStrictEqual(records.map(classOf), ["ok", "ok"]);
    deepStrictEqual(records.map((r) => r.content), ["Hello world", "Hello world"]);
    deepStrictEqual(records[0].responseTimes.length, 2);
  });
});

Deno.test("fault: gzip bodies, streamed and not, are decoded", async () => {
  await withServer({ script: script("gzip", "gzip-json") }, async (server) => {
    const streamed = await run(server, { requests: 1 });
    const plain = await run(server, { requests: 1, streaming: false });
    for (const r of [...streamed, ...plain]) {
      deepStrictEqual([classOf(r), r.content, r.usage?.completionTokens], ["ok", "Hello world", 2]);
    }
    deepStrictEqual(server.received, 2);
  });
});

Deno.test("fault: a 200 with nothing to measure is InvalidInferenceResultError, never a success", async () => {
  await withServer({ script: script("wrong-shape", "empty-choices", "content-null") }, async (server) => {
    const records = await run(server, { requests: 3, streaming: false });
    deepStrictEqual(records.map(classOf), Array(3).fill("InvalidInferenceResultError"));
    deepStrictEqual(records.map((r) => r.status), [200, 200, 200]);
    deepStrictEqual(server.received, 3);
  });
});

Deno.test("fault: [DONE] completes the record although the body stays open", async () => {
  await withServer({ script: script("done-open") }, async (server) => {
    const started = performance.now();
    const records = await run(server, { requests: 3, timeoutMs: 10_000 });
    ok(performance.now() - started < 3000, "no request waited for its timeout");
    deepStrictEqual(records.map(classOf), ["ok", "ok", "ok"]);
    deepStrictEqual(records.map((r) => r.content), Array(3).fill("Hello world"));
    deepStrictEqual(server.received, 3);
  });
});

Deno.test("fault: a line without end and a huge header are ProtocolError records with a clear reason", async () => {
  await withServer({ script: script("huge-line", "huge-header"), hugeBytes: 40 * 1024 * 1024 }, async (server) => {
    const line = await run(server, { requests: 1 });
    deepStrictEqual(line.map(classOf), ["ProtocolError"]);
    match(line[0].error!.message, /SSE line exceeds \d+ bytes without a line break/);
  });
  await withServer({ script: script("huge-header"), hugeBytes: 1024 * 1024 }, async (server) => {
    const head = await run(server, { requests: 1 });
    deepStrictEqual(head.map(classOf), ["ProtocolError"]);
    match(head[0].error!.message, /response head exceeds/);
  });
});

Deno.test("fault: an endless or enormous body ends as one ResponseTooLargeError at --max-response-bytes", async () => {
  const cap = 4 * 1024 * 1024;
  await withServer({ script: script("endless-json", "ok-json") }, async (server) => {
    const started = performance.now();
    const records = await run(server, { requests: 2, streaming: false, client: { maxResponseBytes: cap } });
    ok(performance.now() - started < 4000, "ended at the cap, not at the request timeout");
    deepStrictEqual(records.map(classOf), ["ResponseTooLargeError", "ok"]);
    match(records[0].error!.message, /body larger than 4194304 bytes/);
    // The client stopped reading at the cap: what the server got out is the cap plus what socket buffers hold.
    ok(server.endlessBytes < cap + 16 * 1024 * 1024, `the server wrote ${server.endlessBytes} bytes`);
    ok(records[0].bytesReceived! <= cap + 2 * 1024 * 1024, `read ${records[0].bytesReceived} bytes`);
  });
  await withServer({ script: script("gzip-bomb"), hugeBytes: 32 * 1024 * 1024 }, async (server) => {
    const records = await run(server, { requests: 1, streaming: false, client: { maxResponseBytes: cap } });
    deepStrictEqual(records.map(classOf), ["ResponseTooLargeError"]);
  });
});

Deno.test("fault: a 408 meeting a request on a kept-alive connection is resent on a fresh one, never recorded", async () => {
  await withServer({ script: script("race-408") }, async (server) => {
    const records = await run(server, { requests: 6 });
    deepStrictEqual(records.map(classOf), Array(6).fill("ok"));
    // Requests 2..6 each met a 408 on the connection of the one before, and were answered on a fresh connection.
    deepStrictEqual([server.received, server.accepted], [6, 6]);
    deepStrictEqual(records.map((r) => r.connectionRetries ?? 0), [0, 1, 1, 1, 1, 1]);
  });
});

Deno.test("fault: a second answer sent unasked is never taken for the next request's; its connection is dropped", async () => {
  // The copy right behind the answer (seen in the answer's own reads), or while the connection idles between requests.
  for (const doubleGapMs of [0, 10]) {
    await withServer({ script: script("double-answer"), doubleGapMs }, async (server) => {
      const records = await run(server, { requests: 8, before: (i) => serverActed(() => server.copiesSent >= i) });
      deepStrictEqual(records.map(classOf), Array(8).fill("ok"));
      // No connection served two requests, and the server answered each request once.
      deepStrictEqual([server.received, server.accepted], [8, 8], `copy ${doubleGapMs} ms behind`);
      deepStrictEqual(records.map((r) => r.connectionReused), Array(8).fill(false));
    });
  }
});

Deno.test("fault: a request the server read before closing or resetting is one error record, never resent", async () => {
  for (const fault of ["read-then-close", "read-then-reset"] as const) {
    await withServer({ script: script("ok", fault) }, async (server) => {
      const records = await run(server, { requests: 6 });
      deepStrictEqual(records.map(classOf), Array(3).fill(["ok", "ConnectionResetError"]).flat(), fault);
      deepStrictEqual(server.received, 6, `${fault}: every request reached the server once`);
      deepStrictEqual(records.map((r) => r.connectionRetries ?? 0), Array(6).fill(0));
      match(records[1].error!.message, /before any response byte/);
    });
  }
});

Deno.test("fault: a stream of keep-alive comments alone is a stall: only events with data count as progress", async () => {
  await withServer({ script: script("comments-only"), dripMs: 10 }, async (server) => {
    const client = new HttpClient(parseTarget(`http://127.0.0.1:${server.port}`));
    const detector = new StallDetector(150);
    try {
      const pending = run(server, { requests: 1, timeoutMs: 1500 }, client);
      await new Promise((r) => setTimeout(r, 50));
      deepStrictEqual(detector.check(performance.now(), [client.activity()]), [], "the head is progress");
      await new Promise((r) => setTimeout(r, 250));
      const notices = detector.check(performance.now(), [client.activity()]);
      deepStrictEqual(notices.length, 1, "comments kept arriving, but no data");
      match(notices[0], /No response data from .* 1 request in flight \(1 reading the response body\)/);
      deepStrictEqual((await pending).map(classOf), ["TimeoutError"]);
    } finally {
      client.close();
    }
  });
});

Deno.test("fault: a 200 with usage but no content is UsageOnlyResponseError, never a success with 0 tokens", async () => {
  await withServer({ script: script("usage-only", "usage-only-json") }, async (server) => {
    const streamed = await run(server, { requests: 1 });
    const plain = await run(server, { requests: 1, streaming: false });
    for (const r of [...streamed, ...plain]) {
      deepStrictEqual([classOf(r), r.status, r.content], ["UsageOnlyResponseError", 200, ""]);
      match(r.error!.message, /only a usage report \(completion_tokens 10\)/);
    }
  });
});

Deno.test("fault: negative, huge, 309-digit and non-numeric usage values are InvalidUsageError, never recorded as numbers", async () => {
  const badUsage = ["-5", "1e308", "9".repeat(309), '"10"', "2.5"];
  await withServer({ script: script("bad-usage"), badUsage }, async (server) => {
    const records = await run(server, { requests: badUsage.length });
    deepStrictEqual(records.map(classOf), Array(badUsage.length).fill("InvalidUsageError"));
    const said = ["-5", "1e\\+308", "a number too large for a double", "not a number", "2\\.5"];
    records.forEach((r, i) => {
      match(r.error!.message, new RegExp(`usage\\.completion_tokens = ${said[i]} `));
      // The valid counts stay; the bad one is gone.
      deepStrictEqual(r.usage, { promptTokens: 5, totalTokens: 7 });
    });
  });
});
