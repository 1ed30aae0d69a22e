/**
 * Sub-millisecond timer for paced work (the simulated server's token schedule, open-loop send times).
 *
 * Why: Deno's `setTimeout` fires ~1–2 ms late and even `setTimeout(0)` costs ~2 ms here, so a 20 ms TTFT came out
 * as 21.5 ms. A `MessageChannel` round trip yields to the event loop (I/O keeps flowing) in ~5 µs. So we sleep
 * with `setTimeout` until `FINE_WINDOW_MS` before the target, then re-check on MessageChannel yields until it is
 * due. Spinning through that window costs CPU (a stream at a 4 ms token gap kept a third of a core busy). A
 * timer whose `sleepInWindow()` says so sleeps in ≤ 0.25 ms `Atomics.wait` slices between yields instead: the
 * CPU rests, but I/O only advances between slices, so work that needs several event-loop turns (Deno.serve
 * answering a new request) is slowed — measured: TTFT +4 ms at 4 streams. The simulated server therefore
 * sleeps only when it holds many streams; the client's own timers never sleep (its timestamps come first).
 */

/** How long before the target the coarse timer hands over to yield polling. */
export const FINE_WINDOW_MS = 2.5;
/** Longest `Atomics.wait` slice in the window, and how close to the target sleeping stops. */
const SLEEP_SLICE_MS = 0.25;
const SLEEP_STOP_MS = 0.12;

export interface PreciseTimerOptions {
  /** Asked at each poll: sleep (Atomics.wait) in short slices instead of spinning? @default never */
  readonly sleepInWindow?: () => boolean;
}

export class PreciseTimer {
  readonly #now: () => number;
  readonly #onFire: () => void;
  #target = Infinity;
  #coarse: ReturnType<typeof setTimeout> | undefined;
  #port: MessagePort | undefined;
  #other: MessagePort | undefined;
  #polling = false;
  readonly #sleeper: Int32Array | undefined;
  readonly #sleepInWindow: (() => boolean) | undefined;

  /** `onFire` runs once per `fireAt()` when the target time has come. */
  constructor(onFire: () => void, now: () => number = () => performance.now(), options: PreciseTimerOptions = {}) {
    this.#onFire = onFire;
    this.#now = now;
    this.#sleepInWindow = options.sleepInWindow;
    this.#sleeper = options.sleepInWindow ? new Int32Array(new SharedArrayBuffer(4)) : undefined;
  }

  /** When the armed target is (Infinity when idle). */
  get target(): number {
    return this.#target;
  }

  /** (Re)arm for absolute time `t`; a later call replaces the earlier target. */
  fireAt(t: number): void {
    this.#target = t;
    if (this.#coarse !== undefined) {
      clearTimeout(this.#coarse);
      this.#coarse = undefined;
    }
    const wait = t - this.#now() - FINE_WINDOW_MS;
    if (wait > 0) {
      // The pending timer keeps the process alive while we wait; the channel is not needed until the window.
      if (!this.#polling) this.#closePorts();
      this.#coarse = setTimeout(() => {
        this.#coarse = undefined;
        this.#poll();
      }, wait);
    } else {
      this.#poll();
    }
  }

  /** Disarms; an idle timer holds no timer or port, so it never keeps the process alive. */
  cancel(): void {
    this.#target = Infinity;
    if (this.#coarse !== undefined) clearTimeout(this.#coarse);
    this.#coarse = undefined;
    if (!this.#polling) this.#closePorts();
  }

  /** Same as `cancel()`; for symmetry with other resources. */
  close(): void {
    this.cancel();
  }

  #closePorts(): void {
    this.#port?.close();
    this.#other?.close();
    this.#port = this.#other = undefined;
  }

  #poll(): void {
    if (this.#polling) return;
    if (this.#target === Infinity) return;
    if (this.#now() >= this.#target) {
      this.#fire();
      return;
    }
    if (!this.#port) {
      const ch = new MessageChannel();
      this.#port = ch.port1;
      this.#other = ch.port2;
      this.#port.onmessage = () => {
        this.#polling = false;
        if (this.#target === Infinity) {
          this.#closePorts();
          return;
        }
        if (this.#coarse !== undefined) return;
        if (this.#now() >= this.#target) this.#fire();
        else this.#poll();
      };
    }
    if (this.#sleeper !== undefined && this.#sleepInWindow!()) {
      const remaining = this.#target - this.#now();
      if (remaining > SLEEP_STOP_MS) {
        Atomics.wait(this.#sleeper, 0, 0, Math.min(SLEEP_SLICE_MS, remaining - SLEEP_STOP_MS));
      }
    }
    this.#polling = true;
    this.#other!.postMessage(0);
  }

  #fire(): void {
    this.#target = Infinity;
    this.#onFire();
    // Not re-armed by the callback: release the channel so an idle timer does not keep the process alive.
    if (this.#target === Infinity && !this.#polling) this.#closePorts();
  }
}

/** Resolves at (not before) absolute time `t`, or early when `signal` aborts. */
export function preciseSleepUntil(t: number, signal?: AbortSignal, now: () => number = () => performance.now()) {
  if (t <= now() || signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      timer.close();
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = new PreciseTimer(done, now);
    signal?.addEventListener("abort", done, { once: true });
    timer.fireAt(t);
  });
}
