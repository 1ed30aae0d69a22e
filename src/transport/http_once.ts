/**
 * One request on a fresh connection of the engine's own client ({@linkcode HttpClient}), for the few requests a run
 * makes beside the benchmark's: server probes and metrics scrapes. Why not `fetch`: the first `fetch` of a process
 * blocks its thread while the runtime builds its HTTP client, which at start-up delays the first request
 * (docs/performance.md §4), and each later one costs the engine thread more than this client does. Redirects are
 * not followed.
 */
import type { Target } from "./http_exchange.ts";
import { HttpClient } from "./http_client.ts";
import { parseTarget } from "./parse_target.ts";

export interface OnceRequest {
  readonly method: "GET" | "POST";
  /** Full path including the target's base path and query. */
  readonly path: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body?: Uint8Array;
}

export interface OnceResponse {
  readonly status: number;
  /** Lower-cased names. */
  readonly headers: ReadonlyMap<string, string>;
  /** The whole body, decoded from its content encoding. */
  readonly body: Uint8Array;
}

/**
 * Most body bytes a probe or scrape answer may have: a version, model list or metrics page is far smaller, and an
 * endless answer must not fill memory before the run has begun.
 */
export const ONCE_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * Sends `request` and reads the whole answer within `timeoutMs` (or until `signal` aborts).
 * @throws {Error} saying what failed (refused, reset, timed out, cancelled, not HTTP).
 */
export async function requestOnce(
  target: Target,
  request: OnceRequest,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<OnceResponse> {
  const client = new HttpClient(target, {
    reuse: "never",
    connectTimeoutMs: timeoutMs,
    maxResponseBytes: ONCE_MAX_RESPONSE_BYTES,
  });
  try {
    const exchange = await client.send(request, { deadline: performance.now() + timeoutMs, signal });
    if (exchange.error !== undefined || exchange.status === undefined) {
      throw new Error(exchange.error?.message ?? "no response");
    }
    return { status: exchange.status, headers: exchange.headers ?? new Map(), body: exchange.body ?? new Uint8Array() };
  } finally {
    client.close();
  }
}

/** {@linkcode requestOnce} of a GET of `url` (its path and query), with `headers`. */
export function getOnce(
  url: string,
  headers: ReadonlyArray<readonly [string, string]>,
  timeoutMs: number,
): Promise<OnceResponse> {
  const parsed = new URL(url);
  const search = parsed.search;
  parsed.search = "";
  parsed.hash = "";
  // The path is sent as given (base path and query); user info becomes an Authorization header.
  const target = parseTarget(parsed.href);
  const auth: [string, string][] = target.authorization !== undefined ? [["Authorization", target.authorization]] : [];
  const path = (target.basePath === "" ? "/" : target.basePath) + search;
  return requestOnce(target, { method: "GET", path, headers: [...auth, ...headers] }, timeoutMs);
}
