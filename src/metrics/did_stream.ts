/**
 * Whether a response came as a stream: several content events, or one carrying at most one token. A server that
 * answers a streaming request with one body (or one event holding the whole answer) has no first token apart from
 * its last, so its TTFT would be its whole latency: such a response is left out of the streaming metrics.
 */
import type { ProcessedRecord } from "../records/request_record.ts";

export function didStream(record: Pick<ProcessedRecord, "responseTimes" | "outputTokens">): boolean {
  return record.responseTimes.length > 1 || !((record.outputTokens ?? 0) > 1);
}
