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
