/**
 * The records the record-path benches feed through measuring, folding and the JSONL line: shaped like `serve-sim`'s
 * answers (every HTTP trace field set, 32 input tokens), each with its own ids and slightly different times.
 */
import type { ProcessedRecord } from "../../src/records/request_record.ts";

/** A kind of answer: its name in reports, whether it streamed, and its output tokens. */
export interface RecordShape {
  readonly name: string;
  readonly streaming: boolean;
  readonly tokens: number;
}

/** The `i`-th record of `shape`. */
export function benchRecord(i: number, shape: RecordShape): ProcessedRecord {
  const t = 1000 + i * 0.137;
  const ttft = 1.5 + (i % 97) * 0.013;
  const responseTimes = Array.from({ length: shape.tokens }, (_, k) => t + ttft + k * 0.0131 + (i % 7) * 1e-3);
  const last = responseTimes[responseTimes.length - 1];
  return {
    phase: "profiling",
    requestIndex: i,
    sessionNum: i % 64,
    conversationId: `session_${String(i % 100).padStart(6, "0")}`,
    turnIndex: 0,
    xRequestId: crypto.randomUUID(),
    xCorrelationId: crypto.randomUUID(),
    workerId: "worker_0",
    creditIssuedAt: t - 0.004,
    startAt: t,
    sentAt: t + 0.011,
    writeStartAt: t + 0.002,
    headersAt: t + ttft,
    firstBodyAt: t + ttft,
    lastBodyAt: last,
    endAt: last + 0.001,
    responseTimes,
    lastResponseAt: last,
    firstOutputAt: responseTimes[0],
    status: 200,
    content: " the".repeat(shape.tokens),
    reasoning: "",
    usage: { promptTokens: 32, completionTokens: shape.tokens, totalTokens: 32 + shape.tokens },
    finishReason: "length",
    cancelled: false,
    inputTokens: 32,
    requestedOutputTokens: shape.tokens,
    connectionReused: true,
    bytesSent: 305,
    bytesReceived: 285 + shape.tokens * 180,
    bodyBytesSent: 180,
    bodyBytesReceived: 160 + shape.tokens * 180,
    chunksSent: 1,
    chunksReceived: shape.streaming ? 1 + Math.ceil(shape.tokens / 8) : 1,
    outputTokens: shape.tokens,
    reasoningTokens: 0,
    isl: 32,
  };
}
