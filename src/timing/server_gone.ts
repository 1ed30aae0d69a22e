/**
 * Stops a run whose server went away mid-run: once `atLeast` finished requests in a row could not even connect
 * (refused, unreachable, connect timeout), spanning at least `forMs`, the server is gone. Without it a server killed
 * mid-run is hammered with connection attempts (65,000 refused-connection records in 10 s against a dead port) until
 * the run's own end. One success or any other outcome (the server answered something) starts the count again; a brief
 * restart shorter than `forMs` does not stop the run. Fed every finished request, on whichever thread gathers them.
 */
export interface ServerGoneOptions {
  /** Connect failures in a row needed. */
  readonly atLeast: number;
  /** Run-clock ms between the first and the last of them needed. */
  readonly forMs: number;
}

/** Record error types that mean no connection could be made. */
export const CONNECT_FAILURE_TYPES: ReadonlySet<string> = new Set(["ConnectionError", "ConnectTimeoutError"]);

export class ServerGone {
  readonly #o: ServerGoneOptions;
  #run = 0;
  #since = 0;
  #reason: string | undefined;

  constructor(options: ServerGoneOptions) {
    this.#o = options;
  }

  /** Why the run must stop, once it must; undefined while it may go on. */
  get tripped(): string | undefined {
    return this.#reason;
  }

  /**
   * Counts one finished request: `connectFailed` when no connection could be made, at `at` (run-clock ms of its end).
   * Returns the reason when this one trips (only once).
   */
  observe(connectFailed: boolean, at: number, target: string): string | undefined {
    if (!connectFailed) {
      this.#run = 0;
      return undefined;
    }
    if (this.#run++ === 0) this.#since = at;
    if (this.#reason !== undefined || this.#run < this.#o.atLeast || at - this.#since < this.#o.forMs) return undefined;
    this.#reason = `the server went away: the last ${this.#run} requests could not connect to ${target} for ` +
      `${((at - this.#since) / 1000).toFixed(1)} s; the run was stopped and its records up to then were written.`;
    return this.#reason;
  }
}
