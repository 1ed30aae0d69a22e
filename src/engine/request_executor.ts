/**
 * Sends one request and turns everything observed into a RequestRecord. Failures of any kind (network,
 * HTTP status, API error objects, unparsable payloads, timeouts, cancellation) become `record.error`;
 * nothing here throws.
 */
import type { Delta, EndpointAdapter, Usage } from "../endpoints/endpoint_adapter.ts";
import type { InputPrompt } from "../dataset/payload_text.ts";
import type {
  HttpExchange,
  HttpRequest,
  SendOptions,
  SseEventHandler,
  TransportError,
} from "../transport/http_exchange.ts";
import type { Phase, RecordError, RequestRecord } from "../records/request_record.ts";
import { ResponseCollector } from "./response_collector.ts";
import { mergeServerTiming, readHeaderServerTiming } from "../endpoints/server_timing.ts";
import { specDecodeRecord } from "../endpoints/spec_decode.ts";
import { httpReason } from "./http_reason.ts";
import { checkUsage } from "./usage_check.ts";
import { DEFAULT_POLL_INTERVAL_MS, sendJob } from "./job_poller.ts";
import type { SendMeta } from "./phase_runner.ts";

/** Which session turn a request is, so several URLs can keep a session on one (engine/target_set.ts). */
export interface RequestRoute {
  readonly session: number;
  readonly turn: number;
  /** The session sends no turn after this one. */
  readonly lastTurn: boolean;
}

/** The transport as the engine sees it (HttpClient implements it; tests pass fakes). */
export interface RequestSender {
  send(req: HttpRequest, opts?: SendOptions, route?: RequestRoute): Promise<HttpExchange>;
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
  /** The run's reader of SSE payloads (the adapter's `eventReader`, made once), shared by its responses. */
  readonly readEvent?: (data: string) => Delta | undefined;
  /** The run's reader of non-streaming bodies (the adapter's `bodyReader`, made once), shared by its responses. */
  readonly readBody?: (text: string) => Delta | undefined;
  /** Keep the body as sent on the record (`--bundle`; `--export-level raw` keeps it too). */
  readonly keepBody?: boolean;
  /** Header that carries the session's correlation id (`--session-header`). @default "X-Correlation-ID" */
  readonly sessionHeader?: string;
  /** For an API that answers with jobs: ms between status polls. @default 100 (AIPerf) */
  readonly pollIntervalMs?: number;
  /** For an API that answers with jobs: download each finished job's content (`--download-video-content`). */
  readonly downloadContent?: boolean;
}

/** What is sent: the body, and what the record says about it. */
export interface RequestPayload {
  readonly conversationId: string;
  readonly turnIndex: number;
  /** The request body's bytes, written as they are. */
  readonly body: Uint8Array;
  /** The body as JSON, where its bytes are another encoding of it (a multipart upload): what the raw export shows. */
  readonly payload?: Readonly<Record<string, unknown>>;
  readonly inputTokens?: number;
  /** The prompt of a body built at send time, for the record's ISL (counted after the request). */
  readonly inputPrompt?: InputPrompt;
  readonly requestedOutputTokens?: number;
}

const TRANSPORT_ERROR_TYPES: Readonly<Record<TransportError["kind"], string>> = {
  connect: "ConnectionError",
  connect_timeout: "ConnectTimeoutError",
  timeout: "TimeoutError",
  reset: "ConnectionResetError",
  protocol: "ProtocolError",
  too_large: "ResponseTooLargeError",
  cancelled: "RequestCancellationError",
};

const BODY_TEXT = new TextDecoder();

