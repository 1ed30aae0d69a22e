/**
 * One line of `profile_export_raw.jsonl` (`--export-level raw`), in AIPerf 0.13's layout: what was sent and
 * everything received, for debugging a server's answers.
 *
 * `{"metadata": {…as in profile_export.jsonl}, "start_perf_ns": <request start, monotonic ns>,
 *   "request_headers": {name: value}, "status": <HTTP status>,
 *   "responses": [{"perf_ns": <arrival, monotonic ns>, "packets": [{"name": "data", "value": <SSE data>}]}…]
 *     (a non-streamed body is `{"perf_ns", "text"}`),
 *   "payload": <request body>, "error": {…} (failed requests only)}`
 *
 * Monotonic ns are the run clock's ms · 10⁶ (AIPerf's `perf_counter_ns` analogue: comparable within a run).
 * Header values other than a short list of harmless ones are written as `<redacted>`, and so are the payload's
 * secret-looking fields, so credentials never reach the file; the wire body is not changed.
 */
import { redactSecretKeys } from "../base/redact_secrets.ts";
import type { RequestRecord } from "../records/request_record.ts";
import { epochNsDigits } from "./epoch_ns.ts";
import { errorJson, phaseFields } from "./jsonl_writer.ts";

/** Header names whose values are written as sent; every other value is `<redacted>`. */
const SHOWN_HEADERS = new Set(["user-agent", "accept", "content-type", "x-request-id", "x-correlation-id"]);

export interface RawLineContext {
  /** Epoch ms at run-clock 0. */
  readonly timeOriginMs: number;
  /** The run's constant request headers (the per-request ids are added from the record). */
  readonly commonHeaders?: ReadonlyArray<readonly [string, string]>;
  /** A warmup phase runs before profiling. @default false */
  readonly withWarmup?: boolean;
}

function perfNs(t: number): string {
  return String(Math.round(t * 1e6));
}

/** The headers object of a request, values redacted except for harmless names. */
export function rawRequestHeaders(
  record: Pick<RequestRecord, "xRequestId" | "xCorrelationId">,
  common: ReadonlyArray<readonly [string, string]>,
): Record<string, string> {
  const out: Record<string, string> = {};
  const all: [string, string][] = [
    ...common.map(([k, v]) => [k, v] as [string, string]),
    ["X-Request-ID", record.xRequestId],
    ["X-Correlation-ID", record.xCorrelationId],
    ["X-Session-Affinity", record.xCorrelationId],
  ];
  for (const [name, value] of all) out[name] = SHOWN_HEADERS.has(name.toLowerCase()) ? value : "<redacted>";
  return out;
}

/** The line for a record; its payload is the body it sent (`sentBody`): JSON bodies as JSON, anything else as text. */
export function rawRecordLine(record: RequestRecord, ctx: RawLineContext): string {
  let payload: unknown = null;
  if (record.sentBody !== undefined) {
    try {
      // Secret-looking fields (`api_key`, `password` from --extra-inputs) are published as `<redacted>`.
      payload = redactSecretKeys(JSON.parse(record.sentBody));
    } catch {
      payload = record.sentBody;
    }
  }
  const ns = (t: number) => epochNsDigits(ctx.timeOriginMs, t);
  const streamed = (record.rawResponses?.length ?? 0) > 1 || record.responseTimes.length > 1;
  const responses = (record.rawResponses ?? []).map((r) =>
    streamed
      ? `{"perf_ns":${perfNs(r.t)},"packets":[{"name":"data","value":${JSON.stringify(r.text)}}]}`
      : `{"perf_ns":${perfNs(r.t)},"text":${JSON.stringify(r.text)}}`
  );
  let meta = `"session_num":${record.sessionNum},"x_request_id":${JSON.stringify(record.xRequestId)}` +
    `,"x_correlation_id":${JSON.stringify(record.xCorrelationId)},"conversation_id":${
      JSON.stringify(record.conversationId)
    },"turn_index":${record.turnIndex},"credit_issued_ns":${ns(record.creditIssuedAt)},"request_start_ns":${
      ns(record.startAt)
    }`;
  if (record.headersAt !== undefined) meta += `,"request_ack_ns":${ns(record.headersAt)}`;
  meta += `,"request_end_ns":${ns(record.endAt)},"worker_id":${JSON.stringify(record.workerId)}` +
    `,"record_processor_id":"record_processor_0",${
      phaseFields(record.phase, ctx.withWarmup)
    },"was_cancelled":${record.cancelled}`;
  if (record.cancelled) meta += `,"cancellation_time_ns":${ns(record.endAt)}`;
  meta += `,"context_overflow_skip":false,"agent_depth":${record.lineage?.agentDepth ?? 0}`;
  if (record.lineage !== undefined) {
    meta += `,"parent_correlation_id":${JSON.stringify(record.lineage.parentCorrelationId)}`;
  }
  meta += `,"root_correlation_id":${JSON.stringify(record.lineage?.rootCorrelationId ?? record.xCorrelationId)}`;
  const headers = JSON.stringify(rawRequestHeaders(record, ctx.commonHeaders ?? []));
  const error = errorJson(record.error, record.cancelled);
  return `{"metadata":{${meta}},"start_perf_ns":${perfNs(record.startAt)},"request_headers":${headers},"status":${
    record.status ?? "null"
  },"responses":[${responses.join(",")}],"payload":${JSON.stringify(payload)}${
    error === undefined ? "" : `,"error":${error}`
  }}`;
}
