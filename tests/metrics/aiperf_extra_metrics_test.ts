/**
 * The metrics AIPerf 0.13 reports beyond the core set (decode, end-to-end and prefill rates, server usage and its
 * discrepancies, OSL mismatch, credit and CO-aware latencies, the HTTP trace), each against values worked out by
 * hand from one record.
 */
import assert from "node:assert/strict";
import type { DerivedInputs, RecordMetricDef, RecordMetrics } from "../../src/metrics/metric_def.ts";
import {
  COMPLETED_REQUEST_COUNT,
  CONTEXT_OVERFLOW_COUNT,
  CREDIT_TO_START_LATENCY,
  DECODE_DURATION,
  E2E_OUTPUT_TOKEN_THROUGHPUT,
  EFFECTIVE_LATENCY,
  HTTP_REQ_BLOCKED,
  HTTP_REQ_CHUNKS_RECEIVED,
  HTTP_REQ_CHUNKS_SENT,
  HTTP_REQ_CONNECTING,
  HTTP_REQ_CONNECTION_OVERHEAD,
  HTTP_REQ_CONNECTION_REUSED,
  HTTP_REQ_DATA_RECEIVED,
  HTTP_REQ_DATA_SENT,
  HTTP_REQ_DNS_LOOKUP,
  HTTP_REQ_DURATION,
  HTTP_REQ_RECEIVING,
  HTTP_REQ_SENDING,
  HTTP_REQ_TOTAL,
  HTTP_REQ_WAITING,
  INPUT_TOKEN_THROUGHPUT,
  isContextOverflow,
  OSL_MISMATCH_COUNT,
  OSL_MISMATCH_DIFF_PCT,
  OVERALL_USAGE_PROMPT_CACHE_READ_PCT,
  PREFILL_THROUGHPUT_PER_USER,
  REQUEST_THROUGHPUT,
  TOTAL_USAGE_PROMPT_TOKENS,
  USAGE_ACCEPTED_PREDICTION_TOKENS,
  USAGE_COMPLETION_AUDIO_TOKENS,
  USAGE_COMPLETION_TOKENS,
  USAGE_COMPLETION_TOKENS_DIFF_PCT,
  USAGE_DISCREPANCY_COUNT,
  USAGE_PROMPT_AUDIO_TOKENS,
  USAGE_PROMPT_CACHE_READ_TOKENS,
  USAGE_PROMPT_TOKENS,
  USAGE_PROMPT_TOKENS_DIFF_PCT,
  USAGE_REJECTED_PREDICTION_TOKENS,
  USAGE_TOTAL_TOKENS,
} from "../../src/metrics/metric_defs.ts";
import { makeRecord } from "./record_fixture.ts";

function close(actual: number | undefined, expected: number, eps = 1e-9): void {
  assert.ok(actual !== undefined && Math.abs(actual - expected) < eps, `${actual} ≠ ${expected}`);
}

/** Runs record metrics in order over one record, as the accumulator does. */
function compute(record: ReturnType<typeof makeRecord>, defs: RecordMetricDef[], seed: RecordMetrics = {}) {
  const values: Record<string, number | readonly number[]> = { ...seed };
  for (const def of defs) {
    const v = def.compute(record, values);
    if (v !== undefined) values[def.tag] = v;
  }
  return values as Record<string, number>;
}

// A streamed request on a fresh connection (run-clock ms): permit at 990, start 1000, waited 2 ms for a pool slot
// (1000–1002), connected 1002–1005, wrote 1005–1005.5, first body read 1040, last 1290 over 40 reads; 600 body
// bytes sent, 10 240 received. The server's usage says 98 prompt / 52 completion / 150 total tokens; we counted
// ISL 100, OSL 50 of 50 requested.
const record = makeRecord({
  creditIssuedAt: 990,
  startAt: 1000,
  poolWaitStartAt: 1000,
  poolWaitEndAt: 1002,
  connectStartAt: 1002,
  connectEndAt: 1005,
  writeStartAt: 1005,
  sentAt: 1005.5,
  firstBodyAt: 1040,
  lastBodyAt: 1290,
  endAt: 1290,
  connectionReused: false,
  chunksSent: 1,
  chunksReceived: 40,
  bodyBytesSent: 600,
  bodyBytesReceived: 10240,
  usage: { promptTokens: 98, completionTokens: 52, totalTokens: 150 },
  requestedOutputTokens: 50,
});
const core = { request_latency: 290, time_to_first_token: 40, output_sequence_length: 50, input_sequence_length: 100 };

Deno.test("decode_duration, e2e_output_token_throughput and prefill_throughput_per_user from latency, TTFT, ISL, OSL", () => {
  const v = compute(record, [DECODE_DURATION, E2E_OUTPUT_TOKEN_THROUGHPUT, PREFILL_THROUGHPUT_PER_USER], core);
  close(v.decode_duration, 250); // 290 − 40
  close(v.e2e_output_token_throughput, 50 / 0.29); // 172.41… tokens/s
  close(v.prefill_throughput_per_user, 100 / 0.04); // 2500 tokens/s
});

