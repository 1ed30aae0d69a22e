/**
 * Reason phrases of HTTP status codes (RFC 9110 §15), used as the error `type` of a non-2xx record like
 * AIPerf does (`"Internal Server Error"`). A table of our own rather than `node:http`, whose import costs
 * ~15 ms of startup.
 */
const REASONS: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  411: "Length Required",
  413: "Content Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  423: "Locked",
  424: "Failed Dependency",
  425: "Too Early",
  426: "Upgrade Required",
  428: "Precondition Required",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  451: "Unavailable For Legal Reasons",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  505: "HTTP Version Not Supported",
  507: "Insufficient Storage",
  508: "Loop Detected",
  511: "Network Authentication Required",
  520: "Unknown Error",
  522: "Connection Timed Out",
  524: "A Timeout Occurred",
};

/** The phrase for `status`, or a generic `HTTP <status>` (e.g. for 1xx/3xx answers to a POST). */
export function httpReason(status: number): string {
  return REASONS[status] ?? `HTTP ${status}`;
}
