/**
 * `vllm bench serve`'s metrics from infermeter's records.
 *
 * Facts from vLLM's source (`vllm/benchmarks/serve.py`: `calculate_metrics`, `benchmark`;
 * `vllm/benchmarks/lib/endpoint_request_func.py`: `async_request_openai_chat_completions`,
 * `async_request_openai_completions`):
 * - Only successful requests count. A request's output length is the server's `usage.completion_tokens`, else the
 *   client tokenizer's count of the generated text; its input length is the dataset's prompt length.
 * - TTFT = first SSE message carrying `choices` − start. ITL = every gap between consecutive `choices` messages, all
 *   requests' gaps pooled. E2EL = the last message − start.
 * - TPOT = (E2EL − TTFT) / (output length − 1) per request with more than one output token, then averaged over
 *   requests (the first token excluded; every request weighs the same, whatever its length).
 * - Duration = from just before the first request is created to when the last one finishes; every throughput is a
 *   total over it: requests/s = successful / duration, output tok/s = Σ output lengths / duration, total tok/s =
 *   (Σ input + Σ output) / duration.
 * - Peak output tok/s and peak concurrent requests: one-second buckets from the first successful start; each chunk
 *   arrival adds one "token" to its bucket, each request counts in every bucket from its start to its end.
 * - Statistics: numpy mean, median, percentile (linear), population std; an empty list reports 0.
 */
import { chunkGapsMs, type PeerRecord, ttftMs } from "./peer_records.ts";
import { type PeerDefinition, type PeerValue, per, spanSec, sumOf, v } from "./peer_definition.ts";
import { mean, orZero, percentile, std } from "./peer_stats.ts";

/** Output length as vLLM takes it: server usage when non-zero, else the client tokenizer's count. */
export function vllmOutputLen(r: PeerRecord): number {
  return r.serverOutputTokens !== undefined && r.serverOutputTokens > 0 ? r.serverOutputTokens : (r.outputTokens ?? 0);
}

/** The per-request samples vLLM pools (times in ms). */
export interface VllmSamples {
  readonly ttfts: number[];
  readonly tpots: number[];
  readonly itls: number[];
  readonly e2els: number[];
}

/** TTFT, TPOT, ITL and E2EL samples of successful streamed requests, as vLLM forms them. */
export function vllmSamples(ok: readonly PeerRecord[]): VllmSamples {
  const s: VllmSamples = { ttfts: [], tpots: [], itls: [], e2els: [] };
  for (const r of ok) {
    const ttft = ttftMs(r);
    if (ttft === undefined || r.latencyMs === undefined) continue;
    s.ttfts.push(ttft);
    s.e2els.push(r.latencyMs);
    s.itls.push(...chunkGapsMs(r));
    const n = vllmOutputLen(r);
    if (n > 1) s.tpots.push((r.latencyMs - ttft) / (n - 1));
  }
  return s;
}

/** Peak chunks per one-second bucket and peak requests in flight per bucket (vLLM's 1-s buckets). */
export function vllmPeaks(ok: readonly PeerRecord[]): { maxOutputTokensPerS: number; maxConcurrentRequests: number } {
  const streamed = ok.filter((r) => r.latencyMs !== undefined);
  if (streamed.length === 0) return { maxOutputTokensPerS: 0, maxConcurrentRequests: 0 };
  let minStart = Infinity;
  let maxEnd = -Infinity;
  for (const r of streamed) {
    minStart = Math.min(minStart, r.startMs);
    maxEnd = Math.max(maxEnd, r.startMs + (r.latencyMs ?? 0));
  }
  const buckets = Math.ceil((maxEnd - minStart) / 1000) + 1;
  const tokens = new Array<number>(buckets).fill(0);
  const concurrent = new Array<number>(buckets).fill(0);
  for (const r of streamed) {
    for (const t of r.chunkTimesMs) {
      const b = Math.floor((t - minStart) / 1000);
      if (b >= 0 && b < buckets) tokens[b]++;
    }
    const first = Math.floor((r.startMs - minStart) / 1000);
    const last = Math.floor((r.startMs + (r.latencyMs ?? 0) - minStart) / 1000);
    for (let b = first; b <= last; b++) concurrent[b]++;
  }
  return { maxOutputTokensPerS: Math.max(...tokens), maxConcurrentRequests: Math.max(...concurrent) };
}

function stats(prefix: string, name: string, samples: number[], streamed: boolean): PeerValue[] {
  const at = (x: number | undefined) => (streamed ? orZero(x) : null);
  return [
    { key: `mean_${prefix}_ms`, label: `Mean ${name} (ms)`, value: at(mean(samples)), unit: "ms" },
    { key: `median_${prefix}_ms`, label: `Median ${name} (ms)`, value: at(percentile(samples, 50)), unit: "ms" },
    { key: `p99_${prefix}_ms`, label: `P99 ${name} (ms)`, value: at(percentile(samples, 99)), unit: "ms" },
    { key: `std_${prefix}_ms`, label: `Std ${name} (ms)`, value: at(std(samples)), unit: "ms", console: false },
  ];
}

