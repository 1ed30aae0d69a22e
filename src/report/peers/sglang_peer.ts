/**
 * SGLang's `python -m sglang.bench_serving` metrics from infermeter's records.
 *
 * Facts from SGLang's source (`python/sglang/benchmark/metrics.py`: `do_calculate_metrics`, `print_metrics`;
 * `python/sglang/benchmark/backends/oai_chat_client.py`: `OpenAIChatBackendClient.request`;
 * `python/sglang/benchmark/runner.py`: `BenchmarkRunner.run`):
 * - Only successful requests count. Output length = the server's `usage.completion_tokens` (else the requested
 *   length); a second, "retokenized" total counts the generated text with the client tokenizer.
 * - TTFT = first chunk whose content (or reasoning) is non-empty − start; ITL = gap between consecutive non-empty
 *   chunks, pooled; E2E latency = the last line of the stream (`[DONE]` included) − start.
 * - TPOT = (E2E latency − TTFT) / (output length − 1) for output length > 1, averaged over requests.
 * - Duration = first request created → all finished; throughputs are totals over it; Concurrency = Σ E2E
 *   latencies / duration (Little's law average).
 * - Statistics: numpy mean, median, std, p99 (ITL also p95 and max); an empty list reports 0.
 */
import { chunkGapsMs, type PeerRecord, ttftMs } from "./peer_records.ts";
import { type PeerDefinition, type PeerValue, per, spanSec, sumOf, v } from "./peer_definition.ts";
import { mean, orZero, percentile, std } from "./peer_stats.ts";

/** Output length as SGLang takes it: server usage, else (the requested length is not in the records) the client
 * count. */
export function sglangOutputLen(r: PeerRecord): number {
  return r.serverOutputTokens ?? r.outputTokens ?? 0;
}

/** E2E latency as SGLang measures it: to the end of the stream. */
export function sglangLatencyMs(r: PeerRecord): number {
  return r.endMs - r.startMs;
}

