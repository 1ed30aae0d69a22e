/**
 * Console tables for server metrics and GPU telemetry. The server table shows only the metrics people watch on
 * vLLM, SGLang and llama.cpp (queue depth, cache use, token counters, latency histograms); everything else is in
 * `server_metrics_export.{json,csv}`. Histogram percentiles are estimates from the buckets (AIPerf's method), so the
 * table says "est." and shows one beyond the highest finite bucket as `> bound`. The GPU table has one row per GPU, then the run's energy efficiency.
 */
import { renderBoxTable } from "../export/box_table.ts";
import type { GpuEfficiency, GpuSummary } from "./gpu_telemetry.ts";
import type { MetricSummary, SeriesSummary } from "./server_metrics_summary.ts";

/** Known metric names (after `_total` is dropped from counters), in display order. */
const KNOWN: readonly string[] = [
  // vLLM
  "vllm:num_requests_running",
  "vllm:num_requests_waiting",
  "vllm:kv_cache_usage_perc",
  "vllm:gpu_cache_usage_perc",
  "vllm:num_preemptions",
  "vllm:prompt_tokens",
  "vllm:generation_tokens",
  "vllm:request_success",
  "vllm:time_to_first_token_seconds",
  "vllm:inter_token_latency_seconds",
  "vllm:time_per_output_token_seconds",
  "vllm:e2e_request_latency_seconds",
  "vllm:request_queue_time_seconds",
  // SGLang
  "sglang:num_running_reqs",
  "sglang:num_queue_reqs",
  "sglang:token_usage",
  "sglang:gen_throughput",
  "sglang:cache_hit_rate",
  "sglang:prompt_tokens",
  "sglang:generation_tokens",
  "sglang:time_to_first_token_seconds",
  "sglang:inter_token_latency_seconds",
  "sglang:e2e_request_latency_seconds",
  // llama.cpp
  "llamacpp:requests_processing",
  "llamacpp:requests_deferred",
  "llamacpp:kv_cache_usage_ratio",
  "llamacpp:prompt_tokens",
  "llamacpp:tokens_predicted",
  "llamacpp:predicted_tokens_seconds",
  "llamacpp:prompt_tokens_seconds",
];

/** The server-metrics table, or undefined when no known metric was scraped. */
export function renderServerMetricsTable(metrics: readonly MetricSummary[], maxWidth = Infinity): string | undefined {
  const rows: string[][] = [];
  for (const name of KNOWN) {
    const m = metrics.find((x) => x.name === name);
    if (m === undefined) continue;
    for (const s of m.series) {
      const label = s.labels === undefined
        ? ""
        : ` {${
          Object.entries(s.labels).filter(([k]) => k !== "model_name" && k !== "engine").map(([k, v]) => `${k}=${v}`)
            .join(",")
        }}`;
      const metric = `${m.name}${label.replace(/ \{\}$/, "")}`;
      if (m.type === "counter") rows.push([metric, "total", fmt(s.stats.total), `${fmt(s.stats.rate)}/s`]);
      else if (m.type === "gauge") rows.push([metric, "avg / max", `${fmt(s.stats.avg)} / ${fmt(s.stats.max)}`, ""]);
      else if (s.stats.count > 0) {
        const ms = m.unit === "seconds" ? 1000 : 1;
        const unit = m.unit === "seconds" ? " ms" : "";
        rows.push([
          metric,
          "avg / p50 est. / p99 est.",
          `${fmt(s.stats.avg * ms)} / ${estimate(s, "p50_estimate", ms)} / ${estimate(s, "p99_estimate", ms)}${unit}`,
          `${fmt(s.stats.count)} obs`,
        ]);
      }
    }
  }
  if (rows.length === 0) return undefined;
  return renderBoxTable(
    // Every column may wrap at its spaces, so a narrow console keeps the metric names whole as long as it can.
    [{ header: "Server Metric", justify: "left", wrap: true }, { header: "Stat", justify: "left", wrap: true }, {
      header: "Value",
      wrap: true,
    }, { header: "Rate / Count", wrap: true }],
    rows,
    { title: "infermeter | Server Metrics (profiling window)", maxWidth },
  );
}

/** The GPU table, or undefined without GPUs. */
export function renderGpuTable(
  gpus: readonly GpuSummary[],
  efficiency: GpuEfficiency | undefined,
  reachable: string,
  maxWidth = Infinity,
): string | undefined {
  if (gpus.length === 0) return undefined;
  const rows = gpus.map((g) => {
    const f = g.metrics;
    return [
      `${g.gpuIndex}${g.gpuModel ? ` ${g.gpuModel}` : ""}`,
      f.gpu_power_usage ? `${fmt(f.gpu_power_usage.avg)} / ${fmt(f.gpu_power_usage.max)}` : "",
      f.gpu_utilization ? `${fmt(f.gpu_utilization.avg)} / ${fmt(f.gpu_utilization.max)}` : "",
      f.gpu_memory_used ? fmt(f.gpu_memory_used.max) : "",
      g.energyJ === undefined ? "" : `${fmt(g.energyJ)}${g.energyFromCounter ? "" : "*"}`,
    ];
  });
  let text = renderBoxTable(
    [
      { header: "GPU", justify: "left", wrap: true },
      { header: "Power W avg / max", wrap: true },
      { header: "Util % avg / max", wrap: true },
      { header: "Mem used GB max", wrap: true },
      { header: "Energy J", wrap: true },
    ],
    rows,
    { title: `infermeter | GPU Telemetry Summary (${reachable} telemetry sources reachable)`, maxWidth },
  );
  if (gpus.some((g) => !g.energyFromCounter && g.energyJ !== undefined)) {
    text += "\n* no energy counter: average power × profiling time";
  }
  if (efficiency !== undefined) {
    text += `\nTotal GPU energy: ${fmt(efficiency.totalGpuEnergyJ)} J, average power ${
      fmt(efficiency.averageGpuPowerW)
    } W`;
    if (efficiency.outputTokensPerJoule !== undefined) {
      text += `, ${fmt(efficiency.outputTokensPerJoule)} output tokens/J` +
        (efficiency.energyPerOutputTokenMj !== undefined
          ? ` (${fmt(efficiency.energyPerOutputTokenMj)} mJ/token)`
          : "");
    }
  }
  return text;
}

/**
 * A percentile estimate as the bucket layout supports it: the estimate when it lies within the finite buckets,
 * `> <highest finite bound>` when it lies beyond them (the +Inf bucket says no more), N/A when there is none.
 */
function estimate(s: SeriesSummary, stat: string, scale: number): string {
  const value = s.stats[stat];
  if (value === undefined) return "N/A";
  const finite = (s.buckets ?? []).filter(([le]) => le !== "+Inf").map(([le]) => Number(le));
  const top = finite.length > 0 ? Math.max(...finite) : Infinity;
  return value > top ? `> ${fmt(top * scale)}` : fmt(value * scale);
}

function fmt(x: number): string {
  if (!Number.isFinite(x)) return "N/A";
  return Math.abs(x) >= 1000 ? x.toLocaleString("en-US", { maximumFractionDigits: 0 }) : x.toFixed(2);
}
