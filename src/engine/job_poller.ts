/**
 * One request to an API that answers with a job (video generation): submit, then poll `GET <path>/<id>` every
 * `pollIntervalMs` until the job is completed or failed, all within the request's deadline, then (optionally)
 * download `GET <path>/<id>/content`. The exchanges are folded into one, so the record is built as for any other
 * request: the submission's connection, write and acknowledgement times, the final status answer's status, body and
 * arrival time (the request's end, as in AIPerf), and every exchange's bytes.
 */
import type { JobProtocol } from "../endpoints/endpoint_adapter.ts";
import type { HttpExchange, HttpRequest, SendOptions } from "../transport/http_exchange.ts";

/** The transport as the poller sees it (the executor's sender); `route` is handed on as it is. */
export interface JobSender<R> {
  send(req: HttpRequest, opts: SendOptions, route: R): Promise<HttpExchange>;
}

export interface JobOptions {
  readonly job: JobProtocol;
  /** Between one status answer and the next poll (AIPerf: `AIPERF_HTTP_VIDEO_POLL_INTERVAL`, 0.1 s). */
  readonly pollIntervalMs: number;
  /** Download the finished job's content (`--download-video-content`). */
  readonly downloadContent?: boolean;
  /** Waits `ms`, or less when the signal aborts; tests pass a manual one. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const DEFAULT_POLL_INTERVAL_MS = 100;

function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

function isOk(ex: HttpExchange): boolean {
  return ex.error === undefined && ex.status !== undefined && ex.status >= 200 && ex.status < 300;
}

function readJson(body: Uint8Array | undefined): unknown {
  if (body === undefined) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
}

/** The submission's timing and connection facts, the last exchange's answer, and the bytes of all of them. */
function fold(first: HttpExchange, rest: readonly HttpExchange[]): HttpExchange {
  if (rest.length === 0) return first;
  const last = rest[rest.length - 1];
  const all = [first, ...rest];
  const sum = (f: (e: HttpExchange) => number | undefined) => all.reduce((n, e) => n + (f(e) ?? 0), 0);
  const retries = sum((e) => e.retries);
  return {
    ...first,
    lastBodyAt: last.lastBodyAt ?? first.lastBodyAt,
    lastByteAt: last.lastByteAt,
    status: last.status,
    headers: last.headers,
    streamed: false,
    body: last.body,
    bodyReads: sum((e) => e.bodyReads),
    bodyBytesReceived: sum((e) => e.bodyBytesReceived),
    bytesSent: sum((e) => e.bytesSent),
    bytesReceived: sum((e) => e.bytesReceived),
    retries: retries > 0 ? retries : undefined,
    contentEncoding: last.contentEncoding,
    error: last.error,
  };
}

/**
 * Submits `request` and follows its job to the end. A failed submission, a failed poll (transport error or non-2xx)
 * or the deadline ends it with that exchange's outcome; a submission that names no job, or a job that ends at once,
 * ends with the submission's answer (the adapter's `parseBody` then says what is wrong with it).
 */
export async function sendJob<R>(
  sender: JobSender<R>,
  request: HttpRequest,
  opts: SendOptions,
  route: R,
  o: JobOptions,
): Promise<HttpExchange> {
  const submitted = await sender.send(request, opts, route);
  if (!isOk(submitted)) return submitted;
  const state = o.job.readJob(readJson(submitted.body));
  if (state === undefined || state.id === undefined || state.status !== "pending") return submitted;
  const sleep = o.sleep ?? sleepFor;
  const statusPath = `${request.path.replace(/\/+$/, "")}/${encodeURIComponent(state.id)}`;
  const get = (path: string): HttpRequest => ({
    method: "GET",
    path,
    commonHeaders: request.commonHeaders,
    headers: request.headers,
  });
  const polls: HttpExchange[] = [];
  while (true) {
    if (opts.deadline !== undefined && performance.now() >= opts.deadline) {
      return fold(submitted, [...polls, timedOut(polls.at(-1) ?? submitted)]);
    }
    await sleep(o.pollIntervalMs, opts.signal);
    if (opts.signal?.aborted) {
      const at = performance.now();
      return fold(submitted, [...polls, {
        ...submitted,
        lastByteAt: at,
        body: undefined,
        bytesSent: 0,
        bytesReceived: 0,
        error: { kind: "cancelled", message: "request cancelled" },
      }]);
    }
    const poll = await sender.send(get(statusPath), { signal: opts.signal, deadline: opts.deadline }, route);
    polls.push(poll);
    if (!isOk(poll)) return fold(submitted, polls);
    const now = o.job.readJob(readJson(poll.body));
    if (now?.status === "pending") continue;
    if (now?.status === "completed" && o.downloadContent) {
      const content = await sender.send(get(`${statusPath}/content`), {
        signal: opts.signal,
        deadline: opts.deadline,
      }, route);
      // The video itself is read and dropped (as AIPerf); the record keeps the status answer as its body.
      if (!isOk(content)) return fold(submitted, [...polls, content]);
      return fold(submitted, [...polls, {
        ...poll,
        bytesSent: content.bytesSent,
        bytesReceived: content.bytesReceived,
        bodyReads: content.bodyReads,
        bodyBytesReceived: content.bodyBytesReceived,
        retries: content.retries,
      }]);
    }
    return fold(submitted, polls);
  }
}

/** The job outlived the request's deadline while it was still pending. */
function timedOut(last: HttpExchange): HttpExchange {
  return {
    ...last,
    lastByteAt: performance.now(),
    body: undefined,
    bytesSent: 0,
    bytesReceived: 0,
    bodyReads: 0,
    bodyBytesReceived: 0,
    retries: undefined,
    error: { kind: "timeout", message: "the job did not complete within the request timeout" },
  };
}
