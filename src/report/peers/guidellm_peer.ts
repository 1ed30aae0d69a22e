/**
 * GuideLLM's (`guidellm benchmark run`) metrics from infermeter's records.
 *
 * Facts from GuideLLM's source (0.8: `src/guidellm/schemas/base/request_stats.py`: `GenerativeRequestStats`
 * properties `time_to_first_token_ms`, `time_per_output_token_ms`, `inter_token_latency_ms`, `request_latency`,
 * `output_tokens`; `src/guidellm/benchmark/schemas/metrics.py`: `GenerativeMetrics.compile`;
 * `src/guidellm/schemas/base/statistics.py`: `DistributionSummary.from_values`, `Percentiles.from_pdf`,
 * `rate_distribution_from_timings`; `src/guidellm/backends/openai/http.py`: the streaming loop):
 * - A "token iteration" is a streamed line that added text; TTFT = first iteration − start; the request ends when
 *   the stream does (`[DONE]`); output tokens = the server's usage, else the number of iterations.
 * - TPOT = (last iteration − start) / output tokens — the first token *included* — and its distribution weighs
 *   each request by its output tokens.
 * - ITL = (last iteration − first iteration) / (output tokens − 1), weighted by output tokens − 1: the mean is total
 *   decode time over total decode tokens, not a mean over requests.
 * - Request latency, TTFT: one unweighted value per successful request.
 * - Percentiles: the first value whose cumulative probability reaches p (no interpolation); std is the weighted
 *   population std. Console: mean, median, p95 per latency; requests/s and tokens/s as the mean rate over the
 *   measured window, every request status included.
 */
import type { PeerRecord } from "./peer_records.ts";
import { type PeerDefinition, type PeerValue, per, spanSec, sumOf, v } from "./peer_definition.ts";
import { type WeightedSummary, weightedSummary } from "./peer_stats.ts";

/** Output tokens as GuideLLM takes them: server usage, else one per content chunk. */
export function guidellmOutputTokens(r: PeerRecord): number {
  return r.serverOutputTokens ?? r.chunkTimesMs.length;
}

/** The (value, weight) samples GuideLLM summarises, times in ms (request latency in s). */
export interface GuidellmSamples {
  readonly latencyS: [number, number][];
  readonly ttft: [number, number][];
  readonly tpot: [number, number][];
  readonly itl: [number, number][];
}

export function guidellmSamples(ok: readonly PeerRecord[]): GuidellmSamples {
  const s: GuidellmSamples = { latencyS: [], ttft: [], tpot: [], itl: [] };
  for (const r of ok) {
    s.latencyS.push([(r.endMs - r.startMs) / 1000, 1]);
    const t = r.chunkTimesMs;
    const n = guidellmOutputTokens(r);
    if (t.length === 0) continue;
    const first = t[0];
    const last = t[t.length - 1];
    s.ttft.push([first - r.startMs, 1]);
    if (n > 0) s.tpot.push([(last - r.startMs) / n, n]);
    if (n > 1) s.itl.push([(last - first) / (n - 1), n - 1]);
  }
  return s;
}

function triple(prefix: string, label: string, unit: string, w: WeightedSummary, streamed: boolean): PeerValue[] {
  const at = (x: number) => (streamed ? x : null);
  return [
    { key: `${prefix}.mean`, label: `${label} Mean`, value: at(w.mean), unit },
    { key: `${prefix}.median`, label: `${label} Mdn`, value: at(w.median), unit },
    { key: `${prefix}.p95`, label: `${label} p95`, value: at(w.p95), unit },
    { key: `${prefix}.p99`, label: `${label} p99`, value: at(w.p99), unit, console: false },
    { key: `${prefix}.std_dev`, label: `${label} std`, value: at(w.std), unit, console: false },
  ];
}