Deno.test("usage metrics read the server's usage, and their differences are |server − ours| / ours in percent", () => {
  const v = compute(record, [
    USAGE_PROMPT_TOKENS,
    USAGE_COMPLETION_TOKENS,
    USAGE_TOTAL_TOKENS,
    USAGE_PROMPT_TOKENS_DIFF_PCT,
    USAGE_COMPLETION_TOKENS_DIFF_PCT,
  ], core);
  assert.equal(v.usage_prompt_tokens, 98);
  assert.equal(v.usage_completion_tokens, 52);
  assert.equal(v.usage_total_tokens, 150);
  close(v.usage_prompt_tokens_diff_pct, 2); // |98 − 100| / 100
  close(v.usage_completion_tokens_diff_pct, 4); // |52 − 50| / 50
  // Neither difference is over 10 %: no discrepancy; a 12 % one is.
  assert.equal(USAGE_DISCREPANCY_COUNT.compute(record, v, {}), 0);
  assert.equal(USAGE_DISCREPANCY_COUNT.compute(record, { ...v, usage_completion_tokens_diff_pct: 12 }, {}), 1);
  assert.equal(compute(makeRecord(), [USAGE_PROMPT_TOKENS]).usage_prompt_tokens, undefined);
});

Deno.test("usage details read cache, prediction and audio counts; the overall cache share weights by tokens", () => {
  const r = makeRecord({
    usage: {
      promptTokens: 200,
      completionTokens: 20,
      promptCacheReadTokens: 150,
      acceptedPredictionTokens: 7,
      rejectedPredictionTokens: 3,
      promptAudioTokens: 0,
    },
  });
  const v = compute(r, [
    USAGE_PROMPT_CACHE_READ_TOKENS,
    USAGE_ACCEPTED_PREDICTION_TOKENS,
    USAGE_REJECTED_PREDICTION_TOKENS,
    USAGE_PROMPT_AUDIO_TOKENS,
    USAGE_COMPLETION_AUDIO_TOKENS,
  ]);
  assert.deepEqual(v, {
    usage_prompt_cache_read_tokens: 150,
    usage_accepted_prediction_tokens: 7,
    usage_rejected_prediction_tokens: 3,
    usage_prompt_audio_tokens: 0,
  });
  // Two requests: 150 of 200 and 0 of 600 prompt tokens cached → 150 / 800 = 18.75 %, not the mean of 75 % and 0 %.
  const totals: Record<string, number> = { total_usage_prompt_cache_read_tokens: 150, total_usage_prompt_tokens: 800 };
  const inputs = (values: Record<string, number>): DerivedInputs => ({
    value: (t) => values[t],
    sum: () => undefined,
    count: () => 0,
    observationSec: () => 1,
    stats: () => undefined,
  });
  close(OVERALL_USAGE_PROMPT_CACHE_READ_PCT.compute(inputs(totals)) as number, 18.75);
  assert.equal(
    OVERALL_USAGE_PROMPT_CACHE_READ_PCT.compute(inputs({ ...totals, total_usage_prompt_tokens: 0 })),
    undefined,
  );
});

Deno.test("context overflow count recognises AIPerf's phrases in the body or its error.message", () => {
  const failed = (message: string) => makeRecord({ error: { type: "Bad Request", code: 400, message } });
  // vLLM's 400 body, and Anthropic's.
  const vllm = JSON.stringify({
    object: "error",
    message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
    type: "BadRequestError",
    code: 400,
  });
  assert.equal(CONTEXT_OVERFLOW_COUNT.compute(failed(vllm), {}, {}), 1);
  const nested = JSON.stringify({ error: { message: "Prompt is too long: 210000 tokens > 200000", type: "x" } });
  assert.equal(CONTEXT_OVERFLOW_COUNT.compute(failed(nested), {}, {}), 1);
  assert.equal(CONTEXT_OVERFLOW_COUNT.compute(failed('{"error":"context_length_exceeded"}'), {}, {}), 1);
  assert.equal(CONTEXT_OVERFLOW_COUNT.compute(failed("Internal Server Error"), {}, {}), 0);
  assert.equal(isContextOverflow("EXCEEDS THE CONTEXT LENGTH"), true);
});

