/**
 * Every metric infermeter publishes, declared once. Tags, headers, units and formulas follow AIPerf
 * (`reference/aiperf.md` §2.2–2.4); each formula sits in the doc comment beside its `compute`.
 *
 * Notation: `start` = `record.startAt`; `content[i]` = `record.responseTimes[i]` (arrival of the i-th response
 * carrying text, reasoning or tool calls); all times are run-clock ms; `duration_s` = benchmark duration in s.
 * Record and aggregate metrics see successful records only, except those flagged `errorOnly`.
 */
import type { AggregateMetricDef, DerivedMetricDef, MetricDef, MetricUnit, RecordMetricDef } from "./metric_def.ts";
import type { Usage } from "../endpoints/endpoint_adapter.ts";
import { didStream } from "./did_stream.ts";
import { SPEC_DECODE_METRIC_DEFS } from "./spec_decode_metrics.ts";

/** Reads a numeric value of an already computed record metric. */
function num(values: Readonly<Record<string, unknown>>, tag: string): number | undefined {
  const v = values[tag];
  return typeof v === "number" ? v : undefined;
}

/** `a / b`, undefined when either is missing or `b` is not positive. */
function ratio(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined || !(b > 0) ? undefined : a / b;
}

/** The last content response, else the last response of any kind, else the end of the exchange. */
function lastContentAt(r: { responseTimes: readonly number[]; lastResponseAt?: number; endAt: number }): number {
  const n = r.responseTimes.length;
  return n > 0 ? r.responseTimes[n - 1] : (r.lastResponseAt ?? r.endAt);
}

// ---------------------------------------------------------------------------------------------- record metrics

/** `request_latency = content[-1] − start` (falls back to the last response, then `endAt`, without content).
 * AIPerf ends the request at the last content chunk, not at stream close. */
export const REQUEST_LATENCY: RecordMetricDef = {
  tag: "request_latency",
  tier: "headline",
  header: "Request Latency",
  shortHeader: "Req Latency",
  unit: "ms",
  kind: "record",
  requires: [],
  flags: { percentileIncludesFailedRequests: true },
  displayOrder: 300,
  compute: (r) => lastContentAt(r) - r.startAt,
};

/** `video_inference_time = inference_time_s × 1000` of the completed video job: the server's own generation time
 * (SGLang), shown in ms. */
export const VIDEO_INFERENCE_TIME: RecordMetricDef = {
  tag: "video_inference_time",
  header: "Video Inference Time",
  shortHeader: "Inference Time",
  unit: "ms",
  kind: "record",
  requires: [],
  flags: { producesVideoOnly: true },
  displayOrder: 310,
  compute: (r) => r.videoInferenceTimeS === undefined ? undefined : r.videoInferenceTimeS * 1000,
};

/** `video_peak_memory = peak_memory_mb` of the completed video job: the server's peak GPU memory (SGLang), MB. */
export const VIDEO_PEAK_MEMORY: RecordMetricDef = {
  tag: "video_peak_memory",
  header: "Video Peak Memory",
  shortHeader: "Peak Memory",
  unit: "MB",
  kind: "record",
  requires: [],
  flags: { producesVideoOnly: true },
  displayOrder: 311,
  compute: (r) => r.videoPeakMemoryMb,
};

/** `time_to_first_token = content[0] − start` (reasoning counts as a token, unlike GenAI-Perf). */
export const TIME_TO_FIRST_TOKEN: RecordMetricDef = {
  tag: "time_to_first_token",
  tier: "headline",
  header: "Time to First Token",
  shortHeader: "TTFT",
  unit: "ms",
  kind: "record",
  requires: [],
  flags: { percentileIncludesFailedRequests: true, streamingOnly: true, producesTokensOnly: true },
  displayOrder: 100,
  compute: (r) => (r.responseTimes.length > 0 ? r.responseTimes[0] - r.startAt : undefined),
};

/** `time_to_second_token = content[1] − content[0]`; needs two content responses. */
export const TIME_TO_SECOND_TOKEN: RecordMetricDef = {
  tag: "time_to_second_token",
  header: "Time to Second Token",
  shortHeader: "TTST",
  unit: "ms",
  kind: "record",
  requires: [],
  flags: { streamingOnly: true, producesTokensOnly: true },
  displayOrder: 200,
  compute: (r) => (r.responseTimes.length > 1 ? r.responseTimes[1] - r.responseTimes[0] : undefined),
};

/** `time_to_first_output_token = firstOutputAt − start` (first non-reasoning content; GenAI-Perf's TTFT). */
export const TIME_TO_FIRST_OUTPUT_TOKEN: RecordMetricDef = {
  tag: "time_to_first_output_token",
  header: "Time to First Output Token",
  shortHeader: "TTFO",
  unit: "ms",
  kind: "record",
  requires: [],
  flags: { streamingOnly: true, producesTokensOnly: true },
  displayOrder: 210,
  compute: (r) => (r.firstOutputAt === undefined ? undefined : r.firstOutputAt - r.startAt),
};

/** `output_token_count = tokens(content)` (tool-call text included; server usage with server token counts). */
export const OUTPUT_TOKEN_COUNT: RecordMetricDef = {
  tag: "output_token_count",
  header: "Output Token Count",
  shortHeader: "Output Tokens",
  unit: "tokens",
  kind: "record",
  requires: [],
  consoleGroup: "none",
  flags: { producesTokensOnly: true },
  displayOrder: 650,
  compute: (r) => r.outputTokens,
};

/** `reasoning_token_count = tokens(reasoning)`. */
export const REASONING_TOKEN_COUNT: RecordMetricDef = {
  tag: "reasoning_token_count",
  header: "Reasoning Token Count",
  shortHeader: "Reasoning Tokens",
  unit: "tokens",
  kind: "record",
  requires: [],
  consoleGroup: "none",
  flags: { producesTokensOnly: true, supportsReasoningOnly: true, consoleOnlyIfNonZero: true },
  displayOrder: 660,
  // AIPerf has no value for a request that returned no reasoning (so non-reasoning models show no row).
  compute: (r) => (r.reasoning === "" && !r.reasoningTokens ? undefined : r.reasoningTokens),
};

/** `output_sequence_length = output_token_count + reasoning_token_count` (reasoning 0 when unknown). */
export const OUTPUT_SEQUENCE_LENGTH: RecordMetricDef = {
  tag: "output_sequence_length",
  header: "Output Sequence Length",
  shortHeader: "OSL",
  unit: "tokens",
  kind: "record",
  requires: [],
  flags: { producesTokensOnly: true, largerIsBetter: true },
  displayOrder: 600,
  compute: (r) => (r.outputTokens === undefined ? undefined : r.outputTokens + (r.reasoningTokens ?? 0)),
};

/** `input_sequence_length = tokens(prompt)` (client tokenizer, or server `prompt_tokens`). */
export const INPUT_SEQUENCE_LENGTH: RecordMetricDef = {
  tag: "input_sequence_length",
  header: "Input Sequence Length",
  shortHeader: "ISL",
  unit: "tokens",
  kind: "record",
  requires: [],
  flags: { tokenizesInputOnly: true, largerIsBetter: true },
  displayOrder: 700,
  compute: (r) => r.isl,
};

