/**
 * The `--failed-request-threshold` stop condition (AIPerf): once at least `judgeAfter` requests have finished, the
 * run stops as soon as the share of failed ones exceeds the threshold. Fed every finished request of the phase, on
 * whichever thread gathers them all.
 */
export interface FailureGateOptions {
  /** Largest tolerated share of failed requests, 0–1. */
  readonly threshold: number;
  /** Requests to see before judging (AIPerf: max(concurrency, 10)). */
  readonly judgeAfter: number;
}

export class FailureGate {
  readonly #o: FailureGateOptions;
  #seen = 0;
  #failed = 0;
  #reason: string | undefined;

  constructor(options: FailureGateOptions) {
    this.#o = options;
  }

  /** Why the gate closed, once it has; undefined while the run may go on. */
  get tripped(): string | undefined {
    return this.#reason;
  }

  /** Counts one finished request; returns the reason when this one closes the gate (only once). */
  observe(failed: boolean): string | undefined {
    this.#seen++;
    if (failed) this.#failed++;
    if (this.#reason !== undefined || this.#seen < this.#o.judgeAfter) return undefined;
    if (this.#failed / this.#seen <= this.#o.threshold) return undefined;
    this.#reason =
      `${this.#failed} of ${this.#seen} requests failed (${(100 * this.#failed / this.#seen).toFixed(1)}%), ` +
      `above --failed-request-threshold ${this.#o.threshold}; the run was stopped.`;
    return this.#reason;
  }
}
