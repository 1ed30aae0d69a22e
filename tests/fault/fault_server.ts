/**
 * A scripted misbehaving HTTP/1.1 server on raw sockets (loopback only), for tests that prove every request ends
 * in exactly one record of the right class. Each request is answered according to `script(n)` (`n`: 0-based
 * request number across all connections); the server counts the requests it actually received, so tests can
 * compare records with what reached the server.
 */

const enc = new TextEncoder();

/** How one request is answered. */
export type Fault =
  /** A good streamed chat answer (`[DONE]`, then the chunked body ends). */
  | "ok"
  /** A good non-streamed chat completion. */
  | "ok-json"
  /** Streams two events, then closes the connection (FIN). */
  | "fin-mid-stream"
  /** Streams two events, then resets the connection (RST: closed with unread request bytes). */
  | "rst-mid-stream"
  /** Answers well, then, once the connection idles for `idleMs`, sends an unsolicited 408 and closes. */
  | "idle-408"
  /** Answers well, then closes the connection once it idles for `idleMs`. */
  | "idle-close"
  /** Reads the request and never answers. */
  | "never-answer"
  /** A good streamed answer written one byte at a time, `dripMs` apart. */
  | "drip"
  /** A good streamed answer, gzip-encoded. */
  | "gzip"
  /** A good non-streamed answer, gzip-encoded. */
  | "gzip-json"
  /** 200 JSON of the wrong shape (`{"result": …}`). */
  | "wrong-shape"
  /** 200 JSON with an empty `choices` array. */
  | "empty-choices"
  /** 200 JSON whose message content is null. */
  | "content-null"
  /** A good streamed answer whose `[DONE]` is sent but whose chunked body never ends. */
  | "done-open"
  /** One SSE line that never ends, `hugeBytes` long. */
  | "huge-line"
  /** A response head with a `hugeBytes` header. */
  | "huge-header"
  /** A non-streamed 200 whose chunked JSON body never ends (1 MiB chunks until the client goes away). */
  | "endless-json"
  /** A non-streamed 200 whose gzip body decodes to `hugeBytes` of JSON (a decompression bomb). */
  | "gzip-bomb"
  /**
   * Answers well; the next request on the connection meets the server's idle timeout as it arrives: the server
   * sees its first byte only, answers `408` and closes (that request is not counted as received).
   */
  | "race-408"
  /** Answers well, then sends the same answer again, unasked, `doubleGapMs` later. */
  | "double-answer"
  /** A streamed 200 that sends only `: keep-alive` comments, one every `dripMs` (10 ms if 0), until the client goes. */
  | "comments-only"
  /** A streamed 200 with no text at all, only `usage.completion_tokens: 10`, then `[DONE]`. */
  | "usage-only"
  /** A non-streamed 200 with no text, only usage. */
  | "usage-only-json"
  /** A good streamed answer whose usage says `completion_tokens: <badUsage>` (raw JSON text). */
  | "bad-usage"
  /** A streamed answer of `hugeBytes` of text, in events of 64 bytes of content each. */
  | "huge-answer"
  /** An HTTP 500 with an OpenAI-style error body. */
  | "http-500"
  /** Reads the request and closes the connection without answering (FIN). */
  | "read-then-close"
  /** Reads the request head, leaves its body unread and closes without answering (RST). */
  | "read-then-reset";

export interface FaultServerOptions {
  readonly script: (n: number) => Fault;
  /** Idle time before `idle-408` / `idle-close` act. @default {20} */
  readonly idleMs?: number;
  /** Pause between dripped bytes (0: one write per byte, no pause). @default {0} */
  readonly dripMs?: number;
  /** @default {40 MiB} */
  readonly hugeBytes?: number;
  /** The JSON text of `bad-usage`'s `completion_tokens` (one per request, in turn). @default {["-5"]} */
  readonly badUsage?: readonly string[];
  /** Pause between a `double-answer` answer and its copy. @default {0} */
  readonly doubleGapMs?: number;
  /** Listen but never accept (connections complete in the kernel's backlog, nothing is read). */
  readonly neverAccept?: boolean;
}

export interface FaultServer {
  readonly port: number;
  /** Idle connections an `idle-408` / `idle-close` answer closed; copies a `double-answer` sent. */
  readonly idleClosed: number;
  readonly copiesSent: number;
  /** Body bytes written by `endless-json` answers before the client went away. */
  readonly endlessBytes: number;
  /** Requests whose head the server read. */
  readonly received: number;
  /** Connections accepted. */
  readonly accepted: number;
  close(): Promise<void>;
}

