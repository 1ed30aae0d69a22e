/**
 * GenAI-Perf's (`genai-perf profile`, triton-inference-server/perf_analyzer) metrics from infermeter's records.
 *
 * Facts from GenAI-Perf's source (`genai-perf/genai_perf/profile_data_parser/llm_profile_data_parser.py`:
 * `LLMProfileDataParser._parse_requests`, `_preprocess_response`; `genai-perf/genai_perf/metrics/statistics.py`):
 * - Responses without content are dropped; a request left with none is skipped (but still counted in the request
 *   throughput's numerator).
 * - TTFT = first non-empty response − start; request latency = last non-empty response − start;
 *   ITL = (latency − TTFT) / (output tokens − 1) per request with more than one token, rounded to whole ns;
 *   output token throughput per request = output tokens / latency; output tokens = the whole text counted with the
 *   client tokenizer.
 * - Benchmark duration = last response of any request − first request start; request throughput = all requests /
 *   duration; output token throughput = Σ output tokens / duration.
 * - Statistics: numpy mean, min, max, percentiles (linear: p25 p50 p75 p90 p95 p99), population std.
 */
import type { PeerRecord } from "./peer_records.ts";
import { type PeerDefinition, type PeerValue, per, sumOf } from "./peer_definition.ts";
import { mean, percentile, std } from "./peer_stats.ts";

/** GenAI-Perf's per-request ITL in ms (rounded to whole nanoseconds as it does), for > 1 output token. */
export function genaiPerfItlMs(r: PeerRecord): number | undefined {
  const t = r.chunkTimesMs;
  const n = r.outputTokens ?? 0;
  if (t.length === 0 || n <= 1) return undefined;
  const latency = t[t.length - 1] - r.startMs;
  const ttft = t[0] - r.startMs;
  return Math.round(((latency - ttft) / (n - 1)) * 1e6) / 1e6;
}

function stats(key: string, label: string, unit: string, samples: number[]): PeerValue[] {
  const n = (x: number | undefined) => (x === undefined ? null : x);
  return [
    { key: `${key}.avg`, label: `${label} avg`, value: n(mean(samples)), unit },
    { key: `${key}.min`, label: `${label} min`, value: samples.length ? Math.min(...samples) : null, unit },
    { key: `${key}.max`, label: `${label} max`, value: samples.length ? Math.max(...samples) : null, unit },
    { key: `${key}.p99`, label: `${label} p99`, value: n(percentile(samples, 99)), unit },
    { key: `${key}.p90`, label: `${label} p90`, value: n(percentile(samples, 90)), unit, console: false },
    { key: `${key}.p75`, label: `${label} p75`, value: n(percentile(samples, 75)), unit, console: false },
    { key: `${key}.p50`, label: `${label} p50`, value: n(percentile(samples, 50)), unit },
    { key: `${key}.p25`, label: `${label} p25`, value: n(percentile(samples, 25)), unit, console: false },
    { key: `${key}.std`, label: `${label} std`, value: n(std(samples)), unit, console: false },
  ];
}

export const GENAI_PERF_PEER: PeerDefinition = {
  name: "genai-perf",
  description: "GenAI-Perf: AIPerf's ITL formula, requests without content skipped, every request in throughput.",
  tool: "genai-perf profile",
  definedIn: [
    {
      repository: "triton-inference-server/perf_analyzer",
      file: "genai-perf/genai_perf/profile_data_parser/llm_profile_data_parser.py",
      function: "LLMProfileDataParser._parse_requests",
    },
    {
      repository: "triton-inference-server/perf_analyzer",
      file: "genai-perf/genai_perf/metrics/statistics.py",
      function: "Statistics",
    },
  ],
  compute(records) {
    // Failed requests carry no response content in the records, so they fall out with the empty ones.
    const answered = records.filter((r) => r.ok && r.chunkTimesMs.length > 0);
    const ttft: number[] = [];
    const itl: number[] = [];
    const latency: number[] = [];
    const perRequest: number[] = [];
    const osl: number[] = [];
    const isl: number[] = [];
    let first = Infinity;
    let last = -Infinity;
    for (const r of answered) {
      const t = r.chunkTimesMs;
      const lat = t[t.length - 1] - r.startMs;
      first = Math.min(first, r.startMs);
      last = Math.max(last, t[t.length - 1]);
      latency.push(lat);
      ttft.push(t[0] - r.startMs);
      const out = r.outputTokens ?? 0;
      osl.push(out);
      if (r.inputTokens !== undefined) isl.push(r.inputTokens);
      if (lat > 0) perRequest.push(out / (lat / 1000));
      const i = genaiPerfItlMs(r);
      if (i !== undefined) itl.push(i);
    }
    const durationS = answered.length === 0 ? undefined : (last - first) / 1000;
    const values: PeerValue[] = [
      ...stats("time_to_first_token", "Time to first token (ms)", "ms", ttft),
      ...stats("inter_token_latency", "Inter token latency (ms)", "ms", itl),
      ...stats("request_latency", "Request latency (ms)", "ms", latency),
      ...stats(
        "output_token_throughput_per_request",
        "Output token throughput per request (tokens/sec)",
        "tokens/sec",
        perRequest,
      ).map((x) => ({ ...x, console: x.key.endsWith(".avg") })),
      ...stats("output_sequence_length", "Output sequence length (tokens)", "tokens", osl)
        .map((x) => ({ ...x, console: x.key.endsWith(".avg") })),
      ...stats("input_sequence_length", "Input sequence length (tokens)", "tokens", isl)
        .map((x) => ({ ...x, console: x.key.endsWith(".avg") })),
      {
        key: "output_token_throughput.avg",
        label: "Output token throughput (tokens/sec)",
        value: per(sumOf(answered, (r) => r.outputTokens), durationS),
        unit: "tokens/sec",
      },
      {
        key: "request_throughput.avg",
        label: "Request throughput (per sec)",
        value: per(records.length, durationS),
        unit: "per sec",
      },
    ];
    return {
      values,
      explanations: [
        {
          metric: "ITL",
          peerKey: "inter_token_latency.avg",
          peerDefinition: "(latency − TTFT) / (output tokens − 1) per request, rounded to ns, averaged over requests",
          infermeterKey: "inter_token_latency.avg",
          why: "AIPerf took this formula from GenAI-Perf: the values agree except for requests GenAI-Perf skips " +
            "(no non-empty response) and the nanosecond rounding.",
        },
        {
          metric: "TTFT",
          peerKey: "time_to_first_token.avg",
          peerDefinition: "first non-empty response − start",
          infermeterKey: "time_to_first_token.avg",
          why: "The same event; GenAI-Perf ignores reasoning-only responses' text when the server sends reasoning " +
            "in a separate field, infermeter counts reasoning as output.",
        },
        {
          metric: "Request throughput",
          peerKey: "request_throughput.avg",
          peerDefinition: "every request sent / (last response − first request start)",
          infermeterKey: "request_throughput",
          why: "GenAI-Perf's numerator counts every request, failed and empty ones included; infermeter's counts " +
            "successful requests only.",
        },
        {
          metric: "Output throughput",
          peerKey: "output_token_throughput.avg",
          peerDefinition: "Σ output tokens / (last response − first request start)",
          infermeterKey: "output_token_throughput",
          why: "Same totals and the same window (first send → last content response) as AIPerf's benchmark_duration.",
        },
      ],
      notes: [
        "GenAI-Perf tokenizes the whole output text with the model's tokenizer; the run's own output counts are used.",
      ],
    };
  },
};
