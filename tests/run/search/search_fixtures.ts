/** Summaries and run directories of made-up probes, for the search's unit tests. */
import { computeStats } from "../../../src/metrics/stats.ts";
import type { MetricResult, RunSummary } from "../../../src/metrics/run_summary.ts";
import type { ProbeJudgement } from "../../../src/run/search/probe_verdict.ts";
import type { SearchProbe } from "../../../src/run/search/search_probe.ts";

function metric(tag: string, unit: MetricResult["unit"], values?: readonly number[], value?: number): MetricResult {
  return {
    tag,
    header: tag,
    unit,
    kind: values === undefined ? "derived" : "record",
    flags: {},
    displayOrder: 0,
    consoleGroup: "llm",
    ...(values === undefined ? { value } : { stats: computeStats(values)! }),
  };
}

/** A run whose requests had these TTFTs (ms), with the given errors and output throughput. */
export function summaryOf(
  ttfts: readonly number[],
  o: { errors?: number; tps?: number; good?: number } = {},
): RunSummary {
  const metrics = [
    metric("time_to_first_token", "ms", ttfts),
    metric("output_token_throughput", "tokens/sec", undefined, o.tps ?? 1000),
  ];
  if (o.good !== undefined) metrics.push(metric("good_request_count", "requests", undefined, o.good));
  return { metrics, errors: [], successCount: ttfts.length, errorCount: o.errors ?? 0 };
}

/** Writes a `profile_export.jsonl` with these TTFTs into `dir`. */
export async function writeRecords(dir: string, ttfts: readonly number[]): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const lines = ttfts.map((v, i) =>
    JSON.stringify({
      metadata: { benchmark_phase: "profiling", request_start_ns: i * 1e6 },
      metrics: { time_to_first_token: { value: v, unit: "ms" } },
      error: null,
    })
  );
  lines.push(
    JSON.stringify({ metadata: { benchmark_phase: "warmup" }, metrics: { time_to_first_token: { value: 1e6 } } }),
  );
  await Deno.writeTextFile(`${dir}/profile_export.jsonl`, lines.join("\n") + "\n");
}

/** A probe at `concurrency` with a judgement of one TTFT filter. */
export function probeOf(
  index: number,
  concurrency: number,
  feasible: boolean,
  observed: number,
  extra: Partial<ProbeJudgement> = {},
): SearchProbe {
  const filter = { metric_tag: "time_to_first_token", stat: "p95" as const, op: "lt" as const, threshold: 100 };
  return {
    index,
    label: `search_iter_${String(index).padStart(4, "0")}`,
    values: { concurrency },
    runs: [{ label: "run_0001", dir: `d${index}`, end: "completed" }],
    judgement: {
      feasible,
      withinNoise: false,
      filters: [{
        filter,
        observed,
        interval: { low: observed - 5, high: observed + 5 },
        meets: feasible,
        withinNoise: false,
        margin: observed / 100 - 1,
      }],
      objective: concurrency * 100,
      throughput: concurrency * 100,
      runs: 1,
      ...extra,
    },
    repeats: 0,
    nonMonotonic: false,
  };
}
