/**
 * Test helper: a raw-TCP HTTP/1.1 server on loopback whose responses are written byte by byte by each test, so
 * tests control framing, timing and connection closes exactly.
 */

export interface RawRequest {
  readonly method: string;
  readonly path: string;
  /** Lower-cased names. */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One accepted connection with a buffered request reader. */
export class RawConnection {
  readonly conn: Deno.Conn;
  #pending = new Uint8Array(0);
  #closed = false;

  constructor(conn: Deno.Conn) {
    this.conn = conn;
  }

  /** The next request, or undefined when the client closed the connection (or it failed). */
  async readRequest(): Promise<RawRequest | undefined> {
    let headEnd = indexOfHeadEnd(this.#pending);
    while (headEnd < 0) {
      if (!(await this.#fill())) return undefined;
      headEnd = indexOfHeadEnd(this.#pending);
    }
    const lines = decoder.decode(this.#pending.subarray(0, headEnd)).split("\r\n");
    const [method, path] = lines[0].split(" ");
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const length = Number(headers.get("content-length") ?? "0");
    const total = headEnd + 4 + length;
    while (this.#pending.length < total) {
      if (!(await this.#fill())) return undefined;
    }
    const body = this.#pending.slice(headEnd + 4, total);
    this.#pending = this.#pending.slice(total);
    return { method, path, headers, body };
  }

  /** Writes all of `data`; false when the client is gone. */
  async write(data: string | Uint8Array): Promise<boolean> {
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    try {
      let off = 0;
      while (off < bytes.length) off += await this.conn.write(bytes.subarray(off));
      return true;
    } catch {
      return false;
    }
  }

  /** Resolves when the client closes its side (or the connection fails). */
  async waitForClose(): Promise<void> {
    while (await this.#fill()) {
      // Discard anything more the client sends.
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.conn.close();
    } catch {
      // Already closed.
    }
  }

  async #fill(): Promise<boolean> {
    const chunk = new Uint8Array(16 * 1024);
    let n: number | null;
    try {
      n = await this.conn.read(chunk);
    } catch {
      return false;
    }
    if (n === null) return false;
    const next = new Uint8Array(this.#pending.length + n);
    next.set(this.#pending);
    next.set(chunk.subarray(0, n), this.#pending.length);
    this.#pending = next;
    return true;
  }
}

export interface RawServer {
  readonly port: number;
  readonly hostname: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Local addresses the accepted connections arrived on. */
  readonly localAddresses: readonly string[];
  /** Stops listening, closes every connection and waits for every handler to finish. */
  close(): Promise<void>;
}

export type RawHandler = (conn: RawConnection, index: number) => Promise<void>;

/** Listens on `hostname` (default 127.0.0.1), port `port` (default: any free one), running `handle` per connection. */
export function startRawServer(handle: RawHandler, hostname = "127.0.0.1", port = 0): RawServer {
  const listener = Deno.listen({ hostname, port, transport: "tcp" });
  return serveListener(listener, handle);
}

/** Runs `handle` for every connection `listener` accepts (plain TCP or TLS). */
export function serveListener(listener: Deno.Listener, handle: RawHandler): RawServer {
  const conns: RawConnection[] = [];
  const handlers: Promise<void>[] = [];
  const localAddresses: string[] = [];
  const loop = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return;
      }
      const raw = new RawConnection(conn);
      localAddresses.push((conn.localAddr as Deno.NetAddr).hostname);
      conns.push(raw);
      const index = conns.length - 1;
      handlers.push(handle(raw, index).catch(() => {}).finally(() => raw.close()));
    }
  })();
  const addr = listener.addr as Deno.NetAddr;
  return {
    port: addr.port,
    hostname: addr.hostname,
    get accepted() {
      return conns.length;
    },
    localAddresses,
    async close() {
      try {
        listener.close();
      } catch {
        // Already closed.
      }
      await loop;
      for (const c of conns) c.close();
      await Promise.all(handlers);
    },
  };
}

function indexOfHeadEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) return i;
  }
  return -1;
}

/** A response head + Content-Length body. */
export function lengthResponse(status: number, body: string, extraHeaders = ""): string {
  const bytes = encoder.encode(body).length;
  return `HTTP/1.1 ${status} X\r\nContent-Type: text/plain\r\n${extraHeaders}Content-Length: ${bytes}\r\n\r\n${body}`;
}

/** One HTTP chunk holding `text`. */
export function chunk(text: string): string {
  return `${encoder.encode(text).length.toString(16)}\r\n${text}\r\n`;
}

export const SSE_HEAD = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
