/**
 * Turns the `--url` value into a {@linkcode Target}: where to connect, what to put in `Host`, and the path prefix
 * every request path starts with.
 */
import { redactUrl as redact } from "../base/redact_secrets.ts";
import type { Target } from "./http_exchange.ts";

/** `scheme://` at the start of the input; without it we assume `http://` (AIPerf accepts `localhost:8000`). */
const SCHEME_RE = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//;
/** `word:` not followed by a port digit: a scheme with a missing or broken `//`. */
const MALFORMED_SCHEME_RE = /^([a-zA-Z][a-zA-Z0-9+.-]*):(?!\d)/;
const DEFAULT_PORTS = { http: 80, https: 443 } as const;

/**
 * Parses a server URL such as `localhost:8000`, `http://host:8000/proxy`, `https://[::1]/v1` or
 * `http://user:pass@host`.
 *
 * - No scheme means `http://`; only `http` and `https` are accepted. Default ports are 80 and 443.
 * - IPv6 literals keep their brackets in `hostHeader` and lose them in `hostname` (what `Deno.connect` wants).
 * - The path becomes `basePath` without trailing slashes (`/` → ``); a query string or fragment is rejected
 *   because it cannot be combined with the endpoint path appended after it.
 * - User info never appears in `hostHeader`/`basePath`: it is returned as a ready `Basic` credential in
 *   `authorization` (a secret: never log it).
 *
 * @throws {TypeError} when the value is not a usable http(s) URL; the message names the value and the fix.
 */
export function parseTarget(url: string): Target {
  const input = url.trim();
  if (input === "") {
    throw new TypeError(`Server URL "${url}" is empty; pass one such as http://localhost:8000.`);
  }
  const schemeMatch = SCHEME_RE.exec(input);
  if (schemeMatch === null) {
    // `htp:/127.0.0.1` or `http:/host`: a scheme followed by something other than a port would otherwise be read
    // as a host name (`htp`) and looked up.
    const malformed = MALFORMED_SCHEME_RE.exec(input);
    if (malformed !== null) {
      throw new TypeError(
        `Server URL "${redact(input)}" starts with "${malformed[1]}:" but not "${
          malformed[1]
        }://"; write it as http://host:port or host:port.`,
      );
    }
  }
  const scheme = schemeMatch === null ? "http" : schemeMatch[1].toLowerCase();
  if (scheme !== "http" && scheme !== "https") {
    throw new TypeError(
      `Server URL "${redact(input)}" uses unsupported scheme "${scheme}"; use http:// or https://.`,
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(schemeMatch === null ? `http://${input}` : input);
  } catch {
    throw new TypeError(
      `Server URL "${redact(input)}" is not a valid URL; use the form http://host:port/optional-base-path.`,
    );
  }
  if (parsed.hostname === "") {
    throw new TypeError(`Server URL "${redact(input)}" has no host; use the form http://host:port.`);
  }
  if (parsed.search !== "" || parsed.hash !== "" || input.endsWith("?") || input.endsWith("#")) {
    throw new TypeError(
      `Server URL "${redact(input)}" has a query string or fragment; give only scheme://host:port/base-path.`,
    );
  }
  const port = parsed.port === "" ? DEFAULT_PORTS[scheme] : Number(parsed.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new TypeError(`Server URL "${redact(input)}" has port ${parsed.port}; use a port from 1 to 65535.`);
  }
  // URL keeps IPv6 brackets in `hostname`; sockets want the bare address, the Host header wants the brackets.
  const bracketed = parsed.hostname.startsWith("[");
  const hostname = bracketed ? parsed.hostname.slice(1, -1) : parsed.hostname;
  // `URL.host` already omits the default port and keeps brackets, exactly the Host header form (RFC 9110 §7.2).
  const hostHeader = parsed.host;
  const basePath = parsed.pathname.replace(/\/+$/, "");
  const authorization = basicAuthorization(parsed, input);
  const target: Target = authorization === undefined
    ? { scheme, hostname, port, hostHeader, basePath }
    : { scheme, hostname, port, hostHeader, basePath, authorization };
  return target;
}

/** `Basic base64(user:pass)` from the URL's percent-encoded user info (RFC 7617), or undefined when there is none. */
function basicAuthorization(parsed: URL, input: string): string | undefined {
  if (parsed.username === "" && parsed.password === "") return undefined;
  let user: string;
  let password: string;
  try {
    user = decodeURIComponent(parsed.username);
    password = decodeURIComponent(parsed.password);
  } catch {
    throw new TypeError(
      `Server URL "${redact(input)}" has badly percent-encoded credentials; encode special characters as %XX.`,
    );
  }
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return `Basic ${btoa(binary)}`;
}
