import assert from "node:assert/strict";
import type { RecordMetricDef, RecordMetrics } from "../../src/metrics/metric_def.ts";
import {
  BENCHMARK_DURATION,
  ERROR_ISL,
  GOOD_REQUEST_COUNT,
  GOOD_REQUEST_FRACTION,
  GOODPUT,
  INPUT_SEQUENCE_LENGTH,
  INTER_CHUNK_LATENCY,
  INTER_TOKEN_LATENCY,
  MAX_RESPONSE_TIMESTAMP,
  MIN_REQUEST_TIMESTAMP,
  OUTPUT_SEQUENCE_LENGTH,
  OUTPUT_TOKEN_COUNT,
  OUTPUT_TOKEN_THROUGHPUT,
  OUTPUT_TOKEN_THROUGHPUT_PER_USER,
  REASONING_TOKEN_COUNT,
  REQUEST_ERROR_RATE,
  REQUEST_LATENCY,
  REQUEST_THROUGHPUT,
  TIME_TO_FIRST_OUTPUT_TOKEN,
  TIME_TO_FIRST_TOKEN,
  TIME_TO_SECOND_TOKEN,
  TOTAL_ISL,
  TOTAL_TOKEN_THROUGHPUT,
} from "../../src/metrics/metric_defs.ts";
import type { DerivedInputs } from "../../src/metrics/metric_def.ts";
import { makeRecord } from "./record_fixture.ts";

// A streamed request: sent at 1000 ms; content chunks at 1100, 1120, 1150, 1190; the first non-reasoning
// content at 1120; a usage-only chunk at 1200; stream closed at 1205. 5 output + 2 reasoning tokens, ISL 50.
const streamed = makeRecord({
  startAt: 1000,
  responseTimes: [1100, 1120, 1150, 1190],
  firstOutputAt: 1120,
  lastResponseAt: 1200,
  endAt: 1205,
  outputTokens: 5,
  reasoningTokens: 2,
  isl: 50,
});

/** Computes record metrics in dependency order, like the accumulator does. */
function computeAll(defs: readonly RecordMetricDef[], record = streamed): RecordMetrics {
  const values: Record<string, number | readonly number[]> = {};
  for (const def of defs) {
    const v = def.compute(record, values);
    if (v !== undefined) values[def.tag] = v;
  }
  return values;
}

const STREAM_DEFS = [
  REQUEST_LATENCY,
  TIME_TO_FIRST_TOKEN,
  OUTPUT_SEQUENCE_LENGTH,
  INTER_TOKEN_LATENCY,
  OUTPUT_TOKEN_THROUGHPUT_PER_USER,
];

Deno.test("request_latency ends at the last content chunk, not at stream close", () => {
  // 1190 − 1000 = 190 (the usage chunk at 1200 and the close at 1205 do not count)
  assert.equal(REQUEST_LATENCY.compute(streamed, {}), 190);
});

Deno.test("request_latency falls back to the last response, then to the end, without content", () => {
  // no content: lastResponseAt 1300 − 1000 = 300; without it endAt 1400 − 1000 = 400
  assert.equal(REQUEST_LATENCY.compute(makeRecord({ startAt: 1000, lastResponseAt: 1300, endAt: 1400 }), {}), 300);
  assert.equal(REQUEST_LATENCY.compute(makeRecord({ startAt: 1000, endAt: 1400 }), {}), 400);
});

Deno.test("time_to_first_token is the first content response minus the start", () => {
  // 1100 − 1000 = 100
  assert.equal(TIME_TO_FIRST_TOKEN.compute(streamed, {}), 100);
  assert.equal(TIME_TO_FIRST_TOKEN.compute(makeRecord(), {}), undefined);
});

Deno.test("time_to_second_token is the gap between the first two content responses", () => {
  // 1120 − 1100 = 20; one chunk only → absent
  assert.equal(TIME_TO_SECOND_TOKEN.compute(streamed, {}), 20);
  assert.equal(TIME_TO_SECOND_TOKEN.compute(makeRecord({ responseTimes: [5] }), {}), undefined);
});

