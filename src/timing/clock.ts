import { preciseSleepUntil } from "./precise_timer.ts";
import type { YieldToIo } from "../runtime/io_yield.ts";
import type { WakeThread } from "./wake_thread.ts";

/**
 * The engine's only access to time, so schedules can be tested with a virtual clock.
 *
 * `sleepUntil` takes an ABSOLUTE deadline: open-loop schedules compute every send time from the phase start,
 * so a late wake-up never shifts later sends (no drift). The real clock wakes within microseconds of the
 * target (precise_timer.ts); any lateness left is measured per request (`startAt - scheduledAt`) and reported.
 */
export interface Clock {
  /** Milliseconds on the run clock (main thread `performance.now()`, or offset in a worker). */
  now(): number;
  /** Resolves at or after `t`; resolves early (at once) when `signal` aborts. */
  sleepUntil(t: number, signal?: AbortSignal): Promise<void>;
  /**
   * What `now()` reads at the moment this thread's `performance.now()` read `t`, for a clock that follows it (the
   * real one): a caller that needs both readings at one moment reads the clock once. Absent on other clocks.
   */
  fromPerformanceNow?(t: number): number;
}

/**
 * The real clock: `performance.now()` plus a fixed offset (a worker's distance to the main thread). Pass the
 * thread's `IoYield.wait` as `yieldToIo` where sockets are read on the same thread: the last stretch of every
 * sleep polls on it, and the default yield would hold their reads up (precise_timer.ts). With a `wake` thread,
 * sleeps wait for it instead of a timer and poll only the last `WAKE_LEAD_MS` (wake_thread.ts).
 */
export class SystemClock implements Clock {
  readonly #offset: number;
  readonly #yieldToIo: YieldToIo | undefined;
  readonly #wake: WakeThread | undefined;
  constructor(offsetMs = 0, yieldToIo?: YieldToIo, wake?: WakeThread) {
    this.#offset = offsetMs;
    this.#yieldToIo = yieldToIo;
    this.#wake = wake;
  }
  now(): number {
    return performance.now() + this.#offset;
  }
  fromPerformanceNow(t: number): number {
    return t + this.#offset;
  }
  sleepUntil(t: number, signal?: AbortSignal): Promise<void> {
    return preciseSleepUntil(t - this.#offset, signal, undefined, this.#yieldToIo, this.#wake);
  }
}

/** A virtual clock for tests: time moves only when `advance()` is called. */
export class ManualClock implements Clock {
  #now: number;
  #sleepers: { t: number; resolve: () => void }[] = [];
  constructor(start = 0) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  sleepUntil(t: number, signal?: AbortSignal): Promise<void> {
    if (t <= this.#now || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper = { t, resolve };
      this.#sleepers.push(sleeper);
      signal?.addEventListener("abort", () => {
        this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
        resolve();
      }, { once: true });
    });
  }
  /** Move time forward to `t`, waking sleepers in deadline order (letting each one's continuation run). */
  async advanceTo(t: number): Promise<void> {
    for (;;) {
      // Let pending code run (all its microtasks) and register its next sleep before picking the next one.
      await new Promise((r) => setTimeout(r, 0));
      this.#sleepers.sort((a, b) => a.t - b.t);
      const next = this.#sleepers[0];
      if (!next || next.t > t) break;
      this.#sleepers.shift();
      this.#now = Math.max(this.#now, next.t);
      next.resolve();
    }
    this.#now = Math.max(this.#now, t);
  }
  get pendingSleepers(): number {
    return this.#sleepers.length;
  }
}