/** `inter_token_latency = (request_latency − time_to_first_token) / (output_sequence_length − 1)`; needs
 * OSL ≥ 2. A per-request average (TPOT), not per-token gaps. */
export const INTER_TOKEN_LATENCY: RecordMetricDef = {
  tag: "inter_token_latency",
  tier: "headline",
  header: "Inter Token Latency",
  shortHeader: "ITL",
  unit: "ms",
  kind: "record",
  requires: ["request_latency", "time_to_first_token", "output_sequence_length"],
  flags: { percentileIncludesFailedRequests: true, streamingOnly: true, producesTokensOnly: true },
  displayOrder: 400,
  compute: (_r, v) => {
    const latency = num(v, "request_latency");
    const ttft = num(v, "time_to_first_token");
    const osl = num(v, "output_sequence_length");
    if (latency === undefined || ttft === undefined || osl === undefined || osl < 2) return undefined;
    return (latency - ttft) / (osl - 1);
  },
};

/** `inter_chunk_latency = [content[i] − content[i−1] for i ≥ 1]`; a list per record, statistics pool every gap. */
export const INTER_CHUNK_LATENCY: RecordMetricDef = {
  tag: "inter_chunk_latency",
  header: "Inter Chunk Latency",
  shortHeader: "ICL",
  unit: "ms",
  kind: "record",
  requires: [],
  flags: { streamingOnly: true, producesTokensOnly: true, list: true, noConsole: true },
  displayOrder: 450,
  compute: (r) => {
    const t = r.responseTimes;
    if (t.length < 2) return undefined;
    const gaps = new Array<number>(t.length - 1);
    for (let i = 1; i < t.length; i++) gaps[i - 1] = t[i] - t[i - 1];
    return gaps;
  },
};

/** `output_token_throughput_per_user = 1000 / inter_token_latency_ms` (= 1 / ITL in seconds); absent when ITL is 0. */
export const OUTPUT_TOKEN_THROUGHPUT_PER_USER: RecordMetricDef = {
  tag: "output_token_throughput_per_user",
  header: "Output Token Throughput Per User",
  shortHeader: "Output TPS/User",
  unit: "tokens/sec/user",
  kind: "record",
  requires: ["inter_token_latency"],
  flags: { streamingOnly: true, producesTokensOnly: true, largerIsBetter: true },
  displayOrder: 500,
  compute: (_r, v) => ratio(1000, num(v, "inter_token_latency")),
};

/** `decode_duration = request_latency − time_to_first_token` (the generation phase after the first token). */
export const DECODE_DURATION: RecordMetricDef = {
  tag: "decode_duration",
  header: "Decode Duration",
  shortHeader: "Decode",
  unit: "ms",
  kind: "record",
  requires: ["request_latency", "time_to_first_token"],
  flags: { percentileIncludesFailedRequests: true, streamingOnly: true, producesTokensOnly: true },
  displayOrder: 350,
  compute: (_r, v) => {
    const latency = num(v, "request_latency");
    const ttft = num(v, "time_to_first_token");
    return latency === undefined || ttft === undefined ? undefined : Math.max(0, latency - ttft);
  },
};

/** `e2e_output_token_throughput = output_sequence_length / (request_latency / 1000)`; also for non-streaming. */
export const E2E_OUTPUT_TOKEN_THROUGHPUT: RecordMetricDef = {
  tag: "e2e_output_token_throughput",
  header: "E2E Output Token Throughput",
  shortHeader: "E2E Output TPS/User",
  unit: "tokens/sec/user",
  kind: "record",
  requires: ["output_sequence_length", "request_latency"],
  flags: { producesTokensOnly: true, largerIsBetter: true },
  displayOrder: 510,
  compute: (_r, v) => {
    const latency = num(v, "request_latency");
    return ratio(num(v, "output_sequence_length"), latency === undefined ? undefined : latency / 1000);
  },
};

/** `prefill_throughput_per_user = input_sequence_length / (time_to_first_token / 1000)`. */
export const PREFILL_THROUGHPUT_PER_USER: RecordMetricDef = {
  tag: "prefill_throughput_per_user",
  header: "Prefill Throughput Per User",
  shortHeader: "Prefill TPS/User",
  unit: "tokens/sec/user",
  kind: "record",
  requires: ["input_sequence_length", "time_to_first_token"],
  flags: { streamingOnly: true, producesTokensOnly: true, tokenizesInputOnly: true, largerIsBetter: true },
  consoleGroup: "none",
  displayOrder: 520,
  compute: (_r, v) => {
    const ttft = num(v, "time_to_first_token");
    return ratio(num(v, "input_sequence_length"), ttft === undefined ? undefined : ttft / 1000);
  },
};

/**
 * A server-reported `usage` count (OpenAI `usage.prompt_tokens`, Anthropic `input_tokens`, …; streamed usage merged
 * field by field); absent for a request whose response reported none.
 */
function usageMetric(
  tag: string,
  header: string,
  field: keyof Usage,
  displayOrder: number,
  flags: RecordMetricDef["flags"],
  unit: MetricUnit = "tokens",
): RecordMetricDef {
  return {
    tag,
    header,
    unit,
    kind: "record",
    requires: [],
    flags: { largerIsBetter: true, ...flags },
    consoleGroup: "usage",
    displayOrder,
    compute: (r) => r.usage?.[field],
  };
}

/** `usage_prompt_tokens = usage.prompt_tokens`. */
export const USAGE_PROMPT_TOKENS = usageMetric(
  "usage_prompt_tokens",
  "Usage Prompt Tokens",
  "promptTokens",
  3000,
  { tokenizesInputOnly: true },
);
/** `usage_completion_tokens = usage.completion_tokens`. */
export const USAGE_COMPLETION_TOKENS = usageMetric(
  "usage_completion_tokens",
  "Usage Completion Tokens",
  "completionTokens",
  3100,
  { producesTokensOnly: true },
);
/** `usage_reasoning_tokens = usage.completion_tokens_details.reasoning_tokens`. */
export const USAGE_REASONING_TOKENS = usageMetric(
  "usage_reasoning_tokens",
  "Usage Reasoning Tokens",
  "reasoningTokens",
  3110,
  { producesTokensOnly: true },
);
/** `usage_total_tokens = usage.total_tokens`. */
export const USAGE_TOTAL_TOKENS = usageMetric(
  "usage_total_tokens",
  "Usage Total Tokens",
  "totalTokens",
  3200,
  { producesTokensOnly: true },
);

