/**
 * A periodic check on one long-lived interval: started by the first `start()`, stopped after `idleStopTicks`
 * ticks in a row on which `onTick` reported nothing to do, or by `stop()`.
 *
 * Why not a `setTimeout` armed when work appears: arming a Deno timer costs 6–8 µs warm and 25–40 µs on a thread
 * that has just woken from idle (p50, `scripts/bench/timer_probe.ts` on this VM), and in the engine 66–84 µs: a
 * trace of `calibrate --streams 16` showed the first record of each completion wave arming the record processor's
 * batch timer, a quarter of the engine's work between one stream's completion and its next socket poll, while the
 * last tokens of the other streams of the same decode step were arriving and waiting for that poll. A running
 * interval costs one wake-up per tick instead (80–130 µs of CPU each on this VM when the thread was idle, so
 * 1.6–2.5 % of a core at 5 ms), at moments unrelated to completions, and nothing once it has gone idle.
 */
export class Ticker {
  readonly #periodMs: number;
  readonly #onTick: () => boolean;
  readonly #idleStopTicks: number;
  #id: ReturnType<typeof setInterval> | undefined;
  #idle = 0;

  /**
   * `onTick` returns true when it found something to do (which resets the idle count). By default the ticker stops
   * after 2 s of idle ticks, so an idle owner wakes nobody.
   */
  constructor(periodMs: number, onTick: () => boolean, idleStopTicks = Math.ceil(DEFAULT_IDLE_STOP_MS / periodMs)) {
    this.#periodMs = periodMs;
    this.#onTick = onTick;
    this.#idleStopTicks = idleStopTicks;
  }

  /** True while the interval is armed. */
  get running(): boolean {
    return this.#id !== undefined;
  }

  /** Arms the interval unless it is running; either way the idle count starts over. */
  start(): void {
    this.#idle = 0;
    if (this.#id === undefined) this.#id = setInterval(this.#tick, this.#periodMs);
  }

  stop(): void {
    if (this.#id !== undefined) clearInterval(this.#id);
    this.#id = undefined;
  }

  readonly #tick = (): void => {
    if (this.#onTick()) this.#idle = 0;
    else if (++this.#idle >= this.#idleStopTicks) this.stop();
  };
}

const DEFAULT_IDLE_STOP_MS = 2000;
