/**
 * Runs the API app on `Deno.serve` (127.0.0.1 unless told otherwise), answering only requests whose `Host` is an
 * address, localhost, the bound name or an `--api-allowed-hosts` entry (`host_check.ts`). `close()` stops accepting, lets open
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

export interface ApiServerOptions {
  /** `--api-allowed-hosts`: `Host` names answered besides addresses, localhost and `host` itself. @default [] */
  readonly allowedHosts?: readonly string[];
}

export async function startApiServer(
  host: string,
  port: number,
  provider: ApiProvider,
  options: ApiServerOptions = {},
): Promise<ApiServer> {
  const app = createApiApp(provider, { boundHost: host, allowedHosts: options.allowedHosts ?? [] });
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
