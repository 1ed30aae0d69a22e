/**
 * Sends one request and turns everything observed into a RequestRecord. Failures of any kind (network,
 * HTTP status, API error objects, unparsable payloads, timeouts, cancellation) become `record.error`;
 * nothing here throws.
 */
import type { EndpointAdapter } from "../endpoints/endpoint_adapter.ts";
import type { HttpExchange, HttpRequest, SendOptions, TransportError } from "../transport/http_exchange.ts";
import type { Phase, RecordError, RequestRecord } from "../records/request_record.ts";
import { ResponseCollector } from "./response_collector.ts";
import { httpReason } from "./http_reason.ts";
import type { SendMeta } from "./phase_runner.ts";

/** The transport as the engine sees it (HttpClient implements it; tests pass fakes). */
export interface RequestSender {
  /** `affinity`: requests with the same value go to the same server where there are several (a session's). */
  send(req: HttpRequest, opts?: SendOptions, affinity?: number): Promise<HttpExchange>;
}

export interface ExecutorContext {
  readonly sender: RequestSender;
  readonly adapter: EndpointAdapter;
  /** Full request path (base path + endpoint path). */
  readonly path: string;
  /** Constant headers (content type, accept, auth, user agent, `-H` headers), in order. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly timeoutMs: number;
  /** Added to this thread's `performance.now()` times to put them on the run clock. */
  readonly clockOffsetMs: number;
  readonly workerId: string;
  readonly phase: Phase;
  /** Keep every response payload on the record (`--export-level raw`). */
  readonly keepRaw?: boolean;
}

/** What is sent: the body, and what the record says about it. */
export interface RequestPayload {
  readonly conversationId: string;
  readonly turnIndex: number;
  /** The request body's bytes, written as they are. */
  readonly body: Uint8Array;
  readonly inputTokens?: number;
  readonly requestedOutputTokens?: number;
}

const TRANSPORT_ERROR_TYPES: Readonly<Record<TransportError["kind"], string>> = {
  connect: "ConnectionError",
  timeout: "TimeoutError",
  reset: "ConnectionResetError",
  protocol: "ProtocolError",
  cancelled: "RequestCancellationError",
};

export async function executeRequest(
  ctx: ExecutorContext,
  entry: RequestPayload,
  meta: SendMeta,
  xCorrelationId: string,
  signal: AbortSignal,
): Promise<RequestRecord> {
  const xRequestId = crypto.randomUUID();
  const collector = new ResponseCollector(ctx.adapter, ctx.keepRaw);
  const request: HttpRequest = {
    method: ctx.adapter.capabilities.method,
    path: ctx.path,
    commonHeaders: ctx.headers,
    headers: [["X-Request-ID", xRequestId], ["X-Correlation-ID", xCorrelationId]],
    body: entry.body,
  };
  // AIPerf's start_perf_ns: taken immediately before the request is handed to the transport.
  const start = performance.now();
  const ex = await ctx.sender.send(request, {
    signal,
    deadline: start + ctx.timeoutMs,
    onSseEvent: collector.onEvent,
  }, meta.sessionIndex);
  const end = ex.lastByteAt ?? performance.now();
  collector.flush();
  if (!ex.error && !ex.streamed && ex.body !== undefined && isOk(ex.status)) collector.addBody(ex.body, end);

  const off = ctx.clockOffsetMs;
  const error = recordError(ex, collector, ctx.timeoutMs);
  return {
    phase: ctx.phase,
    requestIndex: meta.requestIndex,
    sessionNum: meta.sessionIndex,
    conversationId: entry.conversationId,
    turnIndex: entry.turnIndex,
    ...(meta.isFinalTurn ? { isFinalTurn: true } : {}),
    xRequestId,
    xCorrelationId,
    workerId: ctx.workerId,
    creditIssuedAt: meta.creditIssuedAt,
    scheduledAt: meta.scheduledAt,
    ...(meta.timestampScheduled ? { timestampScheduled: true } : {}),
    startAt: start + off,
    sentAt: ex.requestSent !== undefined ? ex.requestSent + off : undefined,
    headersAt: ex.headersAt !== undefined ? ex.headersAt + off : undefined,
    endAt: end + off,
    responseTimes: off === 0 ? collector.responseTimes : collector.responseTimes.map((t) => t + off),
    firstOutputAt: collector.firstOutputAt !== undefined ? collector.firstOutputAt + off : undefined,
    lastResponseAt: collector.lastResponseAt !== undefined ? collector.lastResponseAt + off : undefined,
    status: ex.status,
    content: collector.content,
    reasoning: collector.reasoning,
    usage: collector.usage,
    finishReason: collector.finishReason,
    error,
    cancelled: ex.error?.kind === "cancelled",
    inputTokens: entry.inputTokens,
    requestedOutputTokens: entry.requestedOutputTokens,
    connectionReused: ex.reused,
    bytesSent: ex.bytesSent,
    bytesReceived: ex.bytesReceived,
    rawResponses: collector.raw?.map((r) => ({ t: r.t + off, text: r.text })),
  };
}

function isOk(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status < 300;
}

/** Precedence: transport failure > HTTP status > API error object > unparsable payload > empty answer. */
function recordError(ex: HttpExchange, c: ResponseCollector, timeoutMs: number): RecordError | undefined {
  if (ex.error) {
    const type = TRANSPORT_ERROR_TYPES[ex.error.kind];
    if (ex.error.kind === "cancelled") return { type, code: 499, message: "request cancelled" };
    if (ex.error.kind === "timeout") {
      return { type, message: `no complete response within --request-timeout-seconds ${timeoutMs / 1000}` };
    }
    return { type, message: ex.error.message };
  }
  if (!isOk(ex.status)) {
    const status = ex.status ?? 0;
    return { type: httpReason(status), code: status, message: errorBodyMessage(ex.body) };
  }
  if (c.apiError) {
    return { type: c.apiError.type ?? "APIError", code: c.apiError.code, message: c.apiError.message };
  }
  if (c.parseError) return { type: "ParseError", message: c.parseError };
  return undefined;
}

/** The server's error message: `error.message` of an OpenAI-style body, else the body text (trimmed). */
function errorBodyMessage(body: Uint8Array | undefined): string {
  if (body === undefined || body.length === 0) return "(empty response body)";
  const text = new TextDecoder().decode(body.subarray(0, 4096)).trim();
  try {
    const json = JSON.parse(text);
    const err = json?.error;
    if (typeof err?.message === "string") return err.message;
    if (typeof err === "string") return err;
    if (typeof json?.message === "string") return json.message;
    if (typeof json?.detail === "string") return json.detail;
  } catch {
    // Not JSON: fall through to the raw text.
  }
  return text.length > 500 ? text.slice(0, 500) + "…" : text;
}
