/**
 * The sleeps of a phase that lead to a request (a session's start, a think time, a sub-agent's start offset), with
 * AIPerf's system-wide idle cap (`--system-idle-gap-cap-seconds`): when no request is in flight, the replay may not
 * stay idle longer than the cap. Once the earliest pending request would go later than `idle start + cap`, every
 * pending request moves earlier by the same amount, so the order and spacing of what is scheduled stay as recorded;
 * only the system's idle time shrinks. Without a cap a sleep is the clock's.
 *
 * Due times a sleep resolves with are the shifted ones, so each request's `scheduledAt` (and its lateness) stays true.
 * An absolute schedule read later (a lane's start) subtracts `skippedMs`, as if it had been pending at every shift.
 */
import type { Clock } from "./clock.ts";
import type { RequestSleeper } from "./load_strategy.ts";

interface Pending {
  due: number;
  wake: AbortController;
}

export class RequestTimers implements RequestSleeper {
  readonly #clock: Clock;
  readonly #capMs: number | undefined;
  readonly #pending = new Set<Pending>();
  #inFlight = 0;
  /** When the system last became idle (no request in flight); undefined while one is. */
  #idleSince: number | undefined;
  #shifts = 0;
  #skippedMs = 0;
  #enforceQueued = false;

  /** The phase starts idle at `startedAt`. */
  constructor(clock: Clock, capMs: number | undefined, startedAt: number = clock.now()) {
    this.#clock = clock;
    this.#capMs = capMs;
    this.#idleSince = startedAt;
  }

  /** Milliseconds of idle time skipped so far. */
  get skippedMs(): number {
    return this.#skippedMs;
  }

  /** How often pending requests were brought forward, and by how much in all (ms). */
  get skipped(): { readonly shifts: number; readonly ms: number } {
    return { shifts: this.#shifts, ms: this.#skippedMs };
  }

  async sleepUntil(due: number, signal: AbortSignal): Promise<number> {
    if (this.#capMs === undefined) {
      await this.#clock.sleepUntil(due, signal);
      return due;
    }
    const entry: Pending = { due, wake: new AbortController() };
    this.#pending.add(entry);
    this.#enforceSoon();
    try {
      for (;;) {
        await this.#clock.sleepUntil(entry.due, AbortSignal.any([signal, entry.wake.signal]));
        if (signal.aborted || !entry.wake.signal.aborted) return entry.due;
        entry.wake = new AbortController(); // moved earlier: sleep again until the new due time
      }
    } finally {
      this.#pending.delete(entry);
    }
  }

  /** A request was sent. */
  requestStarted(): void {
    this.#inFlight++;
    this.#idleSince = undefined;
  }

  /** A request's answer has arrived (or it failed). */
  requestEnded(): void {
    this.#inFlight--;
    if (this.#inFlight === 0) {
      this.#idleSince = this.#clock.now();
      this.#enforce();
    }
  }

  /** Sleeps registered together (in one turn of the event loop) move together. */
  #enforceSoon(): void {
    if (this.#enforceQueued) return;
    this.#enforceQueued = true;
    queueMicrotask(() => {
      this.#enforceQueued = false;
      this.#enforce();
    });
  }

  #enforce(): void {
    if (this.#capMs === undefined || this.#inFlight > 0 || this.#idleSince === undefined) return;
    if (this.#pending.size === 0) return;
    let earliest = Infinity;
    for (const p of this.#pending) earliest = Math.min(earliest, p.due);
    const shift = earliest - (this.#idleSince + this.#capMs);
    if (shift <= 0) return;
    for (const p of this.#pending) {
      p.due -= shift;
      p.wake.abort();
    }
    this.#shifts++;
    this.#skippedMs += shift;
  }
}