Deno.test("OSL mismatch is signed against the requested length; the count uses min(5 %, 50 tokens)", () => {
  close(OSL_MISMATCH_DIFF_PCT.compute(record, { output_sequence_length: 45 }) as number, -10); // (45 − 50) / 50
  assert.equal(OSL_MISMATCH_DIFF_PCT.compute(makeRecord(), { output_sequence_length: 45 }), undefined);
  // requested 50: threshold min(2.5, 50) = 2.5 tokens → 47 is a mismatch (3 off), 48 is not (2 off)
  assert.equal(OSL_MISMATCH_COUNT.compute(record, { output_sequence_length: 47 }, {}), 1);
  assert.equal(OSL_MISMATCH_COUNT.compute(record, { output_sequence_length: 48 }, {}), 0);
  // requested 2000: threshold min(100, 50) = 50 tokens
  const long = makeRecord({ requestedOutputTokens: 2000 });
  assert.equal(OSL_MISMATCH_COUNT.compute(long, { output_sequence_length: 1949 }, {}), 1);
  assert.equal(OSL_MISMATCH_COUNT.compute(long, { output_sequence_length: 1950 }, {}), 0);
});

Deno.test("credit-to-start and effective (CO-aware) latencies count from the permit", () => {
  close(CREDIT_TO_START_LATENCY.compute(record, {}) as number, 10); // 1000 − 990
  close(EFFECTIVE_LATENCY.compute(record, {}) as number, 300); // 1290 − 990
});

Deno.test("HTTP trace metrics follow k6's phases from the transport's stamps", () => {
  const v = compute(record, [
    HTTP_REQ_BLOCKED,
    HTTP_REQ_DNS_LOOKUP,
    HTTP_REQ_CONNECTING,
    HTTP_REQ_SENDING,
    HTTP_REQ_WAITING,
    HTTP_REQ_RECEIVING,
    HTTP_REQ_DURATION,
    HTTP_REQ_CONNECTION_OVERHEAD,
    HTTP_REQ_TOTAL,
    HTTP_REQ_CONNECTION_REUSED,
    HTTP_REQ_DATA_SENT,
    HTTP_REQ_CHUNKS_SENT,
    HTTP_REQ_DATA_RECEIVED,
    HTTP_REQ_CHUNKS_RECEIVED,
  ]);
  close(v.http_req_blocked, 2);
  close(v.http_req_dns_lookup, 0);
  close(v.http_req_connecting, 3);
  close(v.http_req_sending, 0.5);
  close(v.http_req_waiting, 34.5); // 1040 − 1005.5
  close(v.http_req_receiving, 250); // 1290 − 1040
  close(v.http_req_duration, 285); // 1290 − 1005 = 0.5 + 34.5 + 250
  close(v.http_req_connection_overhead, 5); // 2 + 0 + 3
  close(v.http_req_total, 290); // 5 + 285
  assert.equal(v.http_req_connection_reused, 0);
  close(v.http_req_data_sent, 600 / 1024);
  close(v.http_req_data_received, 10); // 10 240 / 1024 KB
  assert.equal(v.http_req_chunks_sent, 1);
  assert.equal(v.http_req_chunks_received, 40);
  // A reused connection: no connect time; a single-read body: no receiving time; no trace: no values.
  const reused = makeRecord({ ...record, connectionReused: true, chunksReceived: 1 });
  const r = compute(reused, [HTTP_REQ_CONNECTING, HTTP_REQ_RECEIVING, HTTP_REQ_CONNECTION_REUSED]);
  assert.deepEqual([r.http_req_connecting, r.http_req_receiving, r.http_req_connection_reused], [0, 0, 1]);
  assert.deepEqual(compute(makeRecord(), [HTTP_REQ_BLOCKED, HTTP_REQ_CONNECTING, HTTP_REQ_SENDING]), {});
});

Deno.test("throughputs divide by the observation window; completed requests count successes and failures", () => {
  const inputs = (values: Record<string, number>, windowSec?: number): DerivedInputs => ({
    value: (t) => values[t],
    sum: (t) => (t === "usage_prompt_tokens" ? 3932 : undefined),
    count: () => 0,
    observationSec: () => windowSec ?? values.benchmark_duration,
    stats: () => undefined,
  });
  // 4000 input tokens, 40 requests: over the 3.0894 s first-start → last-response span, and over a 3.0934 s window
  const v = { total_isl: 4000, request_count: 40, benchmark_duration: 3.0894 };
  close(INPUT_TOKEN_THROUGHPUT.compute(inputs(v)) as number, 4000 / 3.0894);
  close(INPUT_TOKEN_THROUGHPUT.compute(inputs(v, 3.0934)) as number, 4000 / 3.0934);
  close(REQUEST_THROUGHPUT.compute(inputs(v, 3.0934)) as number, 40 / 3.0934);
  assert.equal(COMPLETED_REQUEST_COUNT.compute(inputs({ request_count: 38, error_request_count: 2 })), 40);
  assert.equal(COMPLETED_REQUEST_COUNT.compute(inputs({})), undefined);
  assert.equal(TOTAL_USAGE_PROMPT_TOKENS.compute(inputs({})), 3932);
});
