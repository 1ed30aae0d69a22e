/**
 * Types of the HTTP/1.1 transport contract. `HttpClient.send()` never rejects for HTTP or network failures:
 * they come back as `exchange.error`.
 */

/** Where requests go. Produced from `--url` (scheme optional, `http://` assumed). */
export interface Target {
  readonly scheme: "http" | "https";
  /** Host to connect to (IPv6 without brackets). */
  readonly hostname: string;
  readonly port: number;
  /** Value of the `Host` header (`host[:port]`, brackets for IPv6). */
  readonly hostHeader: string;
  /** Path prefix from the URL (no trailing slash), e.g. `` or `/proxy`. */
  readonly basePath: string;
  /** Extra local destination addresses to spread connections over (scale: ephemeral-port exhaustion). */
  readonly extraHostnames?: readonly string[];
  /**
   * SECRET. `Basic …` value for an `Authorization` header, built from the URL's user info
   * (`http://user:pass@host`), which is kept out of every other field. Never log or export it; callers add it
   * to request headers themselves.
   */
  readonly authorization?: string;
}

export interface HttpRequest {
  readonly method: "GET" | "POST";
  /** Full path including `target.basePath` and query. */
  readonly path: string;
  /** Header name/value pairs, written in order after `Host` (and `commonHeaders`). Content-Length is added for bodies. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /**
   * Header pairs shared by many requests, written before `headers`. Pass the same array each time: it is checked
   * and serialized once, then reused for every request that passes it (so do not change it afterwards).
   */
  readonly commonHeaders?: ReadonlyArray<readonly [string, string]>;
  readonly body?: Uint8Array;
}

/**
 * Called synchronously for every complete SSE event; `t` = arrival time of the event's first byte.
 * `data` may be a slice sharing storage with the text of the whole read it came from: parse it and keep the
 * result; keeping `data` itself keeps that read's text (up to the read buffer size) alive.
 * Returning `true` says the answer is complete (e.g. OpenAI's `data: [DONE]`): the exchange then ends even if the
 * server leaves the body open (the connection is closed rather than reused in that case).
 */
export type SseEventHandler = (data: string, t: number, event: string | undefined) => unknown;

export interface SendOptions {
  /** Aborts the exchange: the connection is closed and `error.kind = "cancelled"`. */
  readonly signal?: AbortSignal;
  /** Absolute `performance.now()` deadline; exceeded → connection closed, `error.kind = "timeout"`. */
  readonly deadline?: number;
  /** When the response is `text/event-stream`, events are delivered here instead of being buffered. */
  readonly onSseEvent?: SseEventHandler;
  /**
   * Cancel the exchange this many ms after the request bytes are fully written (AIPerf request cancellation:
   * the server always receives the whole request; 0 = disconnect right after sending). `error.kind = "cancelled"`.
   */
  readonly cancelAfterSentMs?: number;
  /**
   * `performance.now()` as the caller read it immediately before calling `send` (the send's start, from which its
   * deadline and the time in its messages count); spares the client a clock read of its own. @default now
   */
  readonly startedAt?: number;
}

/**
 * `connect`: the connection could not be set up; `connect_timeout`: setting it up took longer than the connect
 * time limit; `timeout`: the request's own deadline passed (while connecting, sending or waiting for the response);
 * `reset`: the server closed or reset the connection before the response was complete; `protocol`: the response
 * is not valid HTTP or SSE; `too_large`: the response body (decoded) passed the client's byte limit, and the rest was
 * not read; `cancelled`: aborted by the caller.
 */
export type TransportErrorKind =
  | "connect"
  | "connect_timeout"
  | "timeout"
  | "reset"
  | "protocol"
  | "too_large"
  | "cancelled";

export interface TransportError {
  readonly kind: TransportErrorKind;
  readonly message: string;
  /** `message` without its per-request detail (byte counts), for grouping failures of one kind. */
  readonly group?: string;
}

/** Everything observed about one request/response. All times are `performance.now()` of the calling thread. */
export interface HttpExchange {
  /** Connection set up for this request (undefined when a kept-alive one was reused). */
  readonly connectStart?: number;
  readonly connectEnd?: number;
  readonly reused: boolean;
  /** Waiting for a free connection of a full pool began / ended (undefined when none was awaited). */
  readonly poolWaitStart?: number;
  readonly poolWaitEnd?: number;
  /** The first request byte is about to be written. */
  readonly requestWriteStart?: number;
  /** Request bytes fully written. */
  readonly requestSent?: number;
  /** Writes the request took (socket writes until every byte was accepted). */
  readonly writes?: number;
  /** Request body bytes (the head not included). */
  readonly bodyBytesSent?: number;
  /** Reads that carried response body bytes, the first and last of them, and the body bytes (de-chunked). */
  readonly bodyReads?: number;
  readonly firstBodyAt?: number;
  readonly lastBodyAt?: number;
  readonly bodyBytesReceived?: number;
  /** First response byte arrived. */
  readonly firstByteAt?: number;
  /** Status line and all headers parsed (time of the read that completed them). */
  readonly headersAt?: number;
  /** Last body byte arrived (or failure time). */
  readonly lastByteAt?: number;
  readonly status?: number;
  /** Lower-cased response headers. */
  readonly headers?: ReadonlyMap<string, string>;
  /** True when the body was framed as SSE and delivered to `onSseEvent`. */
  readonly streamed: boolean;
  /** The body when it was not streamed as SSE (non-2xx bodies included), else undefined. */
  readonly body?: Uint8Array;
  readonly bytesSent: number;
  readonly bytesReceived: number;
  /**
   * Times the request was sent again on a fresh connection because a kept-alive one turned out dead before any
   * response byte (absent when never).
   */
  readonly retries?: number;
  /** Lower-cased `Content-Encoding` the body was decoded from (gzip, deflate, br), when it was encoded. */
  readonly contentEncoding?: string;
  readonly error?: TransportError;
}
