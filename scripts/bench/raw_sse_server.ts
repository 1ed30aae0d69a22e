/**
 * Zero-latency raw-TCP SSE server for the transport micro-benchmark and the `--workers` scaling bench: every request on a keep-alive connection is
 * answered at once with a precomputed stream of `--events` OpenAI-style chunks and `data: [DONE]`. It does no
 * HTTP work beyond finding the end of each request head, so the client side is what gets measured.
 *
 *   deno run -A scripts/bench/raw_sse_server.ts [--port 0] [--events 100] [--framing chunked|length]
 *                                               [--chunking per-event|single] [--content sse|json]
 *
 * `--content json` answers with one small non-streaming chat completion (Content-Length) instead.
 *
 * Prints `listening <port>` on stdout once ready. Loopback only (127.0.0.1).
 */

const EVENT = 'data: {"choices":[{"delta":{"content":" tok"}}]}\n\n';
const DONE = "data: [DONE]\n\n";
const JSON_BODY = JSON.stringify({
  object: "chat.completion",
  choices: [{ index: 0, message: { role: "assistant", content: "tok tok tok" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 8, completion_tokens: 3, total_tokens: 11 },
});

interface ServerOptions {
  readonly port: number;
  readonly events: number;
  readonly framing: "chunked" | "length";
  readonly chunking: "per-event" | "single";
  readonly content?: "sse" | "json";
}

function parseArgs(args: readonly string[]): ServerOptions {
  const get = (name: string, fallback: string): string => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 && at + 1 < args.length ? args[at + 1] : fallback;
  };
  const framing = get("framing", "chunked");
  const chunking = get("chunking", "per-event");
  if (framing !== "chunked" && framing !== "length") {
    throw new TypeError(`--framing ${framing}: use chunked or length.`);
  }
  if (chunking !== "per-event" && chunking !== "single") {
    throw new TypeError(`--chunking ${chunking}: use per-event or single.`);
  }
  const content = get("content", "sse");
  if (content !== "sse" && content !== "json") throw new TypeError(`--content ${content}: use sse or json.`);
  return { port: Number(get("port", "0")), events: Number(get("events", "100")), framing, chunking, content };
}

/** The full response, built once: the server then only writes these bytes per request. */
export function buildResponse(options: ServerOptions): Uint8Array {
  const enc = new TextEncoder();
  if (options.content === "json") {
    const body = JSON_BODY;
    return enc.encode(
      `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
  }
  const events = [...Array.from({ length: options.events }, () => EVENT), DONE];
  const head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n";
  if (options.framing === "length") {
    const body = events.join("");
    return enc.encode(`${head}Content-Length: ${enc.encode(body).length}\r\n\r\n${body}`);
  }
  const pieces = options.chunking === "single" ? [events.join("")] : events;
  const chunks = pieces.map((p) => `${enc.encode(p).length.toString(16)}\r\n${p}\r\n`).join("");
  return enc.encode(`${head}Transfer-Encoding: chunked\r\n\r\n${chunks}0\r\n\r\n`);
}

/** Counts complete request heads (CRLFCRLF) in the bytes read; `state` carries a partial terminator over. */
function countHeads(buf: Uint8Array, n: number, state: { matched: number }): number {
  let heads = 0;
  let m = state.matched;
  for (let i = 0; i < n; i++) {
    const b = buf[i];
    if (b === (m % 2 === 0 ? 13 : 10)) {
      m++;
      if (m === 4) {
        heads++;
        m = 0;
      }
    } else {
      m = b === 13 ? 1 : 0;
    }
  }
  state.matched = m;
  return heads;
}

async function serveConnection(conn: Deno.Conn, response: Uint8Array): Promise<void> {
  const buf = new Uint8Array(64 * 1024);
  const state = { matched: 0 };
  try {
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) return;
      // Every head is one request: the transport bench sends bodiless GETs, and the JSON bodies of `profile`'s
      // POSTs (workers_scaling.ts) hold no blank line.
      for (let heads = countHeads(buf, n, state); heads > 0; heads--) {
        let off = 0;
        while (off < response.length) off += await conn.write(response.subarray(off));
      }
    }
  } catch {
    // Client went away mid-write: nothing to clean up beyond the close below.
  } finally {
    try {
      conn.close();
    } catch {
      // Already closed.
    }
  }
}

if (import.meta.main) {
  const options = parseArgs(Deno.args);
  const response = buildResponse(options);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: options.port });
  console.log(`listening ${(listener.addr as Deno.NetAddr).port}`);
  for await (const conn of listener) {
    conn.setNoDelay(true);
    serveConnection(conn, response);
  }
}
