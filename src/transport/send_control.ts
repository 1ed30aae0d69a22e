/**
 * One `send()`'s mutable state as the client, its pool and its connection share it: the exchange being filled in,
 * the stage it is in, and why (if at all) it was interrupted.
 */
import type { HttpExchange, TransportError } from "./http_exchange.ts";
import type { Deadline } from "../timing/deadline_queue.ts";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
/** The exchange as the transport fills it in; callers see it as the read-only {@linkcode HttpExchange}. */
export type ExchangeState = Mutable<HttpExchange>;
export type Interrupt = "timeout" | "cancelled";
export type Stage =
  | "waiting for a free connection"
  | "connecting"
  | "sending the request"
  | "waiting for the response"
  | "reading the response body";

/** One `send()`'s cancellation state: why it was interrupted and what to close to unblock its pending await. */
export class SendControl {
  reason: Interrupt | undefined = undefined;
  message = "";
  stage: Stage = "connecting";
  /** The connection in use; closing it makes a pending read or write reject at once. */
  conn: { closeSocket(): void } | undefined = undefined;
  /** Unblocks a wait that closing `conn` cannot (queued for a slot, connecting). */
  onInterrupt: (() => void) | undefined = undefined;
  /** Told when the request bytes are fully written (a planned cancellation starts counting there). */
  onSent: ((at: number) => void) | undefined = undefined;
  /** The planned cancellation's queued deadline, once the request is written (SendOptions.cancelAfterSentMs). */
  cancelTimer: Deadline | undefined = undefined;
  /** Its place among its client's sends in flight (`IndexedSet`). */
  setIndex = -1;
  /** The send's abort signal, if it has one. */
  signal: AbortSignal | undefined = undefined;
  readonly #remote: string;
  readonly #startedAt: number;

  constructor(remote: string, startedAt: number) {
    this.#remote = remote;
    this.#startedAt = startedAt;
  }

  interrupt(reason: Interrupt, detail: string): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    const ms = Math.round(performance.now() - this.#startedAt);
    this.message = reason === "timeout"
      ? `Request to ${this.#remote} hit its deadline after ${ms} ms while ${this.stage}; raise the request timeout or check the server.`
      : `Request to ${this.#remote} was cancelled after ${ms} ms while ${this.stage}${detail}.`;
    this.conn?.closeSocket();
    this.onInterrupt?.();
  }

  error(): TransportError {
    return { kind: this.reason ?? "cancelled", message: this.message };
  }
}

/**
 * A new exchange, every field present from the start: one object of one shape, where adding some twenty fields as
 * the exchange went made V8 grow its property store several times per request and give exchanges many shapes.
 */
export function newExchangeState(): ExchangeState {
  return {
    connectStart: undefined,
    connectEnd: undefined,
    reused: false,
    poolWaitStart: undefined,
    poolWaitEnd: undefined,
    requestWriteStart: undefined,
    requestSent: undefined,
    writes: undefined,
    bodyBytesSent: undefined,
    bodyReads: undefined,
    firstBodyAt: undefined,
    lastBodyAt: undefined,
    bodyBytesReceived: undefined,
    firstByteAt: undefined,
    headersAt: undefined,
    lastByteAt: undefined,
    status: undefined,
    headers: undefined,
    streamed: false,
    body: undefined,
    bytesSent: 0,
    bytesReceived: 0,
    retries: undefined,
    contentEncoding: undefined,
    error: undefined,
  };
}

/** `host:port`, with brackets around an IPv6 address. */
export function hostPort(hostname: string, port: number): string {
  return hostname.includes(":") ? `[${hostname}]:${port}` : `${hostname}:${port}`;
}

export function closedError(): TransportError {
  return { kind: "cancelled", message: "Request was not sent because the HTTP client was closed." };
}

export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
