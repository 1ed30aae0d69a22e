/** The progress bar on stderr: one per phase, ticked as records arrive, redrawn on a timer for timed phases. */
import type { Phase } from "../../records/request_record.ts";
import type { PhaseSpec } from "../../timing/phase_spec.ts";
import { ProgressBar } from "../../ui/progress_bar.ts";
import type { RecordSink } from "../record_sink.ts";

export interface ProgressSinkOptions {
  readonly phases: readonly PhaseSpec[];
  readonly isTty: boolean;
  readonly write: (text: string) => void;
}

export class ProgressSink implements RecordSink {
  readonly name = "progress";
  readonly #o: ProgressSinkOptions;
  #bar: ProgressBar | undefined;
  readonly #refresher: ReturnType<typeof setInterval>;

  constructor(options: ProgressSinkOptions) {
    this.#o = options;
    this.#refresher = setInterval(() => this.#bar?.refresh(), 500);
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
    });
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
