/**
 * Throughputs while a run goes, with the final figures' definitions: requests that succeeded and output tokens
 * counted so far, divided by the profiling window so far (phase start → the last response). At the end of the run
 * the window is the one the summary divides by, so the last live figure is the final one (AIPerf's
 * `request_throughput` and `output_token_throughput`).
 */
import type { LiveSnapshot } from "./run_summary.ts";

export interface LiveRates {
  /** Phase start → last response so far, s; 0 before the first response. */
  readonly windowSec: number;
  /** Successful requests per second over the window. */
  readonly requestsPerSec: number;
  /** Output tokens (successful requests) per second over the window. */
  readonly outputTokensPerSec: number;
}

/** @param phaseStartMs the phase's start on the run clock (the same clock as `snapshot.lastEndMs`) */
export function liveRates(snapshot: LiveSnapshot, phaseStartMs: number): LiveRates {
  const windowSec = snapshot.lastEndMs === undefined ? 0 : Math.max(0, (snapshot.lastEndMs - phaseStartMs) / 1000);
  if (windowSec <= 0) return { windowSec: 0, requestsPerSec: 0, outputTokensPerSec: 0 };
  return {
    windowSec,
    requestsPerSec: snapshot.successCount / windowSec,
    outputTokensPerSec: (snapshot.sums.output_sequence_length ?? 0) / windowSec,
  };
}
