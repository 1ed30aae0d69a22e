/**
 * Secret detection and redaction shared by the redacted command line and the exported `input_config`: API keys,
 * credential-bearing headers, secret-looking request-body keys, and userinfo or secret query parameters in URLs.
 */

/** What every secret value is replaced with. */
export const REDACTED = "<redacted>";

/** Header names that always carry credentials (compared lower-case). */
const SECRET_HEADER_NAMES: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "apikey",
  "cookie",
  "set-cookie",
  "x-auth-token",
  "x-access-token",
  "x-goog-api-key",
  "ocp-apim-subscription-key",
]);

/** Fragments that mark a header name as credential-bearing (`X-Amz-Security-Token`, `X-Vault-Secret`, …). */
const SECRET_HEADER_PATTERN = /(auth|token|secret|passw|api[-_]?key|access[-_]?key|cookie|credential|signature)/i;

/**
 * Key names (body fields, query parameters, flags) that hold secrets: the name ends with one of these words, so
 * `api_key`, `hf_token` and `client_secret` match while `max_tokens` and `token_ids` do not.
 */
const SECRET_KEY_PATTERN =
  /(^|[-_.])(api[-_]?key|apikey|access[-_]?key|secret[-_]?key|secret|password|passwd|token|auth|authorization|credentials?|bearer|cookie)$/i;

/** Does this HTTP header name carry a credential? */
export function isSecretHeaderName(name: string): boolean {
  const lower = name.trim().toLowerCase();
  return SECRET_HEADER_NAMES.has(lower) || SECRET_HEADER_PATTERN.test(lower);
}

/** Does this key (request-body field, query parameter, flag name without dashes) look like it holds a secret? */
export function isSecretKeyName(name: string): boolean {
  return SECRET_KEY_PATTERN.test(name.trim());
}

/**
 * Replaces URL userinfo (`user:pass@`) and secret-looking query values with `<redacted>`. Works on scheme-less
 * values (`user:pw@host:8000`) too and never throws.
 */
export function redactUrl(url: string): string {
  let out = url.replace(
    /^([a-z][a-z0-9+.-]*:\/\/)?([^/?#@\s]*)@/i,
    (_m, scheme: string | undefined) => `${scheme ?? ""}${REDACTED}@`,
  );
  out = out.replace(/([?&])([^=&#]+)=([^&#]*)/g, (match, sep: string, key: string) => {
    let decoded = key;
    try {
      decoded = decodeURIComponent(key);
    } catch {
      // keep the raw key
    }
    return isSecretKeyName(decoded) ? `${sep}${key}=${REDACTED}` : match;
  });
  return out;
}

/** Header pairs with credential values replaced; names are kept. */
export function redactHeaders(
  headers: ReadonlyArray<readonly [string, string]>,
): Array<[string, string]> {
  return headers.map(([name, value]) => [name, isSecretHeaderName(name) ? REDACTED : value]);
}

/** A deep copy of a JSON-like value with secret-looking keys' values replaced, at any depth. */
export function redactSecretKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => redactSecretKeys(item));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] = isSecretKeyName(key) ? REDACTED : redactSecretKeys(inner);
    }
    return out;
  }
  return value;
}
