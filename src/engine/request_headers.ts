/**
 * The constant part of every request's headers, computed once per run (AIPerf §4.2): content type, accept,
 * user agent, credentials, then the user's `-H` headers, which replace defaults of the same name — except
 * Content-Type on JSON endpoints, which stays `application/json` because the body is JSON.
 */
import type { Target } from "../transport/http_exchange.ts";
import { USER_AGENT } from "../base/version.ts";

export interface HeaderOptions {
  readonly streaming: boolean;
  /** SECRET: sent as `Authorization: Bearer <key>`. */
  readonly apiKey?: string;
  readonly userHeaders: ReadonlyArray<readonly [string, string]>;
}

export function requestHeaders(target: Target, opts: HeaderOptions): ReadonlyArray<readonly [string, string]> {
  const headers = new Map<string, [string, string]>();
  const set = (name: string, value: string) => headers.set(name.toLowerCase(), [name, value]);
  set("Content-Type", "application/json");
  set("Accept", opts.streaming ? "text/event-stream" : "application/json");
  set("User-Agent", USER_AGENT);
  if (target.authorization !== undefined) set("Authorization", target.authorization);
  if (opts.apiKey !== undefined) set("Authorization", `Bearer ${opts.apiKey}`);
  for (const [name, value] of opts.userHeaders) {
    if (name.toLowerCase() === "content-type") continue;
    if (name.toLowerCase() === "host" || name.toLowerCase() === "content-length") continue; // transport owns these
    set(name, value);
  }
  return [...headers.values()];
}

/** The endpoint path (`--endpoint` overrides the adapter's default); the target's base path is added per
 * target when sending (target_set.ts). */
export function endpointPath(path: string): string {
  return path.startsWith("/") ? path : "/" + path;
}

/**
 * The path sent to one target: its base path + the endpoint path. A `--url` that already ends in `/v1`
 * (as OpenAI SDK base URLs do) with a default endpoint path would give `/v1/v1/…`; like AIPerf, the repeated
 * `/v1` is dropped then. An explicit `--endpoint` is always appended as given.
 */
export function targetPath(basePath: string, path: string, explicitEndpoint: boolean): string {
  if (!explicitEndpoint && basePath.endsWith("/v1") && path.startsWith("/v1/")) return basePath + path.slice(3);
  return basePath + path;
}
