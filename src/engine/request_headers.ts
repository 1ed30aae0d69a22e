/**
 * The constant part of every request's headers, computed once per run (AIPerf §4.2): the endpoint's own (content
 * type, accept, its credential header), user agent, URL user info as Basic auth when no key is given, then the user's
 * `-H` headers, which replace defaults of the same name — except Content-Type, which the endpoint's body format sets.
 */
import type { Target } from "../transport/http_exchange.ts";
import { USER_AGENT } from "../base/version.ts";

export interface HeaderOptions {
  /** The endpoint adapter's own headers (content type, accept, its credential header). */
  readonly endpointHeaders: ReadonlyArray<readonly [string, string]>;
  /** The user's `-H` headers, in order. */
  readonly userHeaders: ReadonlyArray<readonly [string, string]>;
}

export function requestHeaders(target: Target, opts: HeaderOptions): ReadonlyArray<readonly [string, string]> {
  const headers = new Map<string, [string, string]>();
  const set = (name: string, value: string) => headers.set(name.toLowerCase(), [name, value]);
  for (const [name, value] of opts.endpointHeaders) set(name, value);
  set("User-Agent", USER_AGENT);
  // URL user info is the fallback credential: an API key (in the endpoint's headers) wins.
  if (target.authorization !== undefined && !headers.has("authorization")) set("Authorization", target.authorization);
  for (const [name, value] of opts.userHeaders) {
    if (name.toLowerCase() === "content-type") continue;
    if (name.toLowerCase() === "host" || name.toLowerCase() === "content-length") continue; // transport owns these
    set(name, value);
  }
  return [...headers.values()];
}

/**
 * Which credential wins when several are given, said plainly (names only, never values): `-H Authorization`
 * replaces the `--api-key` bearer and the URL's user info, and `--api-key` replaces the URL's user info.
 */
export function credentialNotices(target: Target, opts: HeaderOptions): string[] {
  const has = (headers: HeaderOptions["userHeaders"], name: string) => headers.some(([n]) => n.toLowerCase() === name);
  const userAuth = has(opts.userHeaders, "authorization");
  const keyAuth = has(opts.endpointHeaders, "authorization");
  const urlAuth = target.authorization !== undefined;
  const notices: string[] = [];
  if (userAuth && keyAuth) notices.push("-H Authorization wins over --api-key: the --api-key value is not sent.");
  if (userAuth && urlAuth) notices.push("-H Authorization wins over the URL's user:password, which is not sent.");
  if (!userAuth && keyAuth && urlAuth) notices.push("--api-key wins over the URL's user:password, which is not sent.");
  return notices;
}

/** The endpoint path (`--endpoint` overrides the adapter's default); the target's base path is added per
 * target when sending (target_set.ts). Empty stays empty: the URL's own path is the whole path (raw endpoint). */
export function endpointPath(path: string): string {
  // "": an API without a usual path (template) sends to the URL as given.
  if (path === "") return "";
  return path.startsWith("/") ? path : "/" + path;
}

/**
 * The path sent to one target: its base path + the endpoint path. A `--url` that already ends in `/v1`
 * (as OpenAI SDK base URLs do) with a default endpoint path would give `/v1/v1/…`; like AIPerf, the repeated
 * `/v1` is dropped then. An explicit `--endpoint` is always appended as given.
 */
export function targetPath(basePath: string, path: string, explicitEndpoint: boolean): string {
  if (!explicitEndpoint && basePath.endsWith("/v1") && path.startsWith("/v1/")) return basePath + path.slice(3);
  return basePath + path || "/";
}
