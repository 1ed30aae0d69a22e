/**
 * When each output token of a simulated response is due, as an offset in ms from the request's arrival.
 *
 * The schedule is absolute: token k is due at `ttft + k·itl` (with jitter, the sum of the jittered TTFT and k
 * jittered gaps), computed from the arrival time, never from when earlier tokens actually left. A late event loop
 * therefore sends what is overdue at once and catches up instead of drifting.
 *
 * Jitter multiplies each latency by a lognormal factor of mean 1 and the given coefficient of variation c:
 * σ² = ln(1 + c²), μ = −σ²/2, factor = exp(μ + σ·N(0,1)).
 */
import type { SeededRandom } from "../base/seeded_random.ts";

export interface TokenClockOptions {
  /** @default 20 */
  readonly ttftMs: number;
  /** @default 5 */
  readonly itlMs: number;
  /** Coefficient of variation of the TTFT factor. @default 0 */
  readonly ttftJitter: number;
  /** Coefficient of variation of each gap's factor. @default 0 */
  readonly itlJitter: number;
}

export class TokenClock {
  readonly #itlMs: number;
  readonly #itlSigma: number;
  readonly #rng: SeededRandom;
  #next: number;
  #started = false;

  constructor(options: TokenClockOptions, rng: SeededRandom) {
    this.#rng = rng;
    this.#itlMs = options.itlMs;
    this.#itlSigma = sigmaOf(options.itlJitter);
    this.#next = options.ttftMs * lognormalFactor(rng, sigmaOf(options.ttftJitter));
  }

  /** Due offset of the next token; call once per token, in order. */
  next(): number {
    if (this.#started) {
      this.#next += this.#itlSigma === 0 ? this.#itlMs : this.#itlMs * lognormalFactor(this.#rng, this.#itlSigma);
    }
    this.#started = true;
    return this.#next;
  }

  /** Due offset of the last of the next `n` tokens (n ≥ 1). */
  advance(n: number): number {
    if (this.#itlSigma === 0 && n > 1) {
      const first = this.next();
      this.#next = first + (n - 1) * this.#itlMs;
      return this.#next;
    }
    let due = 0;
    for (let i = 0; i < n; i++) due = this.next();
    return due;
  }
}

function sigmaOf(cv: number): number {
  return cv > 0 ? Math.sqrt(Math.log1p(cv * cv)) : 0;
}

function lognormalFactor(rng: SeededRandom, sigma: number): number {
  if (sigma === 0) return 1;
  return Math.exp(-0.5 * sigma * sigma + sigma * rng.normal());
}
