/**
 * The progress display on stderr: one bar per phase on a terminal (redrawn in place), one plain line every
 * `--progress-every` seconds on a pipe (CI logs), each with the rate, output tokens/s, requests in flight and errors
 * — the rates with the final table's definitions over the phase so far (`live_rates.ts`).
 */
import type { Phase } from "../../records/request_record.ts";
import type { PhaseSpec } from "../../timing/phase_spec.ts";
import { liveRates } from "../../metrics/live_rates.ts";
import { formatGrouped } from "../../export/number_format.ts";
import { ProgressBar } from "../../ui/progress_bar.ts";
import type { LiveRun } from "../live_run.ts";
import type { RecordSink } from "../record_sink.ts";
import type { MetricsSink } from "./metrics_sink.ts";

export interface ProgressSinkOptions {
  readonly phases: readonly PhaseSpec[];
  readonly isTty: boolean;
  readonly write: (text: string) => void;
  /** The live view and the accumulators, for the figures on each line. */
  readonly live?: LiveRun;
  readonly metrics?: MetricsSink;
  /** Between two lines on a pipe, ms. @default 10000 */
  readonly pipeIntervalMs?: number;
}

export class ProgressSink implements RecordSink {
  readonly name = "progress";
  readonly #o: ProgressSinkOptions;
  #bar: ProgressBar | undefined;
  readonly #refresher: ReturnType<typeof setInterval>;

  constructor(options: ProgressSinkOptions) {
    this.#o = options;
    this.#refresher = setInterval(() => this.#bar?.refresh(), options.isTty ? 500 : 1000);
  }

  phaseStarted(phase: Phase): void {
    this.#bar?.finish();
    const spec = this.#o.phases.find((p) => p.name === phase);
    this.#bar = new ProgressBar({
      label: phase === "warmup" ? "Warming Up" : "Profiling",
      total: spec?.stops.requestCount ?? spec?.expectedRequests,
      durationMs: spec?.stops.durationMs,
      isTty: this.#o.isTty,
      write: this.#o.write,
      stats: () => this.#stats(phase),
      pipeIntervalMs: this.#o.pipeIntervalMs,
    });
  }

  /** `12.3 req/s · 1,540 tok/s · 8 in flight · 0 errors` for the phase so far. */
  #stats(phase: Phase): string {
    const live = this.#o.live?.snapshot();
    const current = live?.phases.findLast((p) => p.name === phase);
    const acc = phase === "warmup" ? this.#o.metrics?.warmup : this.#o.metrics?.profiling;
    if (live === undefined || current === undefined || acc === undefined) return "";
    const rates = liveRates(acc.snapshot(), current.startedAtMs - live.timeOriginMs);
    return `${formatGrouped(rates.requestsPerSec, 2)} req/s · ${formatGrouped(rates.outputTokensPerSec, 0)} tok/s · ` +
      `${live.inFlight} in flight · ${current.errors} error${current.errors === 1 ? "" : "s"}`;
  }

  arrived(): void {
    this.#bar?.tick();
  }

  /** Erases the in-place bar so a log line can be printed. */
  clearLine(): void {
    this.#bar?.clearLine();
  }

  close(): void {
    clearInterval(this.#refresher);
    this.#bar?.finish();
  }
}
