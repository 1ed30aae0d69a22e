/**
 * What the live dashboard shows, as a plain object: the run's orchestration fills one from its read-only live
 * snapshot about once a second (never from the hot path) and hands it to `renderDashboard`.
 */

/** Percentiles of a latency over the requests finished so far, ms. */
export interface LivePercentiles {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
}

/** One kind of error seen so far. */
export interface LiveError {
  /** `500 Internal Server Error: …` or the transport's message. */
  readonly message: string;
  readonly count: number;
}

export interface DashboardSnapshot {
  /** `warmup` or `profiling`. */
  readonly phase: string;
  /** Seconds since the phase started. */
  readonly elapsedSec: number;
  /** Requests finished (successful or not) in this phase. */
  readonly completed: number;
  /** Requests the phase will send, when it is count-bounded. */
  readonly totalRequests?: number;
  /** Phase length in seconds, when it is time-bounded. */
  readonly durationSec?: number;
  readonly inFlight: number;
  /** The concurrency limit, when the load has one. */
  readonly concurrency?: number;
  /** Successful requests and their output tokens per second over the phase so far (the final table's definitions). */
  readonly requestsPerSec: number;
  readonly outputTokensPerSec: number;
  readonly ttftMs?: LivePercentiles;
  readonly itlMs?: LivePercentiles;
  readonly latencyMs?: LivePercentiles;
  /** Failed requests so far. */
  readonly errorCount: number;
  /** The most frequent kinds, most frequent first. */
  readonly errors: readonly LiveError[];
  /** The client's own CPU over the last second, % of one core. */
  readonly clientCpuPercent?: number;
}
