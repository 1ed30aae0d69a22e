/**
 * `--threshold-abort` (k6's `abortOnFail`): once a second, the thresholds whose statistic is known while the run goes
 * — averages, p50/p90/p99 over the last answers, the throughputs over the window so far — are judged on the live
 * figures of the profiling phase, after at least {@linkcode MIN_RECORDS} answers; the first one that fails stops the
 * run through the given callback (partial results are written, and the run ends with the thresholds' exit code).
 */
import type { Phase } from "../../records/request_record.ts";
import { liveRates } from "../../metrics/live_rates.ts";
import type { MetricAccumulator } from "../../metrics/metric_accumulator.ts";
import { judgeThreshold, type RunThreshold } from "../../report/run_thresholds.ts";
import type { RecordSink } from "../record_sink.ts";

/** Answers seen before any threshold is judged live: a few early outliers must not stop a run. */
export const MIN_RECORDS = 20;

export interface ThresholdAbortOptions {
  readonly thresholds: readonly RunThreshold[];
  /** The profiling phase's accumulator, read once a second. */
  readonly metrics: () => MetricAccumulator | undefined;
  readonly stop: () => void;
  /** @default 1000 */
  readonly intervalMs?: number;
}

export class ThresholdAbortSink implements RecordSink {
  readonly name = "threshold-abort";
  readonly #o: ThresholdAbortOptions;
  #timer: ReturnType<typeof setInterval> | undefined;
  #phaseStart: number | undefined;
  #tripped: string | undefined;

  constructor(options: ThresholdAbortOptions) {
    this.#o = options;
  }

  /** Why the run was stopped, once a threshold failed. */
  get tripped(): string | undefined {
    return this.#tripped;
  }

  phaseStarted(phase: Phase, at: number): void {
    if (phase !== "profiling") return;
    this.#phaseStart = at;
    this.#timer ??= setInterval(() => this.check(), this.#o.intervalMs ?? 1000);
  }

  /** Judges the thresholds on the live figures (also called by the timer). */
  check(): void {
    const acc = this.#o.metrics();
    if (this.#tripped !== undefined || acc === undefined || this.#phaseStart === undefined) return;
    const snapshot = acc.snapshot();
    if (snapshot.successCount + snapshot.errorCount < MIN_RECORDS) return;
    const rates = liveRates(snapshot, this.#phaseStart);
    for (const t of this.#o.thresholds) {
      const observed = t.tag === "request_error_rate"
        ? (100 * snapshot.errorCount) / (snapshot.successCount + snapshot.errorCount)
        : liveValue(t, acc, snapshot.averages, rates);
      if (observed === undefined) continue;
      const result = judgeThreshold(t, observed);
      if (result.ok) continue;
      this.#tripped = `threshold ${t.text} failed while running (${t.stat} ${observed.toFixed(2)} ${t.unit} after ` +
        `${snapshot.successCount + snapshot.errorCount} requests); stopping (--threshold-abort).`;
      this.#o.stop();
      return;
    }
  }

  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
  }
}

/** A threshold's statistic on the live figures, when it has one there. */
function liveValue(
  t: RunThreshold,
  acc: MetricAccumulator,
  averages: Readonly<Record<string, number>>,
  rates: ReturnType<typeof liveRates>,
): number | undefined {
  if (t.tag === "request_throughput") return rates.windowSec > 0 ? rates.requestsPerSec : undefined;
  if (t.tag === "output_token_throughput") return rates.windowSec > 0 ? rates.outputTokensPerSec : undefined;
  if (t.stat === "avg") return averages[t.tag];
  if (t.stat === "p50" || t.stat === "p90" || t.stat === "p99") return acc.recentPercentiles(t.tag)?.[t.stat];
  return undefined;
}