/** `usage_prompt_cache_read_tokens = usage.prompt_tokens_details.cached_tokens` (or a vendor's synonym). */
export const USAGE_PROMPT_CACHE_READ_TOKENS = usageMetric(
  "usage_prompt_cache_read_tokens",
  "Usage Prompt Cache Read Tokens",
  "promptCacheReadTokens",
  3010,
  {},
);
/** `usage_prompt_cache_write_tokens = usage.cache_creation_input_tokens` (Anthropic, Bedrock). */
export const USAGE_PROMPT_CACHE_WRITE_TOKENS = usageMetric(
  "usage_prompt_cache_write_tokens",
  "Usage Prompt Cache Write Tokens",
  "promptCacheWriteTokens",
  3015,
  { largerIsBetter: false },
);
/** `usage_prompt_cache_miss_tokens = usage.prompt_cache_miss_tokens` (DeepSeek). */
export const USAGE_PROMPT_CACHE_MISS_TOKENS = usageMetric(
  "usage_prompt_cache_miss_tokens",
  "Usage Prompt Cache Miss Tokens",
  "promptCacheMissTokens",
  3017,
  { largerIsBetter: false },
);
/** `usage_prompt_audio_tokens = usage.prompt_tokens_details.audio_tokens`. */
export const USAGE_PROMPT_AUDIO_TOKENS = usageMetric(
  "usage_prompt_audio_tokens",
  "Usage Prompt Audio Tokens",
  "promptAudioTokens",
  3020,
  { supportsAudioOnly: true },
);
/** `usage_completion_audio_tokens = usage.completion_tokens_details.audio_tokens`. */
export const USAGE_COMPLETION_AUDIO_TOKENS = usageMetric(
  "usage_completion_audio_tokens",
  "Usage Completion Audio Tokens",
  "completionAudioTokens",
  3120,
  { producesTokensOnly: true, supportsAudioOnly: true },
);
/** `usage_tool_use_prompt_tokens = usage.toolUsePromptTokenCount` (Gemini). */
export const USAGE_TOOL_USE_PROMPT_TOKENS = usageMetric(
  "usage_tool_use_prompt_tokens",
  "Usage Tool Use Prompt Tokens",
  "toolUsePromptTokens",
  3030,
  { largerIsBetter: false },
);
/** `usage_prompt_audio_seconds = usage.prompt_audio_seconds` (Mistral). */
export const USAGE_PROMPT_AUDIO_SECONDS = usageMetric(
  "usage_prompt_audio_seconds",
  "Usage Prompt Audio Seconds",
  "promptAudioSeconds",
  3040,
  {},
  "sec",
);
/** `usage_accepted_prediction_tokens = usage.completion_tokens_details.accepted_prediction_tokens`. */
export const USAGE_ACCEPTED_PREDICTION_TOKENS = usageMetric(
  "usage_accepted_prediction_tokens",
  "Usage Accepted Prediction Tokens",
  "acceptedPredictionTokens",
  3130,
  { producesTokensOnly: true },
);
/** `usage_rejected_prediction_tokens = usage.completion_tokens_details.rejected_prediction_tokens`. */
export const USAGE_REJECTED_PREDICTION_TOKENS = usageMetric(
  "usage_rejected_prediction_tokens",
  "Usage Rejected Prediction Tokens",
  "rejectedPredictionTokens",
  3140,
  { producesTokensOnly: true, largerIsBetter: false },
);

/** `100 · |server − client| / client`; undefined when either is missing or the client count is 0. */
function diffPct(server: number | undefined, client: number | undefined): number | undefined {
  return server === undefined || client === undefined || client === 0
    ? undefined
    : (Math.abs(server - client) / client) * 100;
}

/** `usage_prompt_tokens_diff_pct = 100 · |usage_prompt_tokens − input_sequence_length| / input_sequence_length`. */
export const USAGE_PROMPT_TOKENS_DIFF_PCT: RecordMetricDef = {
  tag: "usage_prompt_tokens_diff_pct",
  header: "Usage Prompt Diff %",
  unit: "%",
  kind: "record",
  requires: ["usage_prompt_tokens", "input_sequence_length"],
  flags: { tokenizesInputOnly: true, usageDiffOnly: true },
  consoleGroup: "none",
  displayOrder: 3500,
  compute: (_r, v) => diffPct(num(v, "usage_prompt_tokens"), num(v, "input_sequence_length")),
};

/** `usage_completion_tokens_diff_pct = 100 · |usage_completion_tokens − output_sequence_length| / output_sequence_length`. */
export const USAGE_COMPLETION_TOKENS_DIFF_PCT: RecordMetricDef = {
  tag: "usage_completion_tokens_diff_pct",
  header: "Usage Completion Diff %",
  unit: "%",
  kind: "record",
  requires: ["usage_completion_tokens", "output_sequence_length"],
  flags: { producesTokensOnly: true, usageDiffOnly: true },
  consoleGroup: "none",
  displayOrder: 3510,
  compute: (_r, v) => diffPct(num(v, "usage_completion_tokens"), num(v, "output_sequence_length")),
};

/** `usage_reasoning_tokens_diff_pct = 100 · |usage_reasoning_tokens − reasoning_token_count| / reasoning_token_count`. */
export const USAGE_REASONING_TOKENS_DIFF_PCT: RecordMetricDef = {
  tag: "usage_reasoning_tokens_diff_pct",
  header: "Usage Reasoning Diff %",
  unit: "%",
  kind: "record",
  requires: ["usage_reasoning_tokens", "reasoning_token_count"],
  flags: { producesTokensOnly: true, supportsReasoningOnly: true, usageDiffOnly: true },
  consoleGroup: "none",
  displayOrder: 3520,
  compute: (_r, v) => diffPct(num(v, "usage_reasoning_tokens"), num(v, "reasoning_token_count")),
};

/** `osl_mismatch_diff_pct = 100 · (output_sequence_length − requested) / requested` (signed), where `requested`
 * is the `max_tokens` / `max_completion_tokens` sent; absent when none was sent. */
export const OSL_MISMATCH_DIFF_PCT: RecordMetricDef = {
  tag: "osl_mismatch_diff_pct",
  header: "OSL Mismatch Diff %",
  unit: "%",
  kind: "record",
  requires: ["output_sequence_length"],
  flags: { producesTokensOnly: true, disableOnAccuracy: true },
  consoleGroup: "none",
  displayOrder: 3600,
  compute: (r, v) => {
    const osl = num(v, "output_sequence_length");
    const requested = r.requestedOutputTokens;
    return osl === undefined || requested === undefined || requested === 0
      ? undefined
      : ((osl - requested) / requested) * 100;
  },
};

/** `credit_to_start_latency = start − credit_issued` (the wait between a request being allowed and sent); a
 * summary-only metric in AIPerf, so not in per-record lines. */
export const CREDIT_TO_START_LATENCY: RecordMetricDef = {
  tag: "credit_to_start_latency",
  header: "Credit-to-Start Latency",
  unit: "ms",
  kind: "record",
  requires: [],
  flags: { noIndividualRecords: true },
  consoleGroup: "none",
  displayOrder: 3700,
  compute: (r) => Math.max(0, r.startAt - r.creditIssuedAt),
};

/** `effective_latency = end − credit_issued`, coordinated-omission aware: the wait for a free slot counts as a
 * user would feel it; `end` is the last response byte. */
export const EFFECTIVE_LATENCY: RecordMetricDef = {
  tag: "effective_latency",
  header: "Effective Latency (CO-aware)",
  unit: "ms",
  kind: "record",
  requires: [],
  flags: { noIndividualRecords: true },
  consoleGroup: "effective",
  displayOrder: 3710,
  compute: (r) => Math.max(0, r.endAt - r.creditIssuedAt),
};

// ------------------------------------------------------------------------------ HTTP trace (k6 / HAR names)

/** An HTTP trace metric in ms, k6's names; `compute` returns ms or undefined when the trace lacks a stamp. */
function httpMs(
  tag: string,
  header: string,
  displayOrder: number,
  compute: RecordMetricDef["compute"],
  requires: string[] = [],
): RecordMetricDef {
  return { tag, header, unit: "ms", kind: "record", requires, flags: {}, consoleGroup: "none", displayOrder, compute };
}