Deno.test("time_to_first_output_token uses the first non-reasoning content", () => {
  // 1120 − 1000 = 120
  assert.equal(TIME_TO_FIRST_OUTPUT_TOKEN.compute(streamed, {}), 120);
  assert.equal(TIME_TO_FIRST_OUTPUT_TOKEN.compute(makeRecord(), {}), undefined);
});

Deno.test("token counts: output, reasoning, their sum as OSL, and ISL", () => {
  assert.equal(OUTPUT_TOKEN_COUNT.compute(streamed, {}), 5);
  assert.equal(REASONING_TOKEN_COUNT.compute(streamed, {}), 2);
  // OSL = 5 + 2 = 7; without reasoning OSL = output
  assert.equal(OUTPUT_SEQUENCE_LENGTH.compute(streamed, {}), 7);
  assert.equal(OUTPUT_SEQUENCE_LENGTH.compute(makeRecord({ outputTokens: 9 }), {}), 9);
  assert.equal(OUTPUT_SEQUENCE_LENGTH.compute(makeRecord(), {}), undefined);
  assert.equal(INPUT_SEQUENCE_LENGTH.compute(streamed, {}), 50);
});

Deno.test("inter_token_latency averages the decode time over OSL − 1 tokens", () => {
  // (request_latency − TTFT) / (OSL − 1) = (190 − 100) / (7 − 1) = 15
  const values = computeAll(STREAM_DEFS);
  assert.equal(values.inter_token_latency, 15);
  // OSL 1 → no ITL, hence no per-user throughput either
  const single = computeAll(STREAM_DEFS, makeRecord({ startAt: 0, responseTimes: [10], outputTokens: 1 }));
  assert.equal(single.inter_token_latency, undefined);
  assert.equal(single.output_token_throughput_per_user, undefined);
});

Deno.test("output_token_throughput_per_user is 1000 divided by ITL in ms", () => {
  // 1000 / 15 = 66.666… tokens/sec/user
  assert.equal(computeAll(STREAM_DEFS).output_token_throughput_per_user, 1000 / 15);
  // ITL 0 (all tokens in one chunk) → absent instead of infinity
  assert.equal(OUTPUT_TOKEN_THROUGHPUT_PER_USER.compute(streamed, { inter_token_latency: 0 }), undefined);
});

Deno.test("inter_chunk_latency lists every consecutive content gap", () => {
  // [1120 − 1100, 1150 − 1120, 1190 − 1150] = [20, 30, 40]
  assert.deepEqual(INTER_CHUNK_LATENCY.compute(streamed, {}), [20, 30, 40]);
  assert.equal(INTER_CHUNK_LATENCY.compute(makeRecord({ responseTimes: [1] }), {}), undefined);
});

Deno.test("error_isl uses the processed ISL, else the dataset's input tokens", () => {
  assert.equal(ERROR_ISL.compute(makeRecord({ isl: 12, inputTokens: 11 }), {}), 12);
  assert.equal(ERROR_ISL.compute(makeRecord({ inputTokens: 11 }), {}), 11);
});

Deno.test("timestamp aggregates read the start and the start plus latency", () => {
  assert.equal(MIN_REQUEST_TIMESTAMP.compute(streamed, {}, {}), 1000);
  // 1000 + 190 = 1190
  assert.equal(MAX_RESPONSE_TIMESTAMP.compute(streamed, { request_latency: 190 }, {}), 1190);
  // run-clock 1000 ms at origin 1.7e12 ms → (1.7e12 + 1000) · 1e6 ns
  assert.equal(MIN_REQUEST_TIMESTAMP.toDisplay?.(1000, { timeOriginMs: 1.7e12 }), (1.7e12 + 1000) * 1e6);
});

Deno.test("good_request_count counts a record only when the goodput evaluator accepts it", () => {
  assert.equal(GOOD_REQUEST_COUNT.compute(streamed, {}, { isGood: () => true }), 1);
  assert.equal(GOOD_REQUEST_COUNT.compute(streamed, {}, { isGood: () => false }), 0);
  assert.equal(GOOD_REQUEST_COUNT.compute(streamed, {}, {}), undefined);
});

