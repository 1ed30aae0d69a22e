/**
 * Sub-millisecond timer for paced work (the simulated server's token schedule, open-loop send times).
 *
 * Why: Deno's `setTimeout` fires ~1–2 ms late and even `setTimeout(0)` costs ~2 ms here, so a 20 ms TTFT came out
 * as 21.5 ms. So we sleep with `setTimeout` until `FINE_WINDOW_MS` before the target, then re-check on event-loop
 * yields until it is due. The yields must let socket I/O through (`yieldToIo`: an `IoYield`, ~11–14 µs a round):
 * the timer spins through its window on the thread that reads the sockets, and the message round trip used
 * before (~5 µs, still the default where no sockets matter) starved pending reads for up to ~16 ms
 * (runtime/io_yield.ts). Spinning through that window costs CPU (a stream at a 4 ms token gap kept a third of a
 * core busy). A timer whose `sleepInWindow()` says so sleeps in ≤ 0.25 ms `Atomics.wait` slices between yields
 * instead: the CPU rests, but I/O only advances between slices. The simulated server therefore sleeps only when
 * it holds many streams; the client's own timers never sleep (its timestamps come first).
 *
 * With a `WakeThread` (the client in open loop), neither the coarse timer nor most of the window is used: a helper
 * thread wakes this one `WAKE_LEAD_MS` before the target and only that last stretch is polled, so the thread is
 * idle, not polling, between sends.
 */
import type { YieldToIo } from "../runtime/io_yield.ts";
import { nextMacrotask } from "../runtime/next_macrotask.ts";
import { WAKE_LEAD_MS, type WakeThread } from "./wake_thread.ts";

/** How long before the target the coarse timer hands over to yield polling. */
export const FINE_WINDOW_MS = 2.5;
/** Longest `Atomics.wait` slice in the window, and how close to the target sleeping stops. */
const SLEEP_SLICE_MS = 0.25;
const SLEEP_STOP_MS = 0.12;
/** Below this much beyond the wake thread's lead, polling the rest is cheaper than a wake-up. */
const WAKE_MIN_MS = 0.2;

export interface PreciseTimerOptions {
  /** Asked at each poll: sleep (Atomics.wait) in short slices instead of spinning? @default never */
  readonly sleepInWindow?: () => boolean;
  /** The yield polled on in the window; one that lets socket reads complete (see above). @default nextMacrotask */
  readonly yieldToIo?: YieldToIo;
  /** Wakes the thread near the target instead of the coarse timer and most of the polling window. */
  readonly wake?: WakeThread;
}

export class PreciseTimer {
  readonly #now: () => number;
  readonly #onFire: () => void;
  #target = Infinity;
  #coarse: ReturnType<typeof setTimeout> | undefined;
  #polling = false;
  readonly #sleeper: Int32Array | undefined;
  readonly #sleepInWindow: (() => boolean) | undefined;
  readonly #yieldToIo: YieldToIo;
  readonly #wake: WakeThread | undefined;
  /** Bumped at every (re)arm and cancel, so that a wake-up asked for an older target is ignored. */
  #wakeGeneration = 0;

  /** `onFire` runs once per `fireAt()` when the target time has come. */
  constructor(onFire: () => void, now: () => number = () => performance.now(), options: PreciseTimerOptions = {}) {
    this.#onFire = onFire;
    this.#now = now;
    this.#sleepInWindow = options.sleepInWindow;
    this.#yieldToIo = options.yieldToIo ?? nextMacrotask;
    this.#wake = options.wake;
    this.#sleeper = options.sleepInWindow ? new Int32Array(new SharedArrayBuffer(4)) : undefined;
  }

  /** When the armed target is (Infinity when idle). */
  get target(): number {
    return this.#target;
  }

  /** (Re)arm for absolute time `t`; a later call replaces the earlier target. */
  fireAt(t: number): void {
    this.#target = t;
    this.#wakeGeneration++;
    if (this.#coarse !== undefined) {
      clearTimeout(this.#coarse);
      this.#coarse = undefined;
    }
    if (this.#wake?.ready) {
      this.#poll();
      return;
    }
    const wait = t - this.#now() - FINE_WINDOW_MS;
    if (wait > 0) {
      this.#coarse = setTimeout(() => {
        this.#coarse = undefined;
        this.#poll();
      }, wait);
    } else {
      this.#poll();
    }
  }

  /** Disarms; an idle timer holds no timer and waits on no yield, so it never keeps the process alive. */
  cancel(): void {
    this.#target = Infinity;
    this.#wakeGeneration++;
    if (this.#coarse !== undefined) clearTimeout(this.#coarse);
    this.#coarse = undefined;
  }

  /** Same as `cancel()`; for symmetry with other resources. */
  close(): void {
    this.cancel();
  }

  #poll(): void {
    if (this.#polling) return;
    if (this.#target === Infinity) return;
    const left = this.#target - this.#now();
    if (left <= 0) {
      this.#fire();
      return;
    }
    if (this.#wake?.ready && left > WAKE_LEAD_MS + WAKE_MIN_MS) {
      const generation = this.#wakeGeneration;
      this.#wake.wakeNear(this.#target).then(() => {
        if (generation === this.#wakeGeneration) this.#poll();
      });
      return;
    }
    if (this.#sleeper !== undefined && this.#sleepInWindow!()) {
      const remaining = this.#target - this.#now();
      if (remaining > SLEEP_STOP_MS) {
        Atomics.wait(this.#sleeper, 0, 0, Math.min(SLEEP_SLICE_MS, remaining - SLEEP_STOP_MS));
      }
    }
    this.#polling = true;
    this.#yieldToIo().then(this.#onPolled);
  }

  readonly #onPolled = (): void => {
    this.#polling = false;
    if (this.#target === Infinity || this.#coarse !== undefined) return;
    if (this.#now() >= this.#target) this.#fire();
    else this.#poll();
  };

  #fire(): void {
    this.#target = Infinity;
    this.#onFire();
  }
}

/** Resolves at (not before) absolute time `t`, or early when `signal` aborts. */
export function preciseSleepUntil(
  t: number,
  signal?: AbortSignal,
  now: () => number = () => performance.now(),
  yieldToIo?: YieldToIo,
  wake?: WakeThread,
): Promise<void> {
  if (t <= now() || signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      timer.close();
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = new PreciseTimer(done, now, { yieldToIo, wake });
    signal?.addEventListener("abort", done, { once: true });
    timer.fireAt(t);
  });
}