/** A non-negative difference `b − a`, undefined when either stamp is missing. */
function span(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined ? undefined : Math.max(0, b - a);
}

/** `http_req_blocked = pool wait end − pool wait start` (0 when a connection was free at once). */
export const HTTP_REQ_BLOCKED = httpMs(
  "http_req_blocked",
  "HTTP Blocked",
  4000,
  (r) =>
    r.writeStartAt === undefined
      ? undefined
      : r.poolWaitStartAt === undefined
      ? 0
      : span(r.poolWaitStartAt, r.poolWaitEndAt),
);
/** `http_req_dns_lookup = 0`: the runtime resolves names inside its connect call, so resolution time is part
 * of `http_req_connecting` (and is 0 for the IP literals load targets usually are). */
export const HTTP_REQ_DNS_LOOKUP = httpMs(
  "http_req_dns_lookup",
  "HTTP DNS Lookup",
  4010,
  (r) => (r.writeStartAt === undefined ? undefined : 0),
);
/** `http_req_connecting = connect end − connect start` (TCP + TLS); 0 on a reused connection. */
export const HTTP_REQ_CONNECTING = httpMs(
  "http_req_connecting",
  "HTTP Connecting",
  4020,
  (r) =>
    r.writeStartAt === undefined
      ? undefined
      : r.connectionReused || r.connectStartAt === undefined
      ? 0
      : span(r.connectStartAt, r.connectEndAt),
);
/** `http_req_sending = request fully written − first request byte about to be written`. */
export const HTTP_REQ_SENDING = httpMs("http_req_sending", "HTTP Sending", 4030, (r) => span(r.writeStartAt, r.sentAt));
/** `http_req_waiting = first response body byte − request fully written` (TTFB, as AIPerf's trace reads the body). */
export const HTTP_REQ_WAITING = httpMs(
  "http_req_waiting",
  "HTTP Waiting (TTFB)",
  4040,
  (r) => span(r.sentAt, r.firstBodyAt),
);
/** `http_req_receiving = last body read − first body read`; 0 when the body came in one read. */
export const HTTP_REQ_RECEIVING = httpMs(
  "http_req_receiving",
  "HTTP Receiving",
  4050,
  (r) =>
    r.chunksReceived === undefined || r.chunksReceived === 0
      ? undefined
      : r.chunksReceived === 1
      ? 0
      : span(r.firstBodyAt, r.lastBodyAt),
);
/** `http_req_duration = last body read − first request byte written` (sending + waiting + receiving). */
export const HTTP_REQ_DURATION = httpMs(
  "http_req_duration",
  "HTTP Duration (excl. conn)",
  4120,
  (r) => span(r.writeStartAt, r.lastBodyAt),
);
/** `http_req_connection_overhead = http_req_blocked + http_req_dns_lookup + http_req_connecting`. */
export const HTTP_REQ_CONNECTION_OVERHEAD = httpMs(
  "http_req_connection_overhead",
  "HTTP Connection Overhead",
  4110,
  (_r, v) => {
    const blocked = num(v, "http_req_blocked");
    const dns = num(v, "http_req_dns_lookup");
    const connecting = num(v, "http_req_connecting");
    return blocked === undefined || dns === undefined || connecting === undefined
      ? undefined
      : blocked + dns + connecting;
  },
  ["http_req_blocked", "http_req_dns_lookup", "http_req_connecting"],
);
/** `http_req_total = blocked + dns_lookup + connecting + sending + waiting + receiving`. */
export const HTTP_REQ_TOTAL = httpMs(
  "http_req_total",
  "HTTP Total Time",
  4130,
  (_r, v) => {
    const parts = ["http_req_sending", "http_req_waiting", "http_req_receiving"].map((t) => num(v, t));
    if (parts.some((p) => p === undefined)) return undefined;
    const overhead = num(v, "http_req_connection_overhead");
    return overhead === undefined ? undefined : overhead + parts.reduce((a, b) => a! + b!, 0)!;
  },
  ["http_req_connection_overhead", "http_req_sending", "http_req_waiting", "http_req_receiving"],
);

/** `http_req_connection_reused = 1` when the request went over a kept-alive connection, else 0. */
export const HTTP_REQ_CONNECTION_REUSED: RecordMetricDef = {
  tag: "http_req_connection_reused",
  header: "HTTP Connection Reused",
  unit: "ratio",
  kind: "record",
  requires: [],
  flags: {},
  consoleGroup: "none",
  displayOrder: 4060,
  compute: (r) => (r.writeStartAt === undefined ? undefined : r.connectionReused ? 1 : 0),
};

/** A byte or chunk count of the HTTP trace. */
function httpCount(
  tag: string,
  header: string,
  unit: "KB" | "count",
  displayOrder: number,
  compute: RecordMetricDef["compute"],
): RecordMetricDef {
  return { tag, header, unit, kind: "record", requires: [], flags: {}, consoleGroup: "none", displayOrder, compute };
}

/** `http_req_data_sent = request body bytes / 1024` (KB, AIPerf's unit; the head is not counted). */
export const HTTP_REQ_DATA_SENT = httpCount(
  "http_req_data_sent",
  "HTTP Data Sent",
  "KB",
  4070,
  (r) => r.bodyBytesSent === undefined ? undefined : r.bodyBytesSent / 1024,
);
/** `http_req_chunks_sent = socket writes the request took`. */
export const HTTP_REQ_CHUNKS_SENT = httpCount(
  "http_req_chunks_sent",
  "HTTP Chunks Sent",
  "count",
  4080,
  (r) => r.chunksSent,
);
/** `http_req_data_received = response body bytes after de-chunking / 1024` (KB). */
export const HTTP_REQ_DATA_RECEIVED = httpCount(
  "http_req_data_received",
  "HTTP Data Received",
  "KB",
  4090,
  (r) => r.bodyBytesReceived === undefined ? undefined : r.bodyBytesReceived / 1024,
);
/** `http_req_chunks_received = socket reads that carried response body bytes`. */
export const HTTP_REQ_CHUNKS_RECEIVED = httpCount(
  "http_req_chunks_received",
  "HTTP Chunks Received",
  "count",
  4100,
  (r) => r.chunksReceived,
);

/** `error_isl = tokens(prompt)` of a failed request. */
export const ERROR_ISL: RecordMetricDef = {
  tag: "error_isl",
  header: "Error Input Sequence Length",
  shortHeader: "Error ISL",
  unit: "tokens",
  kind: "record",
  requires: [],
  flags: { errorOnly: true, tokenizesInputOnly: true, noConsole: true },
  displayOrder: 2400,
  compute: (r) => r.isl ?? r.inputTokens,
};

/**
 * `replay_send_schedule_offset = start − scheduledAt` for a request whose due time is its trace timestamp
 * (fixed-schedule replay; turns paced by a think time have none). Internal: the replay-lag metrics read it.
 * AIPerf anchors its wall clock to a schedule-relative time, so only differences between its offsets mean
 * anything; here both times are on the run clock, so the offset is also the absolute lateness.
 */
