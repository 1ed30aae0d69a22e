/**
 * The load each phase applies, resolved once from the config (AIPerf's priority: request rate > concurrency).
 */
import type { ProfileConfig } from "../config/profile_config.ts";
import type { OpenLoopPattern } from "../timing/arrival_pattern.ts";
import type { LoadPlan } from "../timing/load_plan.ts";

export function profilingPlan(config: ProfileConfig): LoadPlan {
  const durationMs = config.benchmarkDuration !== undefined ? config.benchmarkDuration * 1000 : undefined;
  const common = {
    requestCount: config.requestCount,
    durationMs,
    gracePeriodMs: config.benchmarkGracePeriod * 1000,
  };
  if (config.requestRate !== undefined) {
    const pattern: OpenLoopPattern = config.arrivalPattern === "concurrency_burst" ? "poisson" : config.arrivalPattern;
    return {
      mode: "open",
      rate: config.requestRate,
      pattern,
      smoothness: config.arrivalSmoothness,
      concurrency: config.concurrency,
      ...common,
    };
  }
  const rampMs = config.concurrencyRampDuration !== undefined ? config.concurrencyRampDuration * 1000 : undefined;
  return { mode: "closed", concurrency: config.concurrency ?? 1, concurrencyRampMs: rampMs, ...common };
}

/** Warmup inherits the profiling load (AIPerf checklist 8) with its own request count and no duration. */
export function warmupPlan(config: ProfileConfig, profiling: LoadPlan): LoadPlan | undefined {
  if (config.warmupRequestCount === undefined || config.warmupRequestCount <= 0) return undefined;
  return { ...profiling, requestCount: config.warmupRequestCount, durationMs: undefined };
}