export async function executeRequest(
  ctx: ExecutorContext,
  entry: RequestPayload,
  meta: SendMeta,
  xCorrelationId: string,
  signal: AbortSignal,
): Promise<RequestRecord> {
  const xRequestId = crypto.randomUUID();
  const collector = new ResponseCollector(ctx.adapter, ctx.keepRaw, ctx.readEvent, ctx.readBody);
  const request: HttpRequest = {
    method: ctx.adapter.capabilities.method,
    path: ctx.path,
    commonHeaders: ctx.headers,
    // X-Session-Affinity carries the session's correlation id, as AIPerf sends it, so sticky routers keep a
    // conversation on one replica.
    headers: [["X-Request-ID", xRequestId], [ctx.sessionHeader ?? "X-Correlation-ID", xCorrelationId], [
      "X-Session-Affinity",
      xCorrelationId,
    ]],
    body: entry.body,
  };
  // AIPerf's start_perf_ns: taken immediately before the request is handed to the transport.
  const start = performance.now();
  const first = meta.onFirstResponse;
  const sendOptions: SendOptions = {
    signal,
    deadline: start + ctx.timeoutMs,
    onSseEvent: first === undefined ? collector.onEvent : firstEventHook(collector.onEvent, first),
    cancelAfterSentMs: meta.cancelAfterMs,
    startedAt: start,
  };
  const route: RequestRoute = { session: meta.sessionIndex, turn: meta.turnIndex, lastTurn: meta.lastTurn ?? true };
  const job = ctx.adapter.job;
  const ex = job === undefined ? await ctx.sender.send(request, sendOptions, route) : await sendJob(
    ctx.sender,
    request,
    sendOptions,
    route,
    { job, pollIntervalMs: ctx.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, downloadContent: ctx.downloadContent },
  );
  const end = ex.lastByteAt ?? performance.now();
  collector.flush();
  if (!ex.error && !ex.streamed && ex.body !== undefined && isOk(ex.status)) collector.addBody(ex.body, end);

  const off = ctx.clockOffsetMs;
  const usage = checkUsage(collector.usage);
  const error = recordError(ex, collector, usage.error, ctx.timeoutMs, ctx.adapter.capabilities.producesTokens);
  // One object literal with every field (absent ones undefined): one hidden class for every record, where
  // conditional spreads made V8 build each record through its slow generic path.
  return {
    phase: ctx.phase,
    requestIndex: meta.requestIndex,
    sessionNum: meta.sessionIndex,
    conversationId: entry.conversationId,
    turnIndex: entry.turnIndex,
    isFinalTurn: meta.lastTurn === true ? true : undefined,
    xRequestId,
    xCorrelationId,
    workerId: ctx.workerId,
    lineage: meta.lineage,
    creditIssuedAt: meta.creditIssuedAt,
    scheduledAt: meta.scheduledAt,
    timestampScheduled: meta.timestampScheduled === true ? true : undefined,
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
    usage: usage.usage,
    serverTiming: mergeServerTiming(collector.serverTiming, readHeaderServerTiming(ex.headers)),
    finishReason: collector.finishReason,
    error,
    cancelled: ex.error?.kind === "cancelled",
    stopCancelled: ex.error?.kind === "cancelled" && signal.aborted ? true : undefined,
    inputTokens: entry.inputTokens,
    inputPrompt: entry.inputPrompt,
    requestedOutputTokens: entry.requestedOutputTokens,
    connectionReused: ex.reused,
    connectionRetries: ex.retries,
    bytesSent: ex.bytesSent,
    bytesReceived: ex.bytesReceived,
    poolWaitStartAt: shift(ex.poolWaitStart, off),
    poolWaitEndAt: shift(ex.poolWaitEnd, off),
    connectStartAt: shift(ex.connectStart, off),
    connectEndAt: shift(ex.connectEnd, off),
    writeStartAt: shift(ex.requestWriteStart, off),
    firstBodyAt: shift(ex.firstBodyAt, off),
    lastBodyAt: shift(ex.lastBodyAt, off),
    chunksSent: ex.writes,
    chunksReceived: ex.bodyReads ?? (ex.requestSent === undefined ? undefined : 0),
    bodyBytesSent: ex.bodyBytesSent,
    bodyBytesReceived: ex.bodyBytesReceived ?? (ex.requestSent === undefined ? undefined : 0),
    rawResponses: collector.raw?.map((r) => ({ t: r.t + off, text: r.text })),
    sentBody: ctx.keepRaw || ctx.keepBody ? sentBodyText(ctx.adapter, entry) : undefined,
    videoInferenceTimeS: collector.video?.inferenceTimeS,
    videoPeakMemoryMb: collector.video?.peakMemoryMb,
    specDecode: collector.specDecode === undefined
      ? undefined
      : specDecodeRecord(collector.specDecode, usage.usage?.completionTokens),
  };
}

