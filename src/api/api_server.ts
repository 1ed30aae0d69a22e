/**
 * Runs the API app on `Deno.serve` (127.0.0.1 unless told otherwise). `close()` stops accepting, lets open
 * responses finish briefly, then ends; it never keeps the process alive.
 */
import type { ApiProvider } from "./api_provider.ts";
import { createApiApp } from "./api_app.ts";

export interface ApiServer {
  /** `http://host:port`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startApiServer(host: string, port: number, provider: ApiProvider): Promise<ApiServer> {
  const app = createApiApp(provider);
  const listening = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve({
    hostname: host,
    port,
    onListen: (addr) => listening.resolve(addr as Deno.NetAddr),
    onError: (err) =>
      new Response(JSON.stringify({ detail: `Internal error: ${String(err)}` }), {
        status: 500,
        headers: { "content-type": "application/json" },
      }),
  }, app.fetch);
  const addr = await listening.promise;
  const shown = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shown}:${addr.port}`,
    port: addr.port,
    close: () => {
      closing ??= (async () => {
        const grace = setTimeout(() => server.shutdown(), 0);
        await server.shutdown();
        clearTimeout(grace);
        await server.finished;
      })();
      return closing;
    },
  };
}