const EVENTS = [
  '{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hello"}}]}',
  '{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" world"}}]}',
  '{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],' +
  '"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}',
];
const SSE_HEAD = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n";
const JSON_OK = JSON.stringify({
  object: "chat.completion",
  choices: [{ index: 0, message: { role: "assistant", content: "Hello world" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
});

function chunk(bytes: Uint8Array): Uint8Array {
  const head = enc.encode(`${bytes.length.toString(16)}\r\n`);
  const out = new Uint8Array(head.length + bytes.length + 2);
  out.set(head);
  out.set(bytes, head.length);
  out.set([13, 10], head.length + bytes.length);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

function sseEvents(done = true): Uint8Array[] {
  const events = EVENTS.map((e) => enc.encode(`data: ${e}\n\n`));
  if (done) events.push(enc.encode("data: [DONE]\n\n"));
  return events;
}

function json(body: string, status = 200): Uint8Array {
  return enc.encode(
    `HTTP/1.1 ${status} X\r\nContent-Type: application/json\r\nContent-Length: ${
      enc.encode(body).length
    }\r\n\r\n${body}`,
  );
}

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function startFaultServer(options: FaultServerOptions): FaultServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  const handlers: Promise<void>[] = [];
  let received = 0;
  let accepted = 0;
  let endlessBytes = 0;
  let idleClosed = 0;
  let copiesSent = 0;
  let badUsageSent = 0;
  let closed = false;
  const idleMs = options.idleMs ?? 20;

  async function write(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
    let off = 0;
    while (off < bytes.length) off += await conn.write(bytes.subarray(off));
  }

  /**
   * Reads one request head + Content-Length body: `"post"` for an inference request, `"get"` for a probe (the
   * client's server checks: answered 404 and not counted), false at end of stream.
   */
  async function readRequest(conn: Deno.Conn, state: { pending: Uint8Array }): Promise<"post" | "get" | false> {
    for (;;) {
      const text = new TextDecoder().decode(state.pending);
      const end = text.indexOf("\r\n\r\n");
      if (end >= 0) {
        const length = Number(/content-length:\s*(\d+)/i.exec(text.slice(0, end))?.[1] ?? "0");
        if (state.pending.length >= end + 4 + length) {
          state.pending = state.pending.slice(end + 4 + length);
          return text.startsWith("GET ") ? "get" : "post";
        }
      }
      const buf = new Uint8Array(64 * 1024);
      const n = await conn.read(buf);
      if (n === null) return false;
      state.pending = concat([state.pending, buf.subarray(0, n)]);
    }
  }

  async function answer(conn: Deno.Conn, fault: Fault): Promise<"keep" | "closed"> {
    switch (fault) {
      case "ok":
      case "idle-408":
      case "idle-close":
        await write(conn, concat([enc.encode(SSE_HEAD + "\r\n"), ...sseEvents().map(chunk), enc.encode("0\r\n\r\n")]));
        return "keep";
      case "ok-json":
        await write(conn, json(JSON_OK));
        return "keep";
      case "fin-mid-stream":
        await write(conn, concat([enc.encode(SSE_HEAD + "\r\n"), ...sseEvents().slice(0, 2).map(chunk)]));
        await delay(5);
        conn.close();
        return "closed";
      case "rst-mid-stream":
        throw new Error("handled before the request is read");
      case "never-answer":
        await new Promise<void>((resolve) => {
          const wait = async () => {
            try {
              while ((await conn.read(new Uint8Array(1024))) !== null) { /* discard */ }
            } catch { /* reset */ }
            resolve();
          };
          wait();
        });
        return "closed";
      case "drip": {
        const bytes = concat([enc.encode(SSE_HEAD + "\r\n"), ...sseEvents().map(chunk), enc.encode("0\r\n\r\n")]);
        for (let i = 0; i < bytes.length; i++) {
          await write(conn, bytes.subarray(i, i + 1));
          if ((options.dripMs ?? 0) > 0) await delay(options.dripMs!);
        }
        return "keep";
      }
      case "gzip": {
        const body = await gzip(concat(sseEvents()));
        const head = enc.encode(SSE_HEAD + "Content-Encoding: gzip\r\n\r\n");
        await write(
          conn,
          concat([head, chunk(body.subarray(0, 10)), chunk(body.subarray(10)), enc.encode("0\r\n\r\n")]),
        );
        return "keep";
      }
      case "gzip-json": {
        const body = await gzip(enc.encode(JSON_OK));
        const head =
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${body.length}\r\n\r\n`;
        await write(conn, concat([enc.encode(head), body]));
        return "keep";
      }
      case "wrong-shape":
        await write(conn, json(JSON.stringify({ result: "Hello world" })));
        return "keep";
      case "empty-choices":
        await write(conn, json(JSON.stringify({ object: "chat.completion", choices: [] })));
        return "keep";
      case "content-null":
        await write(
          conn,
          json(JSON.stringify({ object: "chat.completion", choices: [{ index: 0, message: { content: null } }] })),
        );
        return "keep";
      case "done-open":
        await write(conn, concat([enc.encode(SSE_HEAD + "\r\n"), ...sseEvents().map(chunk)]));
        return "keep-open" as "keep";
      case "huge-line": {
        await write(conn, enc.encode(SSE_HEAD + "\r\n"));
        const piece = enc.encode("x".repeat(1024 * 1024));
        await write(conn, chunk(enc.encode("data: ")));
        for (let sent = 0; sent < (options.hugeBytes ?? 40 * 1024 * 1024); sent += piece.length) {
          await write(conn, chunk(piece));
        }
        await write(conn, enc.encode("0\r\n\r\n"));
        return "keep";
      }
      case "endless-json": {
        await write(
          conn,
          enc.encode("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"),
        );
        const piece = chunk(enc.encode(`{"text":"${"x".repeat(1024 * 1024)}`));
        for (;;) {
          await write(conn, piece); // throws once the client has closed the connection
          endlessBytes += piece.length;
        }
      }
      case "gzip-bomb": {
        const text = enc.encode(`{"choices":[{"message":{"content":"${"x".repeat(options.hugeBytes ?? 1 << 26)}"}}]}`);
        const body = await gzip(text);
        const head =
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${body.length}\r\n\r\n`;
        await write(conn, concat([enc.encode(head), body]));
        return "keep";
      }
      case "race-408":
        await write(conn, concat([enc.encode(SSE_HEAD + "\r\n"), ...sseEvents().map(chunk), enc.encode("0\r\n\r\n")]));
        return "keep";
      case "double-answer": {
        const answer = concat([enc.encode(SSE_HEAD + "\r\n"), ...sseEvents().map(chunk), enc.encode("0\r\n\r\n")]);
        await write(conn, answer);
        await delay(options.doubleGapMs ?? 0);
        await write(conn, answer);
        copiesSent++;
        return "keep";
      }
      case "comments-only": {
        await write(conn, enc.encode(SSE_HEAD + "\r\n"));
        const comment = chunk(enc.encode(": keep-alive\n\n"));
        for (;;) {
          await write(conn, comment); // throws once the client has closed the connection
          await delay(options.dripMs || 10);
        }
      }
      case "bad-usage": {
        const values = options.badUsage ?? ["-5"];
        const value = values[badUsageSent++ % values.length];
        const events = [
          ...EVENTS.slice(0, 2),
          EVENTS[2].replace('"completion_tokens":2', `"completion_tokens":${value}`),
        ]
          .map((e) => chunk(enc.encode(`data: ${e}\n\n`)));
        await write(conn, concat([enc.encode(SSE_HEAD + "\r\n"), ...events, enc.encode("0\r\n\r\n")]));
        return "keep";
      }
      case "usage-only": {
        const usage = '{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],' +
          '"usage":{"prompt_tokens":5,"completion_tokens":10,"total_tokens":15}}';
        const events = [`data: ${usage}\n\n`, "data: [DONE]\n\n"].map((e) => chunk(enc.encode(e)));
        await write(conn, concat([enc.encode(SSE_HEAD + "\r\n"), ...events, enc.encode("0\r\n\r\n")]));
        return "keep";
      }
      case "usage-only-json":
        await write(
          conn,
          json(JSON.stringify({
            object: "chat.completion",
            choices: [{ index: 0, message: { role: "assistant", content: "" }, finish_reason: "stop" }],
            usage: { prompt_tokens: 5, completion_tokens: 10, total_tokens: 15 },
          })),
        );
        return "keep";
      case "huge-answer": {
        await write(conn, enc.encode(SSE_HEAD + "\r\n"));
        const words = "the quick brown fox jumps over the lazy dog and keeps on running far away ";
        const event = (i: number) =>
          `data: {"choices":[{"index":0,"delta":{"content":"${(words + i).slice(0, 64).padEnd(64, ".")}"}}]}\n\n`;
        const total = options.hugeBytes ?? 40 * 1024 * 1024;
        for (let sent = 0, i = 0; sent < total;) {
          let batch = "";
          for (let k = 0; k < 1024 && sent < total; k++, i++, sent += 64) batch += event(i);
          await write(conn, chunk(enc.encode(batch)));
        }
        await write(conn, concat([chunk(enc.encode("data: [DONE]\n\n")), enc.encode("0\r\n\r\n")]));
        return "keep";
      }
      case "http-500":
        await write(conn, json('{"error":{"message":"internal error","type":"server_error"}}', 500));
        return "keep";
      case "read-then-close":
        conn.close();
        return "closed";
      case "read-then-reset":
        throw new Error("handled before the request is read");
      case "huge-header":
        await write(
          conn,
          enc.encode(`HTTP/1.1 200 OK\r\nX-Big: ${"y".repeat(options.hugeBytes ?? 1024 * 1024)}\r\n\r\n`),
        );
        return "keep";
    }
  }

  async function serve(conn: Deno.Conn): Promise<void> {
    const state: { pending: Uint8Array } = { pending: new Uint8Array(0) };
    try {
      for (;;) {
        // A reset needs request bytes left unread when the socket closes: decide before reading the request.
        if (options.script(received) === "read-then-reset") {
          const head = new Uint8Array(16);
          if ((await conn.read(head)) === null) return;
          received++;
          conn.close(); // unread request bytes → the kernel sends RST
          return;
        }
        if (options.script(received) === "rst-mid-stream") {
          const first = new Uint8Array(16);
          if ((await conn.read(first)) === null) return;
          received++;
          await write(conn, concat([enc.encode(SSE_HEAD + "\r\n"), ...sseEvents().slice(0, 2).map(chunk)]));
          await delay(5);
          conn.close(); // unread request bytes → the kernel sends RST
          return;
        }
        const kind = await readRequest(conn, state);
        if (kind === false) return;
        if (kind === "get") {
          await write(conn, json('{"error":"not found"}', 404));
          continue;
        }
        const fault = options.script(received++);
        const outcome = await answer(conn, fault);
        if (outcome === "closed") return;
        if (fault === "race-408") {
          // The next request arrives as the idle timer fires: one byte of it seen, a 408, and the connection closed.
          if ((await conn.read(new Uint8Array(1))) === null) return;
          await write(conn, json('{"error":"idle timeout"}', 408)).catch(() => {});
          conn.close();
          return;
        }
        if ((outcome as string) === "keep-open") {
          // Never end the body; the client must finish on [DONE] and may close.
          while ((await conn.read(new Uint8Array(1024))) !== null) { /* discard */ }
          return;
        }
        if (fault === "idle-408" || fault === "idle-close") {
          const buf = new Uint8Array(64 * 1024);
          const next = conn.read(buf).then((n) => {
            if (n) state.pending = concat([state.pending, buf.subarray(0, n)]);
            return n;
          }, () => null);
          const woke = await Promise.race([delay(idleMs).then(() => "idle"), next.then(() => "data")]);
          if (woke === "data" && (await next) === null) return;
          if (woke === "idle") {
            if (fault === "idle-408") {
              await write(conn, json('{"error":"idle timeout"}', 408)).catch(() => {});
            }
            conn.close();
            idleClosed++;
            return;
          }
        }
      }
    } catch {
      // The client went away: nothing to clean up beyond the close below.
    } finally {
      conns.delete(conn);
      try {
        conn.close();
      } catch { /* already closed */ }
    }
  }

  const loop = options.neverAccept ? Promise.resolve() : (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return;
      }
      accepted++;
      conns.add(conn);
      handlers.push(serve(conn));
    }
  })();

  return {
    port: (listener.addr as Deno.NetAddr).port,
    get received() {
      return received;
    },
    get accepted() {
      return accepted;
    },
    get idleClosed() {
      return idleClosed;
    },
    get copiesSent() {
      return copiesSent;
    },
    get endlessBytes() {
      return endlessBytes;
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        listener.close();
      } catch { /* already closed */ }
      await loop;
      for (const c of conns) {
        try {
          c.close();
        } catch { /* already closed */ }
      }
      await Promise.all(handlers);
    },
  };
}
