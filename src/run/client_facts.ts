/**
 * The `infermeter` block of the JSON export: what the client itself did and cost while it measured — the load it
 * achieved against the one asked for, its CPU, its dispatch overhead, where its shards ran, its memory — so that no
 * result hides the tool's own overhead.
 */
import { phaseRate } from "../timing/phase_spec.ts";
import type { Float64Column } from "../metrics/float64_column.ts";
import { columnStats } from "../metrics/column_stats.ts";
import type { RunSummary } from "../metrics/run_summary.ts";
import type { JsonObject } from "../export/json_export.ts";
import type { ClientOverhead } from "../export/console_table.ts";
import { CPU_WARN_PERCENT } from "../runtime/cpu_time.ts";
import { peakRssBytes } from "../runtime/peak_rss.ts";
import type { Logger } from "../ui/logger.ts";
import type { LoadReport } from "./sinks/load_sink.ts";
import type { ExecutedRun } from "./execute_run.ts";
import type { RunPlan } from "./plan_run.ts";
import type { OpenRun } from "./open_run.ts";

export interface ClientFacts {
  /** The JSON export's `infermeter` block. */
  readonly json: JsonObject;
  /** The console footer's client line. */
  readonly overhead?: ClientOverhead;
  readonly load: LoadReport;
}

/** Gathers the client's facts and warns when its CPU or its schedule make the figures doubtful. */
export function clientFacts(
  plan: RunPlan,
  run: OpenRun,
  executed: ExecutedRun,
  summary: RunSummary,
  logger: Logger,
): ClientFacts {
  const { layout } = plan;
  const cpu = executed.outcome?.cpu;
  // CPU time is read in 10 ms ticks: judge it only over runs long enough for that to be precise.
  const overThreshold = cpu !== undefined && cpu.wallMs >= 1000 && cpu.percentPerShard > CPU_WARN_PERCENT;
  if (overThreshold) {
    logger.warning(
      `each engine thread used ${cpu.percentPerShard.toFixed(0)}% of a CPU core during profiling; above ` +
        `~${CPU_WARN_PERCENT}% its timestamps lag the network and latencies read high (use more --workers, or a ` +
        "bigger client machine).",
    );
  }
  const phases = plan.workload.spec.phases;
  const load = executed.load.report(phaseRate(phases[phases.length - 1]));
  if (load.warning !== undefined) logger.warning(`The client could not hold the schedule: ${load.warning}.`);
  const requests = summary.successCount + summary.errorCount;
  const json: JsonObject = {
    load: {
      requests: load.requests,
      target_rate: load.targetRate,
      achieved_rate: load.achievedRate,
      schedule_lag_ms: load.scheduleLagMs === null ? null : { ...load.scheduleLagMs },
      peak_in_flight: load.peakInFlight,
      avg_in_flight: load.avgInFlight,
      cancelled_requests: load.cancelledRequests,
      schedule_held: load.warning === undefined,
      ...(load.warning === undefined ? {} : { warning: load.warning }),
    },
    client_cpu: cpu
      ? {
        user_ms: cpu.userMs,
        system_ms: cpu.systemMs,
        wall_ms: cpu.wallMs,
        percent_of_core: cpu.percentOfCore,
        percent_per_shard: cpu.percentPerShard,
        over_threshold: overThreshold,
        threshold_percent: CPU_WARN_PERCENT,
      }
      : null,
    dispatch_overhead_ms: statsObject(executed.dispatch.column),
    workers: layout.shards,
    engine_layout: {
      shards: layout.shards,
      mode: layout.asProcesses ? "processes" : layout.shards > 1 ? "threads" : "main thread",
      client_cores: layout.clientCores,
      pinned: layout.cores !== undefined,
      pinning: executed.outcome?.pinning ?? [],
      description: layout.text,
    },
    shard_processes: executed.outcome?.processes?.map((p) => ({
      pid: p.pid,
      peak_rss_bytes: p.peakRssBytes,
      start_lateness_ms: p.startLatenessMs ?? null,
    })) ?? null,
    cpu_dma_latency: run.wake
      ? { requested_us: run.wake.requestedUs, held: run.wake.held, reason: run.wake.reason ?? null }
      : null,
    peak_rss_bytes: peakRssBytes(),
    retained_bytes_per_request: requests > 0 ? executed.metrics.profiling.retainedBytes() / requests : null,
    tokenizer: plan.workload.tokenizer.name,
  };
  const overhead: ClientOverhead | undefined = cpu && {
    percentOfCore: cpu.percentOfCore,
    engineThreads: layout.shards,
    overThresholdPercent: overThreshold ? CPU_WARN_PERCENT : undefined,
    scheduleLatenessP50Ms: summary.scheduleLatenessMs?.p50,
    scheduleLatenessP99Ms: summary.scheduleLatenessMs?.p99,
  };
  return { json, overhead, load };
}

function statsObject(column: Float64Column): JsonObject | null {
  const stats = columnStats(column);
  return stats ? { ...stats } as unknown as JsonObject : null;
}