export const REPLAY_SEND_SCHEDULE_OFFSET: RecordMetricDef = {
  tag: "replay_send_schedule_offset",
  header: "Replay Send Schedule Offset",
  shortHeader: "Sched Offset",
  unit: "ms",
  kind: "record",
  requires: [],
  flags: { internal: true, noConsole: true, noIndividualRecords: true },
  displayOrder: 2700,
  compute: (r) => (r.timestampScheduled && r.scheduledAt !== undefined ? r.startAt - r.scheduledAt : undefined),
};

// ------------------------------------------------------------------------------------------- aggregate metrics

/** `request_count = count(successful requests)`. */
export const REQUEST_COUNT: AggregateMetricDef = {
  tag: "request_count",
  header: "Request Count",
  shortHeader: "Requests",
  unit: "requests",
  kind: "aggregate",
  fold: "count",
  requires: [],
  flags: { largerIsBetter: true, noIndividualRecords: true },
  displayOrder: 1100,
  compute: () => 1,
};

/** `error_request_count = count(failed requests)` (HTTP errors, timeouts, cancellations, parse failures). */
export const ERROR_REQUEST_COUNT: AggregateMetricDef = {
  tag: "error_request_count",
  header: "Error Request Count",
  shortHeader: "Errors",
  unit: "requests",
  kind: "aggregate",
  fold: "count",
  requires: [],
  flags: { errorOnly: true, noIndividualRecords: true },
  consoleGroup: "none",
  displayOrder: 1090,
  compute: () => 1,
};

/**
 * The error text of a context overflow, as AIPerf 0.13 recognises it (`is_context_overflow_response`): any of these,
 * case-insensitive, in the response body or in its OpenAI-style `error.message`.
 */
export const CONTEXT_OVERFLOW_SUBSTRINGS = [
  "context length",
  "maximum context",
  "context_length_exceeded",
  "prompt is too long",
];

/** Whether a failed request's error says the prompt did not fit the model's context. */
export function isContextOverflow(message: string): boolean {
  const texts = [message.toLowerCase()];
  try {
    const err = (JSON.parse(message) as { error?: unknown })?.error;
    const nested = typeof err === "string" ? err : (err as { message?: unknown } | undefined)?.message;
    if (typeof nested === "string") texts.push(nested.toLowerCase());
  } catch {
    // Not JSON: the text alone.
  }
  return CONTEXT_OVERFLOW_SUBSTRINGS.some((s) => texts.some((t) => t.includes(s)));
}

/** `context_overflow_count = count(failed requests whose error is a context overflow)` (AIPerf; 0 when none is). */
export const CONTEXT_OVERFLOW_COUNT: AggregateMetricDef = {
  tag: "context_overflow_count",
  header: "Context Overflow Count",
  shortHeader: "Ctx Overflow",
  unit: "requests",
  kind: "aggregate",
  fold: "sum",
  requires: [],
  flags: { errorOnly: true, noIndividualRecords: true },
  consoleGroup: "none",
  displayOrder: 1091,
  compute: (r) => (r.error !== undefined && isContextOverflow(r.error.message) ? 1 : 0),
};

/** `min_request_timestamp = min(start)`, displayed as wall-clock epoch ns (`(timeOriginMs + start) · 1e6`). */
export const MIN_REQUEST_TIMESTAMP: AggregateMetricDef = {
  tag: "min_request_timestamp",
  header: "Minimum Request Timestamp",
  shortHeader: "Min Req",
  unit: "ns",
  kind: "aggregate",
  fold: "min",
  requires: [],
  flags: { noConsole: true, noIndividualRecords: true, jsonOnly: true },
  displayOrder: 2600,
  compute: (r) => r.startAt,
  toDisplay: (raw, ctx) => (ctx.timeOriginMs + raw) * 1e6,
};

/** `max_response_timestamp = max(start + request_latency)`, displayed as wall-clock epoch ns. */
export const MAX_RESPONSE_TIMESTAMP: AggregateMetricDef = {
  tag: "max_response_timestamp",
  header: "Maximum Response Timestamp",
  shortHeader: "Max Resp",
  unit: "ns",
  kind: "aggregate",
  fold: "max",
  requires: ["request_latency"],
  flags: { noConsole: true, noIndividualRecords: true, jsonOnly: true },
  displayOrder: 2610,
  compute: (r, v) => {
    const latency = num(v, "request_latency");
    return latency === undefined ? undefined : r.startAt + latency;
  },
  toDisplay: (raw, ctx) => (ctx.timeOriginMs + raw) * 1e6,
};

/** `good_request_count = count(successful requests meeting every goodput SLO)`. */
export const GOOD_REQUEST_COUNT: AggregateMetricDef = {
  tag: "good_request_count",
  header: "Good Request Count",
  shortHeader: "Good Requests",
  unit: "requests",
  kind: "aggregate",
  fold: "sum",
  requires: [],
  flags: { goodputOnly: true, noConsole: true, noIndividualRecords: true },
  displayOrder: 1010,
  compute: (_r, v, ctx) => (ctx.isGood === undefined ? undefined : ctx.isGood(v) ? 1 : 0),
};

/**
 * `streamed_request_count = count(successful requests whose response streamed)`: several content events, or one
 * carrying at most one token. The others (a server that answered a streaming request with one body) are left out of
 * TTFT, ITL and the other streaming metrics; the console says how many.
 */
export const STREAMED_REQUEST_COUNT: AggregateMetricDef = {
  tag: "streamed_request_count",
  header: "Streamed Request Count",
  unit: "requests",
  kind: "aggregate",
  fold: "sum",
  requires: [],
  flags: { streamingOnly: true, jsonOnly: true, noIndividualRecords: true },
  displayOrder: 1015,
  compute: (r) => r.error !== undefined || r.cancelled ? undefined : didStream(r) ? 1 : 0,
};

/** `usage_discrepancy_count = count(records whose usage_prompt_tokens_diff_pct, usage_completion_tokens_diff_pct
 * or usage_reasoning_tokens_diff_pct exceeds 10 %)` (AIPerf's default threshold). */
export const USAGE_DISCREPANCY_COUNT: AggregateMetricDef = {
  tag: "usage_discrepancy_count",
  header: "Usage Discrepancy Count",
  unit: "requests",
  kind: "aggregate",
  fold: "sum",
  requires: ["usage_prompt_tokens_diff_pct", "usage_completion_tokens_diff_pct"],
  reads: ["usage_reasoning_tokens_diff_pct"],
  flags: { noIndividualRecords: true, usageDiffOnly: true },
  consoleGroup: "none",
  displayOrder: 3550,
  compute: (_r, v) => {
    const over = (tag: string) => (num(v, tag) ?? 0) > USAGE_DIFF_THRESHOLD_PCT;
    const prompt = num(v, "usage_prompt_tokens_diff_pct");
    const completion = num(v, "usage_completion_tokens_diff_pct");
    if (prompt === undefined || completion === undefined) return undefined;
    return over("usage_prompt_tokens_diff_pct") || over("usage_completion_tokens_diff_pct") ||
        over("usage_reasoning_tokens_diff_pct")
      ? 1
      : 0;
  },
};

/** A usage count differing from ours by more than this many percent counts as a discrepancy. */
export const USAGE_DIFF_THRESHOLD_PCT = 10;
/** An OSL mismatch is more than `min(requested · 5 %, 50)` tokens away from the requested length. */
export const OSL_MISMATCH_PCT = 5;
export const OSL_MISMATCH_MAX_TOKENS = 50;

