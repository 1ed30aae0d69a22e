/**
 * Before any load is sent: can we open a TCP (and TLS) connection to the server at all? An unreachable
 * server should fail in seconds with one clear sentence, not as N identical request errors or a hang.
 */
import type { Target } from "../transport/http_exchange.ts";

export interface PreflightResult {
  readonly ok: boolean;
  /** One sentence naming the address and the cause, when not ok. */
  readonly message?: string;
  readonly connectMs?: number;
}

/** `signal` (Ctrl-C) ends the wait at once, as a timeout would. */
export async function checkReachable(target: Target, timeoutMs = 5000, signal?: AbortSignal): Promise<PreflightResult> {
  const where = `${target.scheme}://${target.hostHeader}`;
  const start = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
    if (signal?.aborted) resolve("timeout");
    signal?.addEventListener("abort", () => resolve("timeout"), { once: true });
  });
  const connecting = target.scheme === "https"
    ? Deno.connectTls({ hostname: target.hostname, port: target.port }).then(async (c) => {
      await c.handshake();
      return c as Deno.Conn;
    })
    : Deno.connect({ hostname: target.hostname, port: target.port });
  try {
    const conn = await Promise.race([connecting, timeout]);
    if (conn === "timeout") {
      connecting.then((c) => c.close(), () => {});
      return { ok: false, message: failure(where, `no answer within ${timeoutMs / 1000} s`) };
    }
    conn.close();
    return { ok: true, connectMs: performance.now() - start };
  } catch (err) {
    const reason = err instanceof Deno.errors.ConnectionRefused ? "connection refused" : (err as Error).message;
    return { ok: false, message: failure(where, reason) };
  } finally {
    clearTimeout(timer);
  }
}

function failure(where: string, reason: string): string {
  return `cannot connect to ${where} (${reason}); check that the server is running and that --url is right.`;
}
