/**
 * The `Host` check that keeps a web page from reaching the API through DNS rebinding: a page on
 * `attacker.example` whose name is re-pointed at 127.0.0.1 can make the browser send requests here, but they still
 * carry `Host: attacker.example`. Accepted: IP literals (a page loaded from an address gets that address as its
 * origin, so the browser's same-origin rule already applies), `localhost` and `*.localhost` (browsers resolve them
 * to loopback themselves), the name the server was bound to, and the `--api-allowed-hosts` entries.
 */

export interface HostPolicy {
  /** The address or name given to `--api-host`. */
  readonly boundHost: string;
  /** `--api-allowed-hosts`: exact names, `.example.com` for a domain and its subdomains, `*` for any host. */
  readonly allowedHosts: readonly string[];
}

/** The host name of a `Host` header value: port and IPv6 brackets dropped, lower-case, no trailing dot. */
export function hostName(header: string): string {
  let host = header.trim().toLowerCase();
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    // Anything but a port after the brackets is not a host we know: keep it whole, so it matches nothing.
    if (end > 0 && /^(:\d*)?$/.test(host.slice(end + 1))) host = host.slice(1, end);
  } else if (host.indexOf(":") === host.lastIndexOf(":")) {
    host = host.replace(/:\d*$/, "");
  }
  return host.replace(/\.$/, "");
}

function isIpLiteral(host: string): boolean {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return host.split(".").every((part) => Number(part) <= 255);
  return host.includes(":") && /^[0-9a-f:.]+(%[\w.-]+)?$/.test(host);
}

/** Whether a request with this `Host` header (null when absent: not a browser) may be answered. */
export function isAllowedHost(header: string | null, policy: HostPolicy): boolean {
  if (header === null || header.trim() === "") return true;
  const host = hostName(header);
  if (host === "" || isIpLiteral(host) || host === "localhost" || host.endsWith(".localhost")) return true;
  if (host === hostName(policy.boundHost)) return true;
  return policy.allowedHosts.some((entry) => {
    const allowed = entry.trim().toLowerCase().replace(/\.$/, "");
    if (allowed === "*") return true;
    if (allowed.startsWith(".")) return host === allowed.slice(1) || host.endsWith(allowed);
    return host === hostName(allowed);
  });
}
