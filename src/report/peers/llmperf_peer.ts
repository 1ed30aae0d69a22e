/**
 * LLMPerf's (`token_benchmark_ray.py`, ray-project/llmperf) metrics from infermeter's records.
 *
 * Facts from LLMPerf's source (`src/llmperf/ray_clients/openai_chat_completions_client.py`:
 * `OpenAIChatCompletionsClient.llm_request`; `token_benchmark_ray.py`: `get_token_throughput_latencies`,
 * `metrics_summary`):
 * - Per request: TTFT = first chunk with non-empty content − start; the "inter-token latency" is the *sum* of the
 *   gaps between content chunks with TTFT included (= last content chunk − start) divided by the number of
 *   streamed data messages; end-to-end latency = when the stream closed − start; output tokens = the generated
 *   text counted with a fixed Llama tokenizer; request output throughput = output tokens / end-to-end latency.
 * - Errored requests (an error code) are left out of every statistic.
 * - Statistics (pandas): quantiles p25–p99 linear, mean, min, max, std with one degree of freedom. Times in seconds.
 * - Overall output throughput = Σ output tokens / (test end − test start); completed requests per minute likewise.
 */
import type { PeerRecord } from "./peer_records.ts";
import { type PeerDefinition, type PeerValue, per, spanSec, sumOf } from "./peer_definition.ts";
import { mean, percentile, std } from "./peer_stats.ts";

/** LLMPerf's per-request inter-token latency in seconds: (last content chunk − start) / chunks. */
export function llmperfInterTokenLatencyS(r: PeerRecord): number | undefined {
  const n = r.chunkTimesMs.length;
  return n === 0 ? undefined : (r.chunkTimesMs[n - 1] - r.startMs) / 1000 / n;
}

const QUANTILES = [25, 50, 75, 90, 95, 99] as const;

function summary(key: string, label: string, unit: string, samples: number[], streamed: boolean): PeerValue[] {
  const at = (x: number | undefined) => (streamed && x !== undefined ? x : null);
  const out: PeerValue[] = [];
  for (const q of QUANTILES) {
    out.push({
      key: `${key}.quantiles.p${q}`,
      label: `${label} p${q}`,
      value: at(percentile(samples, q)),
      unit,
      console: q === 50 || q === 99,
    });
  }
  out.push({ key: `${key}.mean`, label: `${label} mean`, value: at(mean(samples)), unit });
  out.push({
    key: `${key}.min`,
    label: `${label} min`,
    value: at(samples.length ? Math.min(...samples) : undefined),
    unit,
    console: false,
  });
  out.push({
    key: `${key}.max`,
    label: `${label} max`,
    value: at(samples.length ? Math.max(...samples) : undefined),
    unit,
    console: false,
  });
  out.push({ key: `${key}.stddev`, label: `${label} stddev`, value: at(std(samples, 1)), unit, console: false });
  return out;
}