/** `osl_mismatch_count = count(|output_sequence_length − requested| > min(requested · 5 %, 50 tokens))`. */
export const OSL_MISMATCH_COUNT: AggregateMetricDef = {
  tag: "osl_mismatch_count",
  header: "OSL Mismatch Count",
  unit: "requests",
  kind: "aggregate",
  fold: "sum",
  requires: ["output_sequence_length"],
  flags: { producesTokensOnly: true, noIndividualRecords: true, disableOnAccuracy: true },
  consoleGroup: "none",
  displayOrder: 3610,
  compute: (r, v) => {
    const osl = num(v, "output_sequence_length");
    const requested = r.requestedOutputTokens;
    if (osl === undefined || requested === undefined || requested === 0) return undefined;
    const threshold = Math.min((requested * OSL_MISMATCH_PCT) / 100, OSL_MISMATCH_MAX_TOKENS);
    return Math.abs(osl - requested) > threshold ? 1 : 0;
  },
};

/**
 * `session_count = count(successful final turns)`: a session completes when the last turn of its conversation
 * returns a valid response (AIPerf `is_final_turn`). Shown for runs with multi-turn conversations only, where it
 * differs from the request count.
 */
export const SESSION_COUNT: AggregateMetricDef = {
  tag: "session_count",
  header: "Session Count",
  shortHeader: "Sessions",
  unit: "sessions",
  kind: "aggregate",
  fold: "count",
  requires: [],
  flags: { largerIsBetter: true, noIndividualRecords: true, multiTurnOnly: true },
  displayOrder: 1405,
  compute: (r) => (r.isFinalTurn ? 1 : undefined),
};

// --------------------------------------------------------------------------------------------- derived metrics

/** A derived total: `Σ of` over successful (or, for error metrics, failed) records. */
function totalOf(
  tag: string,
  of: string,
  header: string,
  shortHeader: string,
  displayOrder: number,
): DerivedMetricDef {
  return {
    tag,
    header,
    shortHeader,
    unit: "tokens",
    kind: "derived",
    requires: [of],
    flags: { noConsole: true, noIndividualRecords: true },
    displayOrder,
    compute: (m) => m.sum(of),
  };
}

/** `total_isl = Σ input_sequence_length`. */
export const TOTAL_ISL: DerivedMetricDef = totalOf(
  "total_isl",
  "input_sequence_length",
  "Total Input Sequence Length",
  "Total ISL",
  2000,
);
/** `total_osl = Σ output_sequence_length`. */
export const TOTAL_OSL: DerivedMetricDef = totalOf(
  "total_osl",
  "output_sequence_length",
  "Total Output Sequence Length",
  "Total OSL",
  2010,
);
/** `total_output_tokens = Σ output_token_count`. */
export const TOTAL_OUTPUT_TOKENS: DerivedMetricDef = totalOf(
  "total_output_tokens",
  "output_token_count",
  "Total Output Tokens",
  "Total Output",
  2020,
);
/** `total_reasoning_tokens = Σ reasoning_token_count`. */
export const TOTAL_REASONING_TOKENS: DerivedMetricDef = totalOf(
  "total_reasoning_tokens",
  "reasoning_token_count",
  "Total Reasoning Tokens",
  "Total Reasoning",
  2030,
);
/** `total_error_isl = Σ error_isl` (failed requests). */
export const TOTAL_ERROR_ISL: DerivedMetricDef = totalOf(
  "total_error_isl",
  "error_isl",
  "Total Error Input Sequence Length",
  "Total Error ISL",
  2410,
);

/** `benchmark_duration = (max_response_timestamp − min_request_timestamp) / 1000` in seconds; the
 * denominator of every throughput. */
export const BENCHMARK_DURATION: DerivedMetricDef = {
  tag: "benchmark_duration",
  header: "Benchmark Duration",
  shortHeader: "Duration",
  unit: "sec",
  kind: "derived",
  requires: ["min_request_timestamp", "max_response_timestamp"],
  flags: { noConsole: true, noIndividualRecords: true },
  displayOrder: 1900,
  compute: (m) => {
    const first = m.value("min_request_timestamp");
    const last = m.value("max_response_timestamp");
    return first === undefined || last === undefined ? undefined : (last - first) / 1000;
  },
};

/** `output_token_throughput = total_osl / window_s`, where `window_s` is the profiling phase's window (phase
 * start → last response) when the run knows it, else `benchmark_duration` (AIPerf 0.13's denominator). */
export const OUTPUT_TOKEN_THROUGHPUT: DerivedMetricDef = {
  tag: "output_token_throughput",
  tier: "headline",
  header: "Output Token Throughput",
  shortHeader: "Output TPS",
  unit: "tokens/sec",
  kind: "derived",
  requires: ["total_osl", "benchmark_duration"],
  flags: { producesTokensOnly: true, largerIsBetter: true, noIndividualRecords: true },
  displayOrder: 800,
  compute: (m) => ratio(m.value("total_osl"), m.observationSec()),
};

/** `total_token_throughput = (total_isl + total_osl) / window_s`. */
export const TOTAL_TOKEN_THROUGHPUT: DerivedMetricDef = {
  tag: "total_token_throughput",
  header: "Total Token Throughput",
  shortHeader: "Total TPS",
  unit: "tokens/sec",
  kind: "derived",
  requires: ["total_isl", "total_osl", "benchmark_duration"],
  consoleGroup: "none",
  flags: { producesTokensOnly: true, tokenizesInputOnly: true, largerIsBetter: true, noIndividualRecords: true },
  displayOrder: 810,
  compute: (m) => {
    const isl = m.value("total_isl");
    const osl = m.value("total_osl");
    return isl === undefined || osl === undefined ? undefined : ratio(isl + osl, m.observationSec());
  },
};

/** `request_throughput = request_count / window_s`. */
export const REQUEST_THROUGHPUT: DerivedMetricDef = {
  tag: "request_throughput",
  tier: "headline",
  header: "Request Throughput",
  shortHeader: "Req/s",
  unit: "requests/sec",
  consoleUnit: "req/s",
  kind: "derived",
  requires: ["request_count", "benchmark_duration"],
  flags: { largerIsBetter: true, noIndividualRecords: true },
  displayOrder: 900,
  compute: (m) => ratio(m.value("request_count"), m.observationSec()),
};

/** `request_error_rate = 100 · error_request_count / (request_count + error_request_count)`; a missing
 * count is 0, so a clean run reports 0 % and a fully failed run 100 %. */
export const REQUEST_ERROR_RATE: DerivedMetricDef = {
  tag: "request_error_rate",
  header: "Request Error Rate",
  shortHeader: "Err %",
  unit: "%",
  kind: "derived",
  requires: [],
  reads: ["request_count", "error_request_count"],
  flags: { noIndividualRecords: true },
  displayOrder: 1080,
  compute: (m) => {
    const ok = m.value("request_count") ?? 0;
    const errors = m.value("error_request_count") ?? 0;
    return ok + errors > 0 ? (100 * errors) / (ok + errors) : undefined;
  },
};

