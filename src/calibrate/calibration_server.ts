/**
 * The reference server of `infermeter calibrate`: a minimal HTTP/1.1 server on raw TCP that streams chat
 * completion chunks on a precise, known schedule and remembers WHEN it wrote each one.
 *
 * Why not serve-sim: to measure what the client adds, the server's own delay between "this token is sent" and
 * "the bytes are in the kernel" must be as small as possible. Here each event's time is stamped immediately
 * before `conn.write()` of exactly that event (one chunked-encoding chunk per event), with no framework or
 * stream pump in between. Times are epoch ms (`performance.timeOrigin + performance.now()`); `GET /clock`
 * lets the client estimate the offset between the two processes' clocks.
 *
 * The instant each request ARRIVED is kept too: stamped right after the `read()` that brought its first bytes,
 * so a client's send path (the work between its start stamp and its `write()`) is measured as well as its
 * receive path.
 *
 * Routes: `POST <any>` (streams `max_completion_tokens` / `max_tokens` single-token words: TTFT, then ITL
 * apart), `GET /clock`, `GET /calibration/sent` (returns and forgets {@linkcode CalibrationLog}).
 */
import { SeededRandom } from "../base/seeded_random.ts";
import { StreamScheduler } from "../sim/stream_scheduler.ts";
import { IoYield } from "../runtime/io_yield.ts";
import { WordSource } from "../sim/word_source.ts";

export interface CalibrationServerOptions {
  /** @default "127.0.0.1" */
  readonly hostname?: string;
  /** 0 = ephemeral. @default 0 */
  readonly port?: number;
  /** Time to first token, ms. */
  readonly ttftMs: number;
  /** Time between tokens, ms. */
  readonly itlMs: number;
}

/** What the server observed, per `x-request-id`: epoch ms of the request's arrival and of each token's write. */
export interface CalibrationLog {
  readonly received: Record<string, number>;
  readonly writes: Record<string, number[]>;
}

export interface CalibrationServer {
  readonly port: number;
  readonly url: string;
  close(): void;
}

const encoder = new TextEncoder();
const HEAD_END = encoder.encode("\r\n\r\n");

function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