/** The body as the raw export shows it: its text, or for an encoded body (multipart) the JSON it encodes. */
function sentBodyText(adapter: EndpointAdapter, entry: RequestPayload): string {
  return adapter.encodeBody !== undefined && entry.payload !== undefined
    ? JSON.stringify(entry.payload)
    : BODY_TEXT.decode(entry.body);
}

/** A transport time moved onto the run clock. */
function shift(t: number | undefined, off: number): number | undefined {
  return t === undefined ? undefined : t + off;
}

/** `onEvent`, calling `first` once before the first event (AIPerf's first-token callback). */
function firstEventHook(onEvent: SseEventHandler, first: () => void): SseEventHandler {
  let seen = false;
  return (data, t, event) => {
    if (!seen) {
      seen = true;
      first();
    }
    onEvent(data, t, event);
  };
}

function isOk(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status < 300;
}

/**
 * An answer with neither content (text, reasoning, tool calls) nor usage is an error, as in AIPerf: a 200 that
 * carries nothing to measure (wrong JSON shape, empty `choices`, `content: null`, an undecodable body) must not
 * count as a success with 0 tokens.
 */
const EMPTY_ANSWER: RecordError = {
  type: "InvalidInferenceResultError",
  message: "No responses with actual content: the answer had no text, reasoning, tool calls or usage.",
};

/**
 * A 200 whose only token-bearing field is `usage` (no text, reasoning or tool calls, whatever `completion_tokens`
 * says) is a useless answer, not a success with 0 output tokens: an error of its own type, so the summary tells it
 * apart from an empty body.
 */
function usageOnlyAnswer(usage: Usage): RecordError {
  const said = usage.completionTokens !== undefined ? ` (completion_tokens ${usage.completionTokens})` : "";
  return {
    type: "UsageOnlyResponseError",
    message: `The answer had no text, reasoning or tool calls, only a usage report${said}.`,
    group: "The answer had no text, reasoning or tool calls, only a usage report.",
  };
}

/**
 * Precedence: transport failure > HTTP status > API error object > unparsable payload > invalid usage report > empty
 * answer.
 */
function recordError(
  ex: HttpExchange,
  c: ResponseCollector,
  usageError: RecordError | undefined,
  timeoutMs: number,
  producesTokens: boolean,
): RecordError | undefined {
  if (ex.error) {
    const type = TRANSPORT_ERROR_TYPES[ex.error.kind];
    if (ex.error.kind === "cancelled") return { type, code: 499, message: "request cancelled" };
    if (ex.error.kind === "timeout") {
      return { type, message: `no complete response within --request-timeout-seconds ${timeoutMs / 1000}` };
    }
    return ex.error.group === undefined
      ? { type, message: ex.error.message }
      : { type, message: ex.error.message, group: ex.error.group };
  }
  if (!isOk(ex.status)) {
    const status = ex.status ?? 0;
    return { type: httpReason(status), code: status, message: errorBodyMessage(ex.body) };
  }
  if (c.apiError) {
    return { type: c.apiError.type ?? "APIError", code: c.apiError.code, message: c.apiError.message };
  }
  if (c.parseError) return { type: "ParseError", message: c.parseError };
  if (usageError !== undefined) return usageError;
  if (producesTokens && c.responseTimes.length === 0) {
    return c.usage === undefined ? EMPTY_ANSWER : usageOnlyAnswer(c.usage);
  }
  return undefined;
}

/**
 * The error body as the server sent it, as AIPerf 0.13 keeps it (`error.message` of its records, the Error Summary's
 * message): JSON bodies are not reduced to their `error.message`. Bodies past 64 KiB are cut, with "…".
 */
function errorBodyMessage(body: Uint8Array | undefined): string {
  if (body === undefined || body.length === 0) return "";
  const text = new TextDecoder().decode(body.subarray(0, ERROR_BODY_LIMIT));
  return body.length > ERROR_BODY_LIMIT ? text + "…" : text;
}

const ERROR_BODY_LIMIT = 64 * 1024;