export const GUIDELLM_PEER: PeerDefinition = {
  name: "guidellm",
  description: "GuideLLM: TPOT includes the first token, ITL and TPOT token-weighted, nearest-rank percentiles.",
  tool: "guidellm benchmark run",
  definedIn: [
    {
      repository: "vllm-project/guidellm",
      file: "src/guidellm/schemas/base/request_stats.py",
      function: "GenerativeRequestStats.time_per_output_token_ms / inter_token_latency_ms",
    },
    {
      repository: "vllm-project/guidellm",
      file: "src/guidellm/benchmark/schemas/metrics.py",
      function: "GenerativeMetrics.compile",
    },
    {
      repository: "vllm-project/guidellm",
      file: "src/guidellm/schemas/base/statistics.py",
      function: "DistributionSummary.from_values",
    },
  ],
  compute(records) {
    const ok = records.filter((r) => r.ok);
    const streamed = ok.some((r) => r.chunkTimesMs.length > 0);
    const s = guidellmSamples(ok);
    const window = spanSec(records);
    const outputTokens = sumOf(ok, guidellmOutputTokens);
    const inputTokens = sumOf(ok, (r) => r.serverInputTokens ?? r.inputTokens);
    const values: PeerValue[] = [
      { key: "request_totals.successful", label: "Requests successful", value: ok.length, unit: "requests" },
      { key: "request_totals.errored", label: "Requests errored", value: records.length - ok.length, unit: "requests" },
      ...triple("request_latency", "Request Latency (s)", "s", weightedSummary(s.latencyS), true),
      ...triple("time_to_first_token_ms", "TTFT (ms)", "ms", weightedSummary(s.ttft), streamed),
      ...triple("inter_token_latency_ms", "ITL (ms)", "ms", weightedSummary(s.itl), streamed),
      ...triple("time_per_output_token_ms", "TPOT (ms)", "ms", weightedSummary(s.tpot), streamed),
      {
        key: "request_concurrency.mean",
        label: "Concurrency Mean",
        value: per(sumOf(records, (r) => r.endMs - r.startMs) / 1000, window),
        unit: "",
      },
      { key: "requests_per_second.mean", label: "Requests Per Sec", value: per(records.length, window), unit: "req/s" },
      {
        key: "prompt_tokens_per_second.mean",
        label: "Input Tokens Per Sec",
        value: per(inputTokens, window),
        unit: "tok/s",
      },
      {
        key: "output_tokens_per_second.mean",
        label: "Output Tokens Per Sec",
        value: per(outputTokens, window),
        unit: "tok/s",
      },
      {
        key: "tokens_per_second.mean",
        label: "Total Tokens Per Sec",
        value: per(inputTokens + outputTokens, window),
        unit: "tok/s",
      },
      { key: "window_s", label: "Measured window (s)", value: v(window), unit: "s", console: false },
    ];
    return {
      values,
      explanations: [
        {
          metric: "TPOT",
          peerKey: "time_per_output_token_ms.mean",
          peerDefinition: "(last token − start) / output tokens per request, first token included, weighted by " +
            "output tokens",
          infermeterKey: "inter_token_latency.avg",
          why: "GuideLLM's TPOT spreads the wait for the first token (queueing and prefill) over every output token, " +
            "so it exceeds a TPOT without the first token by about TTFT / output tokens; weighting by tokens makes " +
            "its mean Σ(last − start) / Σ tokens, dominated by long requests.",
        },
        {
          metric: "ITL",
          peerKey: "inter_token_latency_ms.mean",
          peerDefinition: "(last token − first token) / (output tokens − 1) per request, weighted by output tokens − 1",
          infermeterKey: "inter_token_latency.avg",
          why: "Per request this is infermeter's inter_token_latency (both end at the last content chunk); the mean " +
            "weighs each request by its decode tokens, infermeter's weighs requests equally, so they part when " +
            "output lengths vary. Percentiles are nearest-rank on that weighted distribution, not interpolated.",
        },
        {
          metric: "TTFT",
          peerKey: "time_to_first_token_ms.mean",
          peerDefinition: "first streamed line that added text − start",
          infermeterKey: "time_to_first_token.avg",
          why: "The same event as infermeter's TTFT; the median and p95 differ slightly because GuideLLM picks a " +
            "sample (nearest rank) where infermeter interpolates between two.",
        },
        {
          metric: "Output throughput",
          peerKey: "output_tokens_per_second.mean",
          peerDefinition: "output tokens / measured window, all statuses",
          infermeterKey: "output_token_throughput",
          why: "GuideLLM counts server-reported tokens over its measured window (warm-up and cool-down trimmed when " +
            "configured); from the records the window is first start → last end, so it matches infermeter's " +
            "up to the stream-close tail.",
        },
      ],
      notes: [
        "GuideLLM stamps with the wall clock (time.time()); the records' monotonic times are used.",
        "The measured window is taken as the first request's start to the last request's end; GuideLLM's own window " +
        "starts when its scheduler starts and can trim warm-up and cool-down.",
      ],
    };
  },
};