/** `session_throughput = session_count / (duration_s / 3600)`, completed sessions per hour. */
export const SESSION_THROUGHPUT: DerivedMetricDef = {
  tag: "session_throughput",
  header: "Session Throughput",
  shortHeader: "Sessions/hr",
  unit: "sessions/hour",
  kind: "derived",
  requires: ["session_count", "benchmark_duration"],
  flags: { largerIsBetter: true, noIndividualRecords: true, multiTurnOnly: true },
  displayOrder: 1305,
  compute: (m) => {
    const duration = m.value("benchmark_duration");
    return ratio(m.value("session_count"), duration === undefined ? undefined : duration / 3600);
  },
};

/** A replay's anchored send lag at a percentile: `pq(offset − min(offset))` = `pq(offset) − min(offset)` in ms,
 * offsets being `replay_send_schedule_offset`. Anchored at the least-late request, as AIPerf does. */
function replayLag(q: 50 | 90 | 99, displayOrder: number): DerivedMetricDef {
  return {
    tag: `replay_sched_lag_p${q}`,
    header: `Replay Schedule Lag p${q}`,
    shortHeader: `Sched Lag p${q}`,
    unit: "ms",
    kind: "derived",
    requires: ["replay_send_schedule_offset"],
    flags: { noConsole: true, noIndividualRecords: true },
    displayOrder,
    compute: (m) => {
      const s = m.stats("replay_send_schedule_offset");
      return s === undefined ? undefined : s[`p${q}`] - s.min;
    },
  };
}

/** `replay_sched_lag_p50 = p50(offset − min(offset))`. */
export const REPLAY_SCHED_LAG_P50: DerivedMetricDef = replayLag(50, 2710);
/** `replay_sched_lag_p90 = p90(offset − min(offset))`. */
export const REPLAY_SCHED_LAG_P90: DerivedMetricDef = replayLag(90, 2720);
/** `replay_sched_lag_p99 = p99(offset − min(offset))`. */
export const REPLAY_SCHED_LAG_P99: DerivedMetricDef = replayLag(99, 2730);

/** Anchored p99 send lag (ms) above which a replay no longer reflects the recorded arrivals (AIPerf's 500 ms). */
export const REPLAY_SCHED_DEGRADED_THRESHOLD_MS = 500;

/** `replay_sched_degraded = 1 if replay_sched_lag_p99 > 500 ms else 0`. */
export const REPLAY_SCHED_DEGRADED: DerivedMetricDef = {
  tag: "replay_sched_degraded",
  header: "Replay Schedule Degraded",
  shortHeader: "Sched Degraded",
  unit: "count",
  kind: "derived",
  requires: ["replay_sched_lag_p99"],
  flags: { noConsole: true, noIndividualRecords: true },
  displayOrder: 2740,
  compute: (m) => {
    const p99 = m.value("replay_sched_lag_p99");
    return p99 === undefined ? undefined : p99 > REPLAY_SCHED_DEGRADED_THRESHOLD_MS ? 1 : 0;
  },
};

/** `good_request_fraction = good_request_count / (request_count + error_request_count)` (0–1). */
export const GOOD_REQUEST_FRACTION: DerivedMetricDef = {
  tag: "good_request_fraction",
  header: "GoodRequestFraction",
  shortHeader: "Good %",
  unit: "ratio",
  kind: "derived",
  requires: ["good_request_count"],
  reads: ["request_count", "error_request_count"],
  flags: { goodputOnly: true, noConsole: true, noIndividualRecords: true },
  displayOrder: 1020,
  compute: (m) =>
    ratio(m.value("good_request_count"), (m.value("request_count") ?? 0) + (m.value("error_request_count") ?? 0)),
};

/** `goodput = good_request_count / window_s`. */
export const GOODPUT: DerivedMetricDef = {
  tag: "goodput",
  header: "Goodput",
  shortHeader: "Goodput",
  unit: "requests/sec",
  consoleUnit: "req/s",
  kind: "derived",
  requires: ["good_request_count", "benchmark_duration"],
  flags: { goodputOnly: true, largerIsBetter: true, noIndividualRecords: true },
  displayOrder: 1000,
  compute: (m) => ratio(m.value("good_request_count"), m.observationSec()),
};

/** `total_usage_prompt_tokens = Σ usage_prompt_tokens` (likewise completion, total, reasoning). */
function usageTotal(tag: string, of: string, header: string, displayOrder: number): DerivedMetricDef {
  return {
    tag,
    header,
    unit: "tokens",
    kind: "derived",
    requires: [of],
    flags: { noIndividualRecords: true },
    consoleGroup: "usage",
    displayOrder,
    compute: (m) => m.sum(of),
  };
}
export const TOTAL_USAGE_PROMPT_TOKENS = usageTotal(
  "total_usage_prompt_tokens",
  "usage_prompt_tokens",
  "Total Usage Prompt Tokens",
  3300,
);
export const TOTAL_USAGE_COMPLETION_TOKENS = usageTotal(
  "total_usage_completion_tokens",
  "usage_completion_tokens",
  "Total Usage Completion Tokens",
  3400,
);
export const TOTAL_USAGE_REASONING_TOKENS = usageTotal(
  "total_usage_reasoning_tokens",
  "usage_reasoning_tokens",
  "Total Usage Reasoning Tokens",
  3410,
);
export const TOTAL_USAGE_PROMPT_CACHE_READ_TOKENS = usageTotal(
  "total_usage_prompt_cache_read_tokens",
  "usage_prompt_cache_read_tokens",
  "Total Usage Prompt Cache Read Tokens",
  3310,
);
export const TOTAL_USAGE_PROMPT_CACHE_WRITE_TOKENS = usageTotal(
  "total_usage_prompt_cache_write_tokens",
  "usage_prompt_cache_write_tokens",
  "Total Usage Prompt Cache Write Tokens",
  3315,
);
export const TOTAL_USAGE_PROMPT_CACHE_MISS_TOKENS = usageTotal(
  "total_usage_prompt_cache_miss_tokens",
  "usage_prompt_cache_miss_tokens",
  "Total Usage Prompt Cache Miss Tokens",
  3317,
);
export const TOTAL_USAGE_PROMPT_AUDIO_TOKENS = usageTotal(
  "total_usage_prompt_audio_tokens",
  "usage_prompt_audio_tokens",
  "Total Usage Prompt Audio Tokens",
  3320,
);
export const TOTAL_USAGE_COMPLETION_AUDIO_TOKENS = usageTotal(
  "total_usage_completion_audio_tokens",
  "usage_completion_audio_tokens",
  "Total Usage Completion Audio Tokens",
  3420,
);
export const TOTAL_USAGE_TOOL_USE_PROMPT_TOKENS = usageTotal(
  "total_usage_tool_use_prompt_tokens",
  "usage_tool_use_prompt_tokens",
  "Total Usage Tool Use Prompt Tokens",
  3330,
);
export const TOTAL_USAGE_PROMPT_AUDIO_SECONDS: DerivedMetricDef = {
  ...usageTotal(
    "total_usage_prompt_audio_seconds",
    "usage_prompt_audio_seconds",
    "Total Usage Prompt Audio Seconds",
    3340,
  ),
  unit: "sec",
};
export const TOTAL_USAGE_ACCEPTED_PREDICTION_TOKENS = usageTotal(
  "total_usage_accepted_prediction_tokens",
  "usage_accepted_prediction_tokens",
  "Total Usage Accepted Prediction Tokens",
  3430,
);
export const TOTAL_USAGE_REJECTED_PREDICTION_TOKENS = usageTotal(
  "total_usage_rejected_prediction_tokens",
  "usage_rejected_prediction_tokens",
  "Total Usage Rejected Prediction Tokens",
  3440,
);