export const LLMPERF_PEER: PeerDefinition = {
  name: "llmperf",
  description: "LLMPerf: per-request 'inter-token latency' = (TTFT + all chunk gaps) / chunks, times in seconds.",
  tool: "llmperf token_benchmark_ray.py",
  definedIn: [
    {
      repository: "ray-project/llmperf",
      file: "src/llmperf/ray_clients/openai_chat_completions_client.py",
      function: "OpenAIChatCompletionsClient.llm_request",
    },
    { repository: "ray-project/llmperf", file: "token_benchmark_ray.py", function: "get_token_throughput_latencies" },
    { repository: "ray-project/llmperf", file: "token_benchmark_ray.py", function: "metrics_summary" },
  ],
  compute(records) {
    const ok = records.filter((r) => r.ok);
    const streamed = ok.some((r) => r.chunkTimesMs.length > 0);
    const itl: number[] = [];
    const ttft: number[] = [];
    const e2e: number[] = [];
    const reqThroughput: number[] = [];
    const inputs: number[] = [];
    const outputs: number[] = [];
    for (const r of ok) {
      const e2eS = (r.endMs - r.startMs) / 1000;
      e2e.push(e2eS);
      const out = r.outputTokens ?? 0;
      outputs.push(out);
      if (r.inputTokens !== undefined) inputs.push(r.inputTokens);
      if (e2eS > 0) reqThroughput.push(out / e2eS);
      const i = llmperfInterTokenLatencyS(r);
      itl.push(i ?? 0);
      ttft.push(r.chunkTimesMs.length > 0 ? (r.chunkTimesMs[0] - r.startMs) / 1000 : 0);
    }
    const window = spanSec(records);
    const values: PeerValue[] = [
      ...summary("results_inter_token_latency_s", "inter_token_latency_s", "s", itl, streamed),
      ...summary("results_ttft_s", "ttft_s", "s", ttft, streamed),
      ...summary("results_end_to_end_latency_s", "end_to_end_latency_s", "s", e2e, true),
      ...summary(
        "results_request_output_throughput_token_per_s",
        "request_output_throughput_token_per_s",
        "tok/s",
        reqThroughput,
        true,
      ),
      ...summary("results_number_input_tokens", "number_input_tokens", "tokens", inputs, true)
        .map((x) => ({ ...x, console: false })),
      ...summary("results_number_output_tokens", "number_output_tokens", "tokens", outputs, true)
        .map((x) => ({ ...x, console: x.key.endsWith(".mean") })),
      {
        key: "results_mean_output_throughput_token_per_s",
        label: "Overall Output Throughput",
        value: per(sumOf(ok, (r) => r.outputTokens), window),
        unit: "tok/s",
      },
      { key: "results_num_completed_requests", label: "Number Of Completed Requests", value: ok.length, unit: "" },
      {
        key: "results_num_completed_requests_per_min",
        label: "Completed Requests Per Minute",
        value: window === undefined || !(window > 0) ? null : (ok.length / window) * 60,
        unit: "req/min",
      },
      {
        key: "results_number_errors",
        label: "Number Of Errored Requests",
        value: records.length - ok.length,
        unit: "",
      },
      {
        key: "results_error_rate",
        label: "Error rate",
        value: records.length === 0 ? 0 : (records.length - ok.length) / records.length,
        unit: "",
        console: false,
      },
    ];
    return {
      values,
      explanations: [
        {
          metric: "ITL",
          peerKey: "results_inter_token_latency_s.mean",
          peerDefinition: "(TTFT + Σ gaps between content chunks) / streamed chunks, per request, in seconds",
          infermeterKey: "inter_token_latency.avg",
          why: "LLMPerf's numerator starts at the request's send, so TTFT (queueing and prefill) is spread over the " +
            "tokens — it is close to end-to-end latency / output tokens, not to a decode-only ITL — and its " +
            "denominator counts streamed messages, not tokens: multi-token chunks make it larger, extra empty " +
            "messages smaller. Shown in seconds (× 1000 for ms).",
        },
        {
          metric: "TTFT",
          peerKey: "results_ttft_s.mean",
          peerDefinition: "first chunk with non-empty content − start, in seconds",
          infermeterKey: "time_to_first_token.avg",
          why: "The same event as infermeter's TTFT (reasoning-only chunks aside: LLMPerf waits for content); its " +
            "stddev uses n − 1.",
        },
        {
          metric: "E2E latency",
          peerKey: "results_end_to_end_latency_s.mean",
          peerDefinition: "stream closed − start, in seconds",
          infermeterKey: "request_latency.avg",
          why: "LLMPerf stops its clock after the stream closes; infermeter's request_latency ends at the last " +
            "content chunk.",
        },
        {
          metric: "Output throughput",
          peerKey: "results_mean_output_throughput_token_per_s",
          peerDefinition: "Σ output tokens of completed requests / (test end − test start)",
          infermeterKey: "output_token_throughput",
          why: "LLMPerf counts tokens with a fixed Llama tokenizer whatever the model; here infermeter's client " +
            "token counts stand in, so the difference left is the window (to the stream's close).",
        },
      ],
      notes: [
        "LLMPerf divides by every streamed data message (a role-only opening chunk or a usage chunk included); the " +
        "records keep content chunks only, so their count is used.",
        "LLMPerf counts output tokens with the hf-internal-testing/llama-tokenizer; the run's own token counts are " +
        "used instead.",
      ],
    };
  },
};
