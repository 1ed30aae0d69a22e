/**
 * One line of `profile_export_raw.jsonl` (`--export-level raw`): what was sent and everything received, for
 * debugging a server's answers. infermeter's own layout (AIPerf documents the file's purpose, not a schema):
 *
 * `{"metadata": {x_request_id, x_correlation_id, conversation_id, turn_index, request_start_ns, request_end_ns,
 *   worker_id, benchmark_phase}, "status": <HTTP status>, "payload": <request body>,
 *   "responses": [{"timestamp_ns": <arrival, epoch ns>, "text": <SSE data or whole body>}…], "error": …}`
 */
import type { RequestRecord } from "../records/request_record.ts";
import { epochNsDigits } from "./epoch_ns.ts";

/** The line for a record that carries the body it sent (`sentBody`): JSON bodies as JSON, anything else as text. */
export function rawRecordLine(record: RequestRecord, timeOriginMs: number): string {
  let payload: unknown = null;
  if (record.sentBody !== undefined) {
    try {
      payload = JSON.parse(record.sentBody);
    } catch {
      payload = record.sentBody;
    }
  }
  const ns = (t: number) => epochNsDigits(timeOriginMs, t);
  const responses = (record.rawResponses ?? []).map((r) =>
    `{"timestamp_ns":${ns(r.t)},"text":${JSON.stringify(r.text)}}`
  );
  const meta = [
    `"x_request_id":${JSON.stringify(record.xRequestId)}`,
    `"x_correlation_id":${JSON.stringify(record.xCorrelationId)}`,
    `"conversation_id":${JSON.stringify(record.conversationId)}`,
    `"turn_index":${record.turnIndex}`,
    `"request_start_ns":${ns(record.startAt)}`,
    `"request_end_ns":${ns(record.endAt)}`,
    `"worker_id":${JSON.stringify(record.workerId)}`,
    `"benchmark_phase":${JSON.stringify(record.phase)}`,
  ];
  const error = record.error === undefined ? "null" : JSON.stringify(record.error);
  return `{"metadata":{${meta.join(",")}},"status":${record.status ?? "null"},"payload":${
    JSON.stringify(payload)
  },"responses":[${responses.join(",")}],"error":${error}}`;
}
