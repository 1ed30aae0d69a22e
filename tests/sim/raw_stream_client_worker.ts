/**
 * Test helper run as a Worker: opens `count` HTTP/1.1 connections to the simulated server (in batches of
 * `batch`), posts one streaming request on each, reads each response to EOF and reports what came back.
 *
 * Why a Worker: the server under test must keep its own event loop free to accept connections (Deno.serve
 * listens with a backlog of 511); a client sharing that loop would overflow the accept queue by itself.
 */

export interface RawClientJob {
  readonly port: number;
  readonly count: number;
  readonly batch: number;
  readonly maxTokens: number;
}

export interface RawClientResult {
  /** Per connection: whether the status was 200, SSE `data: {` events seen, and whether `[DONE]` came. */
  readonly responses: readonly { ok: boolean; events: number; done: boolean }[];
  readonly elapsedMs: number;
}

async function rawStream(port: number, body: string): Promise<{ ok: boolean; events: number; done: boolean }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const encoder = new TextEncoder();
    const head = `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
      `content-length: ${encoder.encode(body).length}\r\nconnection: close\r\n\r\n`;
    await conn.write(encoder.encode(head + body));
    const decoder = new TextDecoder();
    const buf = new Uint8Array(65536);
    let text = "";
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += decoder.decode(buf.subarray(0, n), { stream: true });
    }
    return {
      ok: text.startsWith("HTTP/1.1 200"),
      events: text.split("data: {").length - 1,
      done: text.includes("data: [DONE]"),
    };
  } finally {
    conn.close();
  }
}

/** The worker global scope, typed locally: the `deno.worker` lib cannot be mixed into the tests' type check. */
const scope = self as unknown as {
  onmessage: ((e: MessageEvent<RawClientJob>) => void) | null;
  postMessage(value: RawClientResult): void;
  close(): void;
};

scope.onmessage = async (e: MessageEvent<RawClientJob>) => {
  const job = e.data;
  const t0 = performance.now();
  const pending: Promise<{ ok: boolean; events: number; done: boolean }>[] = [];
  for (let i = 0; i < job.count; i++) {
    const body = JSON.stringify({
      model: "sim-model",
      messages: [{ role: "user", content: `stream ${i}` }],
      max_tokens: job.maxTokens,
      stream: true,
    });
    pending.push(rawStream(job.port, body));
    if ((i + 1) % job.batch === 0) await new Promise((r) => setTimeout(r, 5));
  }
  const responses = await Promise.all(pending);
  const result: RawClientResult = { responses, elapsedMs: performance.now() - t0 };
  scope.postMessage(result);
  scope.close();
};