/** Derived inputs from plain maps. */
function inputs(
  values: Record<string, number>,
  sums: Record<string, number> = {},
  windowSec?: number,
): DerivedInputs {
  return {
    value: (t) => values[t],
    sum: (t) => sums[t],
    count: (t) => (t in sums ? 1 : 0),
    observationSec: () => windowSec ?? values["benchmark_duration"],
    stats: () => undefined,
  };
}

Deno.test("benchmark_duration is the last response minus the first start, in seconds", () => {
  // (1450 − 1000) / 1000 = 0.45 s
  assert.equal(
    BENCHMARK_DURATION.compute(inputs({ min_request_timestamp: 1000, max_response_timestamp: 1450 })),
    0.45,
  );
});

Deno.test("throughputs divide totals by the benchmark duration", () => {
  const m = inputs({ total_osl: 90, total_isl: 30, request_count: 9, benchmark_duration: 4.5 });
  // 90 / 4.5 = 20; (30 + 90) / 4.5 = 26.666…; 9 / 4.5 = 2
  assert.equal(OUTPUT_TOKEN_THROUGHPUT.compute(m), 20);
  assert.equal(TOTAL_TOKEN_THROUGHPUT.compute(m), 120 / 4.5);
  assert.equal(REQUEST_THROUGHPUT.compute(m), 2);
  assert.equal(REQUEST_THROUGHPUT.compute(inputs({ request_count: 9, benchmark_duration: 0 })), undefined);
});

Deno.test("total_isl sums the record values", () => {
  assert.equal(TOTAL_ISL.compute(inputs({}, { input_sequence_length: 123 })), 123);
  assert.equal(TOTAL_ISL.compute(inputs({})), undefined);
});

Deno.test("request_error_rate is the failed share in percent, also at 0 and 100 percent", () => {
  // 100 · 3 / (2 + 3) = 60
  assert.equal(REQUEST_ERROR_RATE.compute(inputs({ request_count: 2, error_request_count: 3 })), 60);
  assert.equal(REQUEST_ERROR_RATE.compute(inputs({ request_count: 4 })), 0);
  assert.equal(REQUEST_ERROR_RATE.compute(inputs({ error_request_count: 4 })), 100);
  assert.equal(REQUEST_ERROR_RATE.compute(inputs({})), undefined);
});

Deno.test("goodput and good_request_fraction divide the good count by duration and by all requests", () => {
  const m = inputs({ good_request_count: 3, request_count: 4, error_request_count: 2, benchmark_duration: 1.5 });
  // 3 / 1.5 = 2 req/s; 3 / (4 + 2) = 0.5
  assert.equal(GOODPUT.compute(m), 2);
  assert.equal(GOOD_REQUEST_FRACTION.compute(m), 0.5);
});

Deno.test("usage_* metrics are the server's reported counts, absent when it reported none, and follow capabilities", async () => {
  const { USAGE_PROMPT_TOKENS, USAGE_COMPLETION_TOKENS, USAGE_TOTAL_TOKENS, USAGE_REASONING_TOKENS } = await import(
    "../../src/metrics/metric_defs.ts"
  );
  const { metricApplies } = await import("../../src/metrics/metric_registry.ts");
  const reported = makeRecord({
    usage: { promptTokens: 12, completionTokens: 7, totalTokens: 19, reasoningTokens: 3 },
  });
  const values: RecordMetrics = {};
  assert.equal(USAGE_PROMPT_TOKENS.compute(reported, values), 12);
  assert.equal(USAGE_COMPLETION_TOKENS.compute(reported, values), 7);
  assert.equal(USAGE_TOTAL_TOKENS.compute(reported, values), 19);
  assert.equal(USAGE_REASONING_TOKENS.compute(reported, values), 3);
  const silent = makeRecord({ usage: undefined });
  assert.equal(USAGE_PROMPT_TOKENS.compute(silent, values), undefined);
  // An embeddings run (no output tokens) keeps the prompt count only.
  const embeddings = {
    streaming: false,
    producesTokens: false,
    tokenizesInput: true,
    supportsReasoning: false,
    goodput: false,
  };
  assert.equal(metricApplies(USAGE_PROMPT_TOKENS, embeddings), true);
  assert.equal(metricApplies(USAGE_COMPLETION_TOKENS, embeddings), false);
});
