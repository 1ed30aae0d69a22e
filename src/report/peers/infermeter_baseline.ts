/**
 * infermeter's own values (AIPerf 0.13's definitions, `src/metrics/metric_defs.ts`) recomputed from the same
 * records the peers read, so each peer value sits beside the number it is compared with. Successful requests only;
 * statistics exact (numpy linear percentiles).
 *
 * - `time_to_first_token` = first content chunk − start
 * - `inter_token_latency` = (request_latency − TTFT) / (output_sequence_length − 1), OSL ≥ 2
 * - `inter_chunk_latency` = every gap between consecutive content chunks, pooled
 * - `request_latency` = last content chunk − start
 * - throughputs = totals / (last response − first request start)
 */
import { chunkGapsMs, type PeerRecord, ttftMs } from "./peer_records.ts";
import { mean, percentile } from "./peer_stats.ts";

export interface InfermeterBaseline {
  readonly "time_to_first_token.avg": number | null;
  readonly "time_to_first_token.p50": number | null;
  readonly "time_to_first_token.p99": number | null;
  readonly "inter_token_latency.avg": number | null;
  readonly "inter_token_latency.p50": number | null;
  readonly "inter_token_latency.p99": number | null;
  readonly "inter_chunk_latency.avg": number | null;
  readonly "inter_chunk_latency.p50": number | null;
  readonly "inter_chunk_latency.p99": number | null;
  readonly "request_latency.avg": number | null;
  readonly "request_latency.p50": number | null;
  readonly "request_latency.p99": number | null;
  readonly "output_token_throughput": number | null;
  readonly "request_throughput": number | null;
  readonly "benchmark_duration": number | null;
  readonly "request_count": number;
}

/** Display units of the baseline's values. */
export const BASELINE_UNITS: Readonly<Record<keyof InfermeterBaseline, string>> = {
  "time_to_first_token.avg": "ms",
  "time_to_first_token.p50": "ms",
  "time_to_first_token.p99": "ms",
  "inter_token_latency.avg": "ms",
  "inter_token_latency.p50": "ms",
  "inter_token_latency.p99": "ms",
  "inter_chunk_latency.avg": "ms",
  "inter_chunk_latency.p50": "ms",
  "inter_chunk_latency.p99": "ms",
  "request_latency.avg": "ms",
  "request_latency.p50": "ms",
  "request_latency.p99": "ms",
  "output_token_throughput": "tokens/sec",
  "request_throughput": "requests/sec",
  "benchmark_duration": "sec",
  "request_count": "requests",
};

const n = (x: number | undefined): number | null => (x === undefined ? null : x);

/** The baseline from a run's profiling records. */
export function infermeterBaseline(records: readonly PeerRecord[]): InfermeterBaseline {
  const ok = records.filter((r) => r.ok);
  const ttft: number[] = [];
  const itl: number[] = [];
  const icl: number[] = [];
  const latency: number[] = [];
  let osl = 0;
  let first = Infinity;
  let last = -Infinity;
  for (const r of ok) {
    const t = ttftMs(r);
    if (t !== undefined) ttft.push(t);
    icl.push(...chunkGapsMs(r));
    if (r.latencyMs !== undefined) {
      latency.push(r.latencyMs);
      last = Math.max(last, r.startMs + r.latencyMs);
    }
    if (t !== undefined && r.latencyMs !== undefined && r.outputTokens !== undefined && r.outputTokens >= 2) {
      itl.push((r.latencyMs - t) / (r.outputTokens - 1));
    }
    osl += r.outputTokens ?? 0;
    first = Math.min(first, r.startMs);
  }
  const durationS = last > first ? (last - first) / 1000 : undefined;
  return {
    "time_to_first_token.avg": n(mean(ttft)),
    "time_to_first_token.p50": n(percentile(ttft, 50)),
    "time_to_first_token.p99": n(percentile(ttft, 99)),
    "inter_token_latency.avg": n(mean(itl)),
    "inter_token_latency.p50": n(percentile(itl, 50)),
    "inter_token_latency.p99": n(percentile(itl, 99)),
    "inter_chunk_latency.avg": n(mean(icl)),
    "inter_chunk_latency.p50": n(percentile(icl, 50)),
    "inter_chunk_latency.p99": n(percentile(icl, 99)),
    "request_latency.avg": n(mean(latency)),
    "request_latency.p50": n(percentile(latency, 50)),
    "request_latency.p99": n(percentile(latency, 99)),
    "output_token_throughput": durationS === undefined ? null : osl / durationS,
    "request_throughput": durationS === undefined ? null : ok.length / durationS,
    "benchmark_duration": n(durationS),
    "request_count": ok.length,
  };
}
