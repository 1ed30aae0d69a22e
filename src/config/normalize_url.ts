/**
 * Base-URL normalization for `-u/--url`, like AIPerf: `http://` is prepended when the value has no scheme, and a
 * trailing slash is dropped so endpoint paths join cleanly.
 */

import { redactUrl } from "../base/redact_secrets.ts";

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** `localhost:8000` → `http://localhost:8000`; `https://h/` → `https://h`. Throws TypeError when not an HTTP URL. */
export function normalizeUrl(value: string): string {
  const trimmed = value.trim();
  const shown = redactUrl(trimmed);
  if (trimmed === "") throw new TypeError("The URL is empty; give a base URL such as http://localhost:8000.");
  if (!SCHEME.test(trimmed)) refuseMangledScheme(trimmed, shown);
  const withScheme = SCHEME.test(trimmed) ? trimmed : `http://${trimmed}`;
  let parsed: URL;
  try {
    parsed = new URL(withScheme);
  } catch (cause) {
    throw new TypeError(`'${shown}' is not a valid URL; give a base URL such as http://localhost:8000.`, { cause });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new TypeError(
      `'${shown}' uses ${parsed.protocol.slice(0, -1)}, which is not supported; use http:// or https://.`,
    );
  }
  if (parsed.hostname === "") {
    throw new TypeError(`'${shown}' has no host; give a base URL such as http://localhost:8000.`);
  }
  return withScheme.replace(/\/+$/, "");
}

/**
 * A value without `scheme://` gets `http://` put in front, so a mistyped scheme would silently become a host
 * (`htp//localhost:8000` → host `htp`, `http:/localhost` → host `http`). Both shapes are refused, with the URL meant.
 */
function refuseMangledScheme(value: string, shown: string): void {
  const slashes = value.indexOf("//");
  // `user:secret@host` is userinfo, not a scheme.
  const userinfo = value.split("/")[0].includes("@");
  const colon = userinfo ? null : /^([a-z][a-z0-9+.-]*):(?!\d)/i.exec(value);
  if (slashes < 0 && colon === null) return;
  const rest = slashes >= 0 ? value.slice(slashes + 2) : value.slice(colon![0].length).replace(/^\/+/, "");
  const before = slashes >= 0 ? value.slice(0, slashes) : colon![0];
  throw new TypeError(
    `'${shown}' is not a well-formed URL: '${before}' before the host is not a scheme followed by '://'; ` +
      `write it as http://${redactUrl(rest)} (or https://).`,
  );
}