export const VLLM_PEER: PeerDefinition = {
  name: "vllm",
  description: "vLLM's `vllm bench serve`: TPOT excludes the first token, ITL pools every chunk gap.",
  tool: "vllm bench serve",
  definedIn: [
    { repository: "vllm-project/vllm", file: "vllm/benchmarks/serve.py", function: "calculate_metrics" },
    { repository: "vllm-project/vllm", file: "vllm/benchmarks/serve.py", function: "benchmark" },
    {
      repository: "vllm-project/vllm",
      file: "vllm/benchmarks/lib/endpoint_request_func.py",
      function: "async_request_openai_chat_completions",
    },
  ],
  compute(records) {
    const ok = records.filter((r) => r.ok);
    const streamed = ok.some((r) => r.chunkTimesMs.length > 0);
    const s = vllmSamples(ok);
    const duration = spanSec(records);
    const totalInput = sumOf(ok, (r) => r.inputTokens);
    const totalOutput = sumOf(ok, vllmOutputLen);
    const peaks = vllmPeaks(ok);
    const values: PeerValue[] = [
      { key: "completed", label: "Successful requests", value: ok.length, unit: "requests" },
      { key: "failed", label: "Failed requests", value: records.length - ok.length, unit: "requests" },
      { key: "duration", label: "Benchmark duration (s)", value: v(duration), unit: "s" },
      { key: "total_input_tokens", label: "Total input tokens", value: totalInput, unit: "tokens" },
      { key: "total_output_tokens", label: "Total generated tokens", value: totalOutput, unit: "tokens" },
      {
        key: "request_throughput",
        label: "Request throughput (req/s)",
        value: per(ok.length, duration),
        unit: "req/s",
      },
      {
        key: "output_throughput",
        label: "Output token throughput (tok/s)",
        value: per(totalOutput, duration),
        unit: "tok/s",
      },
      {
        key: "max_output_tokens_per_s",
        label: "Peak output token throughput (tok/s)",
        value: streamed ? peaks.maxOutputTokensPerS : null,
        unit: "tok/s",
      },
      {
        key: "max_concurrent_requests",
        label: "Peak concurrent requests",
        value: streamed ? peaks.maxConcurrentRequests : null,
        unit: "requests",
      },
      {
        key: "total_token_throughput",
        label: "Total Token throughput (tok/s)",
        value: per(totalInput + totalOutput, duration),
        unit: "tok/s",
      },
      ...stats("ttft", "TTFT", s.ttfts, streamed),
      ...stats("tpot", "TPOT", s.tpots, streamed),
      ...stats("itl", "ITL", s.itls, streamed),
      ...stats("e2el", "E2EL", s.e2els, streamed),
    ];
    return {
      values,
      explanations: [
        {
          metric: "TPOT",
          peerKey: "mean_tpot_ms",
          peerDefinition: "mean over successful requests with > 1 output token of (E2EL − TTFT) / (output tokens − 1)",
          infermeterKey: "inter_token_latency.avg",
          why: "Same per-request formula as infermeter's inter_token_latency; the values part only where the output " +
            "count differs (vLLM prefers the server's usage.completion_tokens, infermeter counts with the client " +
            "tokenizer unless --use-server-token-count) or where a chat stream ends with a usage-only chunk, which " +
            "vLLM's E2EL includes and infermeter's request_latency does not.",
        },
        {
          metric: "ITL",
          peerKey: "mean_itl_ms",
          peerDefinition: "mean of every gap between consecutive streamed chunks, all requests pooled",
          infermeterKey: "inter_chunk_latency.avg",
          why: "vLLM's ITL is a per-chunk gap, not a per-token time: it equals infermeter's inter_chunk_latency, " +
            "not its inter_token_latency. When a chunk carries several tokens (speculative decoding, batched " +
            "detokenization) it is larger than TPOT by about the tokens per chunk; long requests weigh more " +
            "because they contribute more gaps.",
        },
        {
          metric: "TTFT",
          peerKey: "mean_ttft_ms",
          peerDefinition: "first SSE message with a choices array − start (a role-only opening chunk counts)",
          infermeterKey: "time_to_first_token.avg",
          why: "infermeter's TTFT waits for the first chunk with text, reasoning or a tool call; vLLM stops at the " +
            "first message with choices even if its delta is empty, so vLLM reads lower when a server sends the " +
            "role-only chunk before the first token.",
        },
        {
          metric: "Output throughput",
          peerKey: "output_throughput",
          peerDefinition: "Σ output tokens of successful requests / (first request start → last request end)",
          infermeterKey: "output_token_throughput",
          why: "vLLM's duration runs to the last byte of the last request (the stream's close), infermeter's to the " +
            "last content chunk; vLLM's token totals prefer the server's usage.",
        },
      ],
      notes: [
        "Times come from infermeter's content chunks: a role-only opening chunk or a trailing usage chunk, which " +
        "vLLM's TTFT and chat E2EL can include, is not in profile_export.jsonl.",
        "vLLM's duration starts just before its first request is created; from the records it starts at the first " +
        "request's send.",
      ],
    };
  },
};
