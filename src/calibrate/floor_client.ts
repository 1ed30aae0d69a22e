/**
 * The floor of `infermeter calibrate`: the least any client on this machine and runtime can measure. A bare
 * reader on raw sockets (no HTTP parser, no SSE framing, no JSON) stamps every `read()` and counts the events
 * in it, at the same concurrency as the level it accompanies. Whatever error it shows is kernel loopback, the
 * runtime's wake-up and the reference server's write path, not infermeter.
 *
 * Runs as its own process (`calibrate --floor-client …`), pinned like the profile runs; prints
 * {@linkcode FloorLog} as JSON on stdout.
 */

/** Per `x-request-id`: epoch ms just before the request's `write()`, and of every read holding a token. */
export type FloorLog = Record<string, { sent: number; arrivals: number[] }>;

/** `urls`: one or several reference server processes, comma-separated; stream i uses url i mod n. */
export async function runFloorClient(urls: string, streams: number, seconds: number, tokens: number): Promise<void> {
  const servers = urls.split(",").map((u) => new URL(u));
  const stop = performance.now() + seconds * 1000;
  const log: FloorLog = {};
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const body = JSON.stringify({ max_tokens: tokens, stream: true });
  await Promise.all(Array.from({ length: streams }, async (_, i) => {
    const { hostname, port } = servers[i % servers.length];
    const conn = await Deno.connect({ hostname, port: Number(port) });
    conn.setNoDelay(true);
    const buf = new Uint8Array(64 * 1024);
    try {
      while (performance.now() < stop) {
        const id = crypto.randomUUID();
        const stamps: number[] = [];
        const request = encoder.encode(
          `POST /floor HTTP/1.1\r\nHost: ${hostname}\r\nX-Request-ID: ${id}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        );
        log[id] = { sent: performance.timeOrigin + performance.now(), arrivals: stamps };
        await conn.write(request);
        let tail = "";
        for (;;) {
          const n = await conn.read(buf);
          const t = performance.timeOrigin + performance.now();
          if (n === null) return;
          const text = tail + decoder.decode(buf.subarray(0, n));
          let at = text.indexOf('"content"');
          while (at >= 0) {
            stamps.push(t);
            at = text.indexOf('"content"', at + 9);
          }
          if (text.endsWith("0\r\n\r\n")) break;
          tail = text.slice(-8); // a marker split across reads is found next time, but never counted twice
          if (tail.includes('"content"')) tail = "";
        }
      }
    } finally {
      conn.close();
    }
  }));
  console.log(JSON.stringify(log));
}
