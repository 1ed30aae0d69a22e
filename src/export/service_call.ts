/**
 * One HTTP call to a results service (an OpenTelemetry collector, an MLflow tracking server, Weights & Biases) over
 * `fetch`, with a time limit. A failure is an error whose message says what happened in a few words (the status and
 * the start of the answer, or the network error) and never carries the request's headers or URL credentials.
 */
import { USER_AGENT } from "../base/version.ts";
import { redactUrl } from "../base/redact_secrets.ts";

export class ServiceError extends Error {
  /** The HTTP status, when the service answered. */
  readonly status?: number;
  /** The answer's body (at most 2 KB), when the service answered. */
  readonly body?: string;

  constructor(message: string, status?: number, body?: string) {
    super(message);
    this.name = "ServiceError";
    this.status = status;
    this.body = body;
  }
}

export interface CallOptions {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: BodyInit;
  /** Aborts the call (a deadline shared by the calls of one upload). */
  readonly signal: AbortSignal;
}

/** Calls `url`; a 2xx answer is returned with its body unread, anything else throws a {@link ServiceError}. */
export async function serviceCall(url: string, o: CallOptions): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: o.method ?? "GET",
      headers: { "user-agent": USER_AGENT, ...o.headers },
      body: o.body,
      signal: o.signal,
      redirect: "manual",
    });
  } catch (err) {
    throw new ServiceError(networkReason(err, o.signal));
  }
  if (res.ok) return res;
  const body = await readSome(res);
  const excerpt = body.replace(/\s+/g, " ").trim().slice(0, 200);
  throw new ServiceError(`HTTP ${res.status}${excerpt === "" ? "" : `: ${excerpt}`}`, res.status, body);
}

/** `serviceCall` and its JSON answer (`{}` for an empty body). */
export async function serviceJson(url: string, o: CallOptions): Promise<Record<string, unknown>> {
  const res = await serviceCall(url, o);
  const text = await res.text().catch((err) => {
    throw new ServiceError(networkReason(err, o.signal));
  });
  if (text.trim() === "") return {};
  try {
    const value = JSON.parse(text);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value;
  } catch {
    // reported below
  }
  throw new ServiceError(`the answer is not a JSON object: ${text.slice(0, 120)}`);
}

/** A URL as it may appear in a log line: user-info and secret-looking query values hidden. */
export function shownUrl(url: string): string {
  return redactUrl(url);
}

/** The reason of a failure, in words, for a warning. */
export function failureReason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function networkReason(err: unknown, signal: AbortSignal): string {
  if (signal.aborted) {
    const reason = signal.reason;
    return reason instanceof DOMException && reason.name === "TimeoutError" ? "timed out" : "cancelled";
  }
  const message = err instanceof TypeError && err.cause instanceof Error
    ? err.cause.message
    : err instanceof Error
    ? err.message
    : String(err);
  return message.replace(/\bhttps?:\/\/[^\s)]+/g, (url) => redactUrl(url));
}

/**
 * A URL's user-info as a basic `Authorization` header, and the URL without it (`fetch` refuses URLs that carry
 * credentials), as MLflow's and OTLP's own clients accept `http://user:password@host`.
 */
export function splitCredentials(raw: string): { readonly url: string; readonly authorization?: string } {
  const url = new URL(raw);
  if (url.username === "" && url.password === "") return { url: url.toString() };
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = "";
  url.password = "";
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  return { url: url.toString(), authorization: `Basic ${btoa(String.fromCharCode(...bytes))}` };
}

async function readSome(res: Response): Promise<string> {
  try {
    const text = await res.text();
    return text.slice(0, 2048);
  } catch {
    return "";
  }
}
