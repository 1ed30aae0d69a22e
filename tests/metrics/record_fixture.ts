/** Builds `ProcessedRecord`s for tests: a successful single-turn request with the given overrides. */
import type { ProcessedRecord } from "../../src/records/request_record.ts";

export function makeRecord(overrides: Partial<ProcessedRecord> = {}): ProcessedRecord {
  return {
    phase: "profiling",
    requestIndex: 0,
    sessionNum: 0,
    conversationId: "conv-0",
    turnIndex: 0,
    xRequestId: "req-0",
    xCorrelationId: "corr-0",
    workerId: "worker_0",
    creditIssuedAt: 0,
    startAt: 0,
    endAt: 0,
    responseTimes: [],
    content: "",
    reasoning: "",
    cancelled: false,
    ...overrides,
  };
}