export const SGLANG_PEER: PeerDefinition = {
  name: "sglang",
  description: "SGLang's `bench_serving`: latency to the stream's end, TPOT without the first token, chunk ITL.",
  tool: "python -m sglang.bench_serving",
  definedIn: [
    { repository: "sgl-project/sglang", file: "python/sglang/benchmark/metrics.py", function: "do_calculate_metrics" },
    {
      repository: "sgl-project/sglang",
      file: "python/sglang/benchmark/backends/oai_chat_client.py",
      function: "OpenAIChatBackendClient.request",
    },
    { repository: "sgl-project/sglang", file: "python/sglang/benchmark/runner.py", function: "BenchmarkRunner.run" },
  ],
  compute(records) {
    const ok = records.filter((r) => r.ok);
    const streamed = ok.some((r) => r.chunkTimesMs.length > 0);
    const ttfts: number[] = [];
    const tpots: number[] = [];
    const itls: number[] = [];
    const e2e: number[] = [];
    for (const r of ok) {
      const latency = sglangLatencyMs(r);
      e2e.push(latency);
      const ttft = ttftMs(r) ?? latency;
      ttfts.push(ttft);
      itls.push(...chunkGapsMs(r));
      const n = sglangOutputLen(r);
      if (n > 1) tpots.push((latency - ttft) / (n - 1));
    }
    const duration = spanSec(records);
    const totalInput = sumOf(ok, (r) => r.inputTokens);
    const totalOutput = sumOf(ok, sglangOutputLen);
    const retokenized = sumOf(ok, (r) => r.outputTokens);
    const stream = (x: number | undefined) => (streamed ? orZero(x) : null);
    const ms = (key: string, label: string, value: number | null, console = true): PeerValue => ({
      key,
      label,
      value,
      unit: "ms",
      console,
    });
    const values: PeerValue[] = [
      { key: "completed", label: "Successful requests", value: ok.length, unit: "requests" },
      { key: "duration", label: "Benchmark duration (s)", value: v(duration), unit: "s" },
      { key: "total_input", label: "Total input tokens", value: totalInput, unit: "tokens" },
      { key: "total_output", label: "Total generated tokens", value: totalOutput, unit: "tokens" },
      {
        key: "total_output_retokenized",
        label: "Total generated tokens (retokenized)",
        value: retokenized,
        unit: "tokens",
      },
      {
        key: "request_throughput",
        label: "Request throughput (req/s)",
        value: per(ok.length, duration),
        unit: "req/s",
      },
      {
        key: "input_throughput",
        label: "Input token throughput (tok/s)",
        value: per(totalInput, duration),
        unit: "tok/s",
      },
      {
        key: "output_throughput",
        label: "Output token throughput (tok/s)",
        value: per(totalOutput, duration),
        unit: "tok/s",
      },
      {
        key: "total_throughput",
        label: "Total token throughput (tok/s)",
        value: per(totalInput + totalOutput, duration),
        unit: "tok/s",
      },
      { key: "concurrency", label: "Concurrency", value: per(sumOf(ok, sglangLatencyMs) / 1000, duration), unit: "" },
      ms("mean_e2e_latency_ms", "Mean E2E Latency (ms)", orZero(mean(e2e))),
      ms("median_e2e_latency_ms", "Median E2E Latency (ms)", orZero(percentile(e2e, 50))),
      ms("p99_e2e_latency_ms", "P99 E2E Latency (ms)", orZero(percentile(e2e, 99))),
      ms("std_e2e_latency_ms", "Std E2E Latency (ms)", orZero(std(e2e)), false),
      ms("mean_ttft_ms", "Mean TTFT (ms)", orZero(mean(ttfts))),
      ms("median_ttft_ms", "Median TTFT (ms)", orZero(percentile(ttfts, 50))),
      ms("p99_ttft_ms", "P99 TTFT (ms)", orZero(percentile(ttfts, 99))),
      ms("std_ttft_ms", "Std TTFT (ms)", orZero(std(ttfts)), false),
      ms("mean_tpot_ms", "Mean TPOT (ms)", stream(mean(tpots))),
      ms("median_tpot_ms", "Median TPOT (ms)", stream(percentile(tpots, 50))),
      ms("p99_tpot_ms", "P99 TPOT (ms)", stream(percentile(tpots, 99))),
      ms("std_tpot_ms", "Std TPOT (ms)", stream(std(tpots)), false),
      ms("mean_itl_ms", "Mean ITL (ms)", stream(mean(itls))),
      ms("median_itl_ms", "Median ITL (ms)", stream(percentile(itls, 50))),
      ms("p95_itl_ms", "P95 ITL (ms)", stream(percentile(itls, 95))),
      ms("p99_itl_ms", "P99 ITL (ms)", stream(percentile(itls, 99))),
      ms("max_itl_ms", "Max ITL (ms)", stream(itls.length === 0 ? undefined : Math.max(...itls))),
      ms("std_itl_ms", "Std ITL (ms)", stream(std(itls)), false),
    ];
    return {
      values,
      explanations: [
        {
          metric: "TPOT",
          peerKey: "mean_tpot_ms",
          peerDefinition:
            "mean over successful requests with > 1 output token of (E2E − TTFT) / (output tokens − 1), " +
            "E2E to the stream's last line",
          infermeterKey: "inter_token_latency.avg",
          why: "SGLang's E2E runs to the end of the stream ([DONE] and any usage chunk), infermeter's to the last " +
            "content chunk, so SGLang's TPOT carries that tail divided by the output tokens; its output count is the " +
            "server's usage, infermeter's the client tokenizer's.",
        },
        {
          metric: "ITL",
          peerKey: "mean_itl_ms",
          peerDefinition: "mean of every gap between consecutive non-empty chunks, pooled",
          infermeterKey: "inter_chunk_latency.avg",
          why: "A per-chunk gap like infermeter's inter_chunk_latency (the OpenAI backends do not split a chunk " +
            "over its tokens), so it exceeds TPOT when chunks carry several tokens and weights long requests more.",
        },
        {
          metric: "E2E latency",
          peerKey: "mean_e2e_latency_ms",
          peerDefinition: "last line of the stream − start",
          infermeterKey: "request_latency.avg",
          why: "infermeter's request_latency ends at the last content chunk (AIPerf), SGLang's at the stream's end, " +
            "after the finish, usage and [DONE] lines.",
        },
        {
          metric: "Output throughput",
          peerKey: "output_throughput",
          peerDefinition: "Σ server-reported output tokens / (first request start → last request end)",
          infermeterKey: "output_token_throughput",
          why: "SGLang counts the server's usage tokens and ends its duration at the last stream's close; the " +
            "retokenized total is the client-tokenizer count infermeter uses.",
        },
      ],
      notes: [
        "When the server sends no usage, SGLang falls back to the requested output length, which the records do not " +
        "keep; the client tokenizer's count is used instead.",
        "E2E latency is taken to the last byte of the response (request_end_ns), where SGLang's loop reads [DONE].",
      ],
    };
  },
};