export function startCalibrationServer(opts: CalibrationServerOptions): CalibrationServer {
  const hostname = opts.hostname ?? "127.0.0.1";
  const listener = Deno.listen({ hostname, port: opts.port ?? 0 });
  // Requests must keep being read (and stamped) while the scheduler's timer polls: see runtime/io_yield.ts.
  const io = new IoYield();
  const scheduler = new StreamScheduler(undefined, { yieldToIo: io.wait });
  const sent = new Map<string, number[]>();
  const received = new Map<string, number>();
  const words = new WordSource(new SeededRandom(7));
  const conns = new Set<Deno.Conn>();

  (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      conn.setNoDelay(true);
      serveConnection(conn).catch(() => {}).finally(() => {
        conns.delete(conn);
        try {
          conn.close();
        } catch {
          // already closed
        }
      });
    }
  })().catch(() => {});

  /**
   * Reading never waits for a response: a read is always posted, so each request is stamped when its bytes
   * arrive, not when this server gets round to it (back-to-back requests come while the previous response's
   * last write is still being completed). Responses go out one after another, in request order.
   */
  async function serveConnection(conn: Deno.Conn): Promise<void> {
    let buf: Uint8Array = new Uint8Array(0);
    const chunk = new Uint8Array(64 * 1024);
    /** When the first bytes of the request at the front of `buf` were read. */
    let arrivedAt = 0;
    let responding: Promise<void> = Promise.resolve();
    for (;;) {
      const n = await conn.read(chunk);
      if (n === null) break;
      const t = epochNow();
      if (buf.length === 0) arrivedAt = t;
      buf = concat(buf, chunk.subarray(0, n));
      // Stamp first, work later: reads that completed in the same event-loop turn on other connections resume
      // before this microtask, so a burst of requests is stamped before any of them is parsed or answered.
      await Promise.resolve();
      for (let request = takeRequest(buf); request !== undefined; request = takeRequest(buf)) {
        buf = request.rest;
        const req = request;
        if (req.method === "GET") {
          responding = responding.then(() =>
            respondJson(
              conn,
              req.path === "/clock" ? { t: epochNow() } : req.path === "/calibration/sent" ? takeSent() : {},
            )
          );
        } else {
          const id = req.headers.get("x-request-id") ?? crypto.randomUUID();
          received.set(id, arrivedAt);
          responding = responding.then(() => stream(conn, id, tokensRequested(req.body)));
        }
        // A failed write ends this connection's responses, never the process (no unhandled rejection).
        responding = responding.catch(() => {});
        // Bytes of a pipelined next request came with this read.
        arrivedAt = t;
      }
    }
    await responding;
  }

  function takeSent(): CalibrationLog {
    const out = { received: Object.fromEntries(received), writes: Object.fromEntries(sent) };
    sent.clear();
    received.clear();
    return out;
  }

  /** Streams `n` tokens on the absolute schedule start + ttft + k·itl; resolves after the final chunk. */
  function stream(conn: Deno.Conn, id: string, n: number): Promise<void> {
    const times: number[] = [];
    sent.set(id, times);
    const start = performance.now();
    const head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n" +
      "Connection: keep-alive\r\n\r\n";
    let writes = writeAll(conn, encoder.encode(head));
    let k = 0;
    return new Promise((resolve) => {
      scheduler.add({
        run: (horizon) => {
          while (k < n && start + opts.ttftMs + k * opts.itlMs <= horizon) {
            const data = `data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":${
              JSON.stringify(words.take(1))
            }}}]}\n\n`;
            const bytes = encoder.encode(`${data.length.toString(16)}\r\n${data}\r\n`);
            writes = writes.then(() => {
              // Stamped immediately before the write; a small chunk lands in the kernel within that call.
              times.push(epochNow());
              return writeAll(conn, bytes);
            });
            k++;
          }
          if (k < n) return start + opts.ttftMs + k * opts.itlMs;
          const done = "data: [DONE]\n\n";
          writes = writes.then(() =>
            writeAll(conn, encoder.encode(`${done.length.toString(16)}\r\n${done}\r\n0\r\n\r\n`))
          );
          writes.then(() => resolve(), () => resolve());
          return undefined;
        },
        abort: () => resolve(),
      }, start + opts.ttftMs);
    });
  }

  return {
    port: (listener.addr as Deno.NetAddr).port,
    url: `http://${hostname}:${(listener.addr as Deno.NetAddr).port}`,
    close() {
      scheduler.abortAll();
      io.close();
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch {
          // already closed
        }
      }
    },
  };
}

interface ParsedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Map<string, string>;
  readonly body: string;
  /** Bytes after this request. */
  readonly rest: Uint8Array;
}

/** The first complete request in `buf`, or undefined while its head or body is still incomplete. */
function takeRequest(buf: Uint8Array): ParsedRequest | undefined {
  const head = indexOf(buf, HEAD_END);
  if (head < 0) return undefined;
  const [requestLine, ...headerLines] = new TextDecoder().decode(buf.subarray(0, head)).split("\r\n");
  const headers = new Map<string, string>();
  for (const line of headerLines) {
    const i = line.indexOf(":");
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  const end = head + 4 + Number(headers.get("content-length") ?? "0");
  if (buf.length < end) return undefined;
  const [method, path] = requestLine.split(" ");
  return { method, path, headers, body: new TextDecoder().decode(buf.subarray(head + 4, end)), rest: buf.slice(end) };
}

function tokensRequested(body: string): number {
  try {
    const json = JSON.parse(body);
    const n = json.max_completion_tokens ?? json.max_tokens;
    return typeof n === "number" && n > 0 ? Math.floor(n) : 16;
  } catch {
    return 16;
  }
}

async function respondJson(conn: Deno.Conn, value: unknown): Promise<void> {
  const body = encoder.encode(JSON.stringify(value));
  const head = encoder.encode(
    `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  await writeAll(conn, concat(head, body));
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) off += await conn.write(bytes.subarray(off));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