/**
 * `overall_usage_prompt_cache_read_pct = 100 · total_usage_prompt_cache_read_tokens / total_usage_prompt_tokens`:
 * the share of all prompt tokens served from the cache (weighted by tokens, not a mean of per-request shares);
 * undefined when the total prompt is 0.
 */
export const OVERALL_USAGE_PROMPT_CACHE_READ_PCT: DerivedMetricDef = {
  tag: "overall_usage_prompt_cache_read_pct",
  header: "Overall Usage Prompt Cache Read %",
  unit: "%",
  kind: "derived",
  requires: ["total_usage_prompt_cache_read_tokens", "total_usage_prompt_tokens"],
  flags: { largerIsBetter: true, noIndividualRecords: true },
  consoleGroup: "usage",
  displayOrder: 3312,
  compute: (m) => {
    const prompt = m.value("total_usage_prompt_tokens");
    const read = m.value("total_usage_prompt_cache_read_tokens");
    return prompt === undefined || read === undefined || prompt === 0 ? undefined : (read / prompt) * 100;
  },
};

export const TOTAL_USAGE_TOTAL_TOKENS = usageTotal(
  "total_usage_total_tokens",
  "usage_total_tokens",
  "Total Usage Total Tokens",
  3450,
);

/** `input_token_throughput = total_isl / window_s`. */
export const INPUT_TOKEN_THROUGHPUT: DerivedMetricDef = {
  tag: "input_token_throughput",
  header: "Input Token Throughput",
  shortHeader: "Input TPS",
  unit: "tokens/sec",
  kind: "derived",
  requires: ["total_isl", "benchmark_duration"],
  flags: { tokenizesInputOnly: true, largerIsBetter: true, noIndividualRecords: true },
  displayOrder: 805,
  compute: (m) => ratio(m.value("total_isl"), m.observationSec()),
};

/** `completed_request_count = request_count + error_request_count` (every request that finished, either way). */
export const COMPLETED_REQUEST_COUNT: DerivedMetricDef = {
  tag: "completed_request_count",
  header: "Completed Requests (Success + Error)",
  shortHeader: "Completed",
  unit: "requests",
  kind: "derived",
  requires: [],
  reads: ["request_count", "error_request_count"],
  flags: { noIndividualRecords: true },
  displayOrder: 1075,
  compute: (m) => {
    const total = (m.value("request_count") ?? 0) + (m.value("error_request_count") ?? 0);
    return total > 0 ? total : undefined;
  },
};

/** All metrics, in declaration order (dependencies first reads best, but the registry sorts topologically). */
export const METRIC_DEFS: readonly MetricDef[] = [
  REQUEST_LATENCY,
  VIDEO_INFERENCE_TIME,
  VIDEO_PEAK_MEMORY,
  TIME_TO_FIRST_TOKEN,
  TIME_TO_SECOND_TOKEN,
  TIME_TO_FIRST_OUTPUT_TOKEN,
  OUTPUT_TOKEN_COUNT,
  REASONING_TOKEN_COUNT,
  OUTPUT_SEQUENCE_LENGTH,
  INPUT_SEQUENCE_LENGTH,
  INTER_TOKEN_LATENCY,
  INTER_CHUNK_LATENCY,
  OUTPUT_TOKEN_THROUGHPUT_PER_USER,
  DECODE_DURATION,
  E2E_OUTPUT_TOKEN_THROUGHPUT,
  PREFILL_THROUGHPUT_PER_USER,
  USAGE_PROMPT_TOKENS,
  USAGE_COMPLETION_TOKENS,
  USAGE_REASONING_TOKENS,
  USAGE_TOTAL_TOKENS,
  USAGE_PROMPT_CACHE_READ_TOKENS,
  USAGE_PROMPT_CACHE_WRITE_TOKENS,
  USAGE_PROMPT_CACHE_MISS_TOKENS,
  USAGE_PROMPT_AUDIO_TOKENS,
  USAGE_COMPLETION_AUDIO_TOKENS,
  USAGE_TOOL_USE_PROMPT_TOKENS,
  USAGE_PROMPT_AUDIO_SECONDS,
  USAGE_ACCEPTED_PREDICTION_TOKENS,
  USAGE_REJECTED_PREDICTION_TOKENS,
  USAGE_PROMPT_TOKENS_DIFF_PCT,
  USAGE_COMPLETION_TOKENS_DIFF_PCT,
  USAGE_REASONING_TOKENS_DIFF_PCT,
  OSL_MISMATCH_DIFF_PCT,
  CREDIT_TO_START_LATENCY,
  EFFECTIVE_LATENCY,
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
  ERROR_ISL,
  REPLAY_SEND_SCHEDULE_OFFSET,
  REQUEST_COUNT,
  ERROR_REQUEST_COUNT,
  CONTEXT_OVERFLOW_COUNT,
  MIN_REQUEST_TIMESTAMP,
  MAX_RESPONSE_TIMESTAMP,
  GOOD_REQUEST_COUNT,
  USAGE_DISCREPANCY_COUNT,
  OSL_MISMATCH_COUNT,
  SESSION_COUNT,
  TOTAL_ISL,
  TOTAL_OSL,
  TOTAL_OUTPUT_TOKENS,
  TOTAL_REASONING_TOKENS,
  TOTAL_ERROR_ISL,
  BENCHMARK_DURATION,
  OUTPUT_TOKEN_THROUGHPUT,
  TOTAL_TOKEN_THROUGHPUT,
  REQUEST_THROUGHPUT,
  REQUEST_ERROR_RATE,
  SESSION_THROUGHPUT,
  REPLAY_SCHED_LAG_P50,
  REPLAY_SCHED_LAG_P90,
  REPLAY_SCHED_LAG_P99,
  REPLAY_SCHED_DEGRADED,
  GOOD_REQUEST_FRACTION,
  GOODPUT,
  TOTAL_USAGE_PROMPT_TOKENS,
  TOTAL_USAGE_COMPLETION_TOKENS,
  TOTAL_USAGE_REASONING_TOKENS,
  TOTAL_USAGE_PROMPT_CACHE_READ_TOKENS,
  TOTAL_USAGE_PROMPT_CACHE_WRITE_TOKENS,
  TOTAL_USAGE_PROMPT_CACHE_MISS_TOKENS,
  TOTAL_USAGE_PROMPT_AUDIO_TOKENS,
  TOTAL_USAGE_COMPLETION_AUDIO_TOKENS,
  TOTAL_USAGE_TOOL_USE_PROMPT_TOKENS,
  TOTAL_USAGE_PROMPT_AUDIO_SECONDS,
  TOTAL_USAGE_ACCEPTED_PREDICTION_TOKENS,
  TOTAL_USAGE_REJECTED_PREDICTION_TOKENS,
  OVERALL_USAGE_PROMPT_CACHE_READ_PCT,
  TOTAL_USAGE_TOTAL_TOKENS,
  INPUT_TOKEN_THROUGHPUT,
  COMPLETED_REQUEST_COUNT,
  STREAMED_REQUEST_COUNT,
  ...SPEC_DECODE_METRIC_DEFS,
];
