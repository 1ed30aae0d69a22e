/**
 * AIPerf's request-rate ramp (`--request-rate-ramp-duration`): the rate starts at `target · (interval / duration)`
 * and rises linearly to the target, updated every `interval` (AIPerf's 0.1 s), so even a target below 1 req/s
 * starts above zero. Arrivals follow the ramped rate by a change of time: a schedule drawn at the target rate
 * gives offsets `u` in "target time"; the send time is the `t` at which the ramped rate has accumulated as many
 * expected arrivals, `∫₀ᵗ r(s)/target ds = u`. For Poisson arrivals this is exactly a Poisson process with rate
 * r(t); constant arrivals become evenly spaced in expected count. With a step rate the integral is piecewise
 * linear, inverted step by step.
 */

/** AIPerf `AIPERF_TIMING_RATE_RAMP_UPDATE_INTERVAL` default: the rate changes every 100 ms. */
export const RATE_RAMP_UPDATE_MS = 100;

/** The ramped rate (req/s) `elapsedMs` after the phase start. */
export function rampedRate(target: number, rampMs: number, elapsedMs: number, stepMs = RATE_RAMP_UPDATE_MS): number {
  if (!(rampMs > 0) || elapsedMs >= rampMs) return target;
  const start = target * Math.min(1, stepMs / rampMs);
  const stepStart = Math.floor(Math.max(0, elapsedMs) / stepMs) * stepMs;
  return start + (target - start) * stepStart / rampMs;
}

/** Maps offsets of a target-rate schedule (non-decreasing) to send offsets under the ramp. */
export class RampTimeMap {
  readonly #target: number;
  readonly #rampMs: number;
  readonly #stepMs: number;
  /** Start of the current step, in real time and in target time. */
  #t = 0;
  #u = 0;

  constructor(target: number, rampMs: number, stepMs = RATE_RAMP_UPDATE_MS) {
    this.#target = target;
    this.#rampMs = rampMs;
    this.#stepMs = stepMs;
  }

  /** The send offset (ms) of the request the unramped schedule sends at `u` ms. Calls must not go backwards. */
  timeFor(u: number): number {
    for (;;) {
      if (this.#t >= this.#rampMs) return this.#t + (u - this.#u);
      const len = Math.min(this.#stepMs, this.#rampMs - this.#t);
      const share = rampedRate(this.#target, this.#rampMs, this.#t, this.#stepMs) / this.#target;
      const uEnd = this.#u + share * len;
      if (u <= uEnd) return this.#t + (u - this.#u) / share;
      this.#u = uEnd;
      this.#t += len;
    }
  }
}
