/**
 * `--ui dashboard`: about once a second, the live view as a frame on stderr (redrawn in place on a terminal, one
 * line every few seconds on a pipe). It reads the live view and the accumulators on a timer, never the hot path;
 * percentiles are over the last few thousand answers, so a frame costs the same late in a long run.
 */
import type { Phase } from "../../records/request_record.ts";
import { type CpuTime, cpuTimeReader } from "../../runtime/cpu_time.ts";
import type { DashboardSnapshot } from "../../ui/dashboard_snapshot.ts";
import { redrawPrefix, renderDashboard, renderDashboardLine } from "../../ui/dashboard_frame.ts";
import type { LiveRun } from "../live_run.ts";
import type { RecordSink } from "../record_sink.ts";
import type { MetricsSink } from "./metrics_sink.ts";
import { liveRates } from "../../metrics/live_rates.ts";

export interface DashboardSinkOptions {
  readonly live: LiveRun;
  readonly metrics: MetricsSink;
  readonly isTty: boolean;
  readonly write: (text: string) => void;
  /** Terminal columns. @default 80 */
  readonly width?: number;
  /** The load's concurrency limit, shown beside the requests in flight. */
  readonly concurrency?: number;
  /** @default 1000 on a terminal, 5000 on a pipe */
  readonly intervalMs?: number;
}

export class DashboardSink implements RecordSink {
  readonly name = "dashboard";
  readonly #o: DashboardSinkOptions;
  readonly #timer: ReturnType<typeof setInterval>;
  #lines = 0;
  #last: { at: number; cpu?: CpuTime } | undefined;
  #readCpu: (() => CpuTime) | undefined;

  constructor(options: DashboardSinkOptions) {
    this.#o = options;
    cpuTimeReader().then((read) => this.#readCpu = read, () => {});
    this.#timer = setInterval(() => this.draw(), options.intervalMs ?? (options.isTty ? 1000 : 5000));
  }

  phaseStarted(_phase: Phase): void {
    this.#last = undefined;
  }

  /** Erases the frame so a log line can be printed; the next frame draws below it. */
  clearLine(): void {
    if (this.#o.isTty && this.#lines > 0) this.#o.write(redrawPrefix(this.#lines));
    this.#lines = 0;
  }

  /** Draws the current frame (also called by the timer). */
  draw(): void {
    const s = this.snapshot();
    if (s === undefined) return;
    if (this.#o.isTty) {
      const frame = renderDashboard(s, { ansi: true, width: this.#o.width ?? 80 });
      this.#o.write(redrawPrefix(this.#lines) + frame + "\n");
      this.#lines = frame.split("\n").length;
    } else {
      this.#o.write(renderDashboardLine(s) + "\n");
    }
  }

  /** The frame's figures now, or undefined before the first phase. */
  snapshot(): DashboardSnapshot | undefined {
    const live = this.#o.live.snapshot();
    const phase = live.phases.at(-1);
    if (phase === undefined) return undefined;
    const acc = phase.name === "warmup" ? this.#o.metrics.warmup : this.#o.metrics.profiling;
    const now = performance.now();
    const cpu = this.#readCpu?.();
    const last = this.#last;
    const dt = last === undefined ? 0 : (now - last.at) / 1000;
    let cpuPercent: number | undefined;
    if (cpu !== undefined && last?.cpu !== undefined && dt > 0) {
      cpuPercent = (cpu.userMs + cpu.systemMs - last.cpu.userMs - last.cpu.systemMs) / (dt * 10);
    }
    this.#last = { at: now, cpu };
    const elapsedSec = (live.atMs - phase.startedAtMs) / 1000;
    // The final table's definitions over the window so far, so the last frame shows the final figures.
    const rates = acc === undefined ? undefined : liveRates(acc.snapshot(), phase.startedAtMs - live.timeOriginMs);
    return {
      phase: phase.name,
      elapsedSec,
      completed: phase.completed,
      ...(phase.expected === undefined ? {} : { totalRequests: phase.expected }),
      ...(phase.durationSec === undefined ? {} : { durationSec: phase.durationSec }),
      inFlight: live.inFlight,
      ...(this.#o.concurrency === undefined ? {} : { concurrency: this.#o.concurrency }),
      requestsPerSec: rates?.requestsPerSec ?? 0,
      outputTokensPerSec: rates?.outputTokensPerSec ?? 0,
      ttftMs: acc?.recentPercentiles("time_to_first_token"),
      itlMs: acc?.recentPercentiles("inter_token_latency"),
      latencyMs: acc?.recentPercentiles("request_latency"),
      errorCount: phase.errors,
      errors: acc?.errorCounts() ?? [],
      ...(cpuPercent === undefined ? {} : { clientCpuPercent: cpuPercent }),
    };
  }

  close(): void {
    clearInterval(this.#timer);
    this.draw();
  }
}
