/**
 * Secret detection and redaction shared by everything the product publishes (logs, exports, report.html, API
 * responses, error messages): API keys, credential-bearing headers, secret-looking request-body keys, and userinfo
 * or secret query parameters in URLs. Detection is by name, broad on purpose: hiding a harmless value costs a
 * little information, publishing a credential cannot be undone. What goes on the wire is never changed here.
 */

/** What every secret value is replaced with. */
export const REDACTED = "<redacted>";

/**
 * Fragments that mark a header name as credential-bearing wherever they occur (`X-My-Key`, `x-functions-key`,
 * `Ocp-Apim-Subscription-Key`, `X-Amz-Security-Token`, `X-Vault-Secret`, `Cookie`, `Proxy-Authorization`).
 */
const SECRET_HEADER_PATTERN =
  /(key|token|secret|auth|passw|passphrase|pwd|signature|subscription|cookie|credential|bearer|jwt|private)/i;

/**
 * Words that mark a key name (body field, query parameter, flag) as a secret when the name ends with one of them
 * after a separator or the start, so `api_key`, `hf_token`, `client_secret` and `apiKey` match while `max_tokens`,
 * `token_ids` and `top_k` do not.
 */
const SECRET_KEY_PATTERN =
  /(^|[-_.])(key|api[-_]?key|apikey|token|secret|password|passwd|passphrase|pwd|auth|authorization|credentials?|bearer|cookie|signature|jwt)$/;

/** Query parameters that carry credentials under short names of their own (SAS `sig`, Azure Functions `code`). */
const SECRET_QUERY_NAMES: ReadonlySet<string> = new Set(["sig", "code", "x-amz-credential", "x-goog-credential"]);

/** Lower-case, with camelCase boundaries turned into `_` (`clientSecret` → `client_secret`). */
function normalizedName(name: string): string {
  return name.trim().replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

/**
 * Does this HTTP header name carry a credential? True for the broad pattern above and for any name in `extra`
 * (`--redact-header`, compared case-insensitively).
 */
export function isSecretHeaderName(name: string, extra: readonly string[] = []): boolean {
  const lower = name.trim().toLowerCase();
  return SECRET_HEADER_PATTERN.test(lower) || extra.some((e) => e.trim().toLowerCase() === lower);
}

/** Does this key (request-body field, query parameter, flag name without dashes) look like it holds a secret? */
export function isSecretKeyName(name: string): boolean {
  return SECRET_KEY_PATTERN.test(normalizedName(name));
}

/** Does this URL query parameter look like it holds a secret? */
export function isSecretQueryName(name: string): boolean {
  return isSecretKeyName(name) || SECRET_QUERY_NAMES.has(name.trim().toLowerCase());
}

/**
 * Replaces URL userinfo (`user:pass@`) and secret-looking query values with `<redacted>`. The userinfo runs to the
 * last `@` of the value, so a password holding `@`, `/`, `?` or spaces (which a URL parser may split elsewhere) is
 * hidden whole; a path containing `@` is hidden too, the price of never showing part of a password. Works on
 * scheme-less values (`user:pw@host:8000`) and never throws.
 */
export function redactUrl(url: string): string {
  let out = url.replace(
    /^([a-z][a-z0-9+.-]*:\/\/)?[\s\S]*@/i,
    (_m, scheme: string | undefined) => `${scheme ?? ""}${REDACTED}@`,
  );
  out = out.replace(/([?&;])([^=&;#]+)=([^&;#]*)/g, (match, sep: string, key: string) => {
    let decoded = key;
    try {
      decoded = decodeURIComponent(key);
    } catch {
      // keep the raw key
    }
    return isSecretQueryName(decoded) ? `${sep}${key}=${REDACTED}` : match;
  });
  return out;
}

/** Header pairs with credential values replaced (`extra`: names from `--redact-header`); names are kept. */
export function redactHeaders(
  headers: ReadonlyArray<readonly [string, string]>,
  extra: readonly string[] = [],
): Array<[string, string]> {
  return headers.map(([name, value]) => [name, isSecretHeaderName(name, extra) ? REDACTED : value]);
}

/**
 * A JSON-like value with secret-looking keys' values replaced, at any depth. The value itself is returned when it
 * holds no such key, so redacting large payloads that hold no secret allocates nothing.
 */
export function redactSecretKeys(value: unknown): unknown {
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const inner = redactSecretKeys(value[i]);
      if (inner !== value[i]) (out ??= value.slice())[i] = inner;
    }
    return out ?? value;
  }
  if (value !== null && typeof value === "object") {
    let out: Record<string, unknown> | undefined;
    for (const [key, inner] of Object.entries(value)) {
      const redacted = isSecretKeyName(key) ? REDACTED : redactSecretKeys(inner);
      if (redacted !== inner) (out ??= { ...value })[key] = redacted;
    }
    return out ?? value;
  }
  return value;
}
