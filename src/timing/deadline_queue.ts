/**
 * Deadlines of many in-flight requests (and connection attempts) on one timer.
 *
 * Why: a `setTimeout` armed and cleared per request was ~6 % of the engine thread's busy time (CPU profile of
 * `profile` at 64 streams of 1-token answers; 1 % with this queue), on the thread that stamps socket reads. Here
 * `add` and `cancel` are a few pointer moves; the one timer is re-armed only when the earliest deadline moves
 * earlier or when it fires.
 *
 * Entries are kept in deadline order in a doubly linked list. Insertion scans from the latest deadline backwards,
 * so requests given the same timeout (later sends, later deadlines) insert in O(1); an out-of-order deadline
 * costs a scan over the later ones. A cancelled first entry leaves the timer armed for its time: it fires early
 * once, finds nothing due, and re-arms for the new first entry. The timer is cleared whenever the queue empties,
 * so an idle queue never keeps the process alive.
 */

/** A queued deadline; pass it to {@linkcode DeadlineQueue.cancel}. */
export interface Deadline {
  readonly at: number;
}

class Entry implements Deadline {
  prev: Entry | undefined = undefined;
  next: Entry | undefined = undefined;
  queued = true;
  constructor(readonly at: number, readonly fire: () => void) {}
}

/** Timers take at most 2^31-1 ms (~24.8 days); further deadlines are re-armed in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class DeadlineQueue {
  #first: Entry | undefined = undefined;
  #last: Entry | undefined = undefined;
  #size = 0;
  #timer: ReturnType<typeof setTimeout> | undefined = undefined;
  /** When the armed timer is due (`Infinity` when none is armed). */
  #armedFor = Infinity;
  readonly #now: () => number;

  /** `now` reads the clock the deadlines are on (`performance.now` unless a test passes its own). */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** Deadlines waiting. */
  get size(): number {
    return this.#size;
  }

  /** Calls `fire` once the queue's clock has reached `at`, unless cancelled first. */
  add(at: number, fire: () => void): Deadline {
    const e = new Entry(at, fire);
    let after = this.#last;
    while (after !== undefined && after.at > at) after = after.prev;
    // Link `e` behind `after` (or first when undefined).
    const before = after === undefined ? this.#first : after.next;
    e.prev = after;
    e.next = before;
    if (after === undefined) this.#first = e;
    else after.next = e;
    if (before === undefined) this.#last = e;
    else before.prev = e;
    this.#size++;
    if (at < this.#armedFor) this.#arm(at);
    return e;
  }

  /** Removes a deadline that has not fired; a no-op for one that fired or was cancelled. */
  cancel(deadline: Deadline): void {
    const e = deadline as Entry;
    if (!e.queued) return;
    this.#unlink(e);
    if (this.#size === 0) this.#disarm();
  }

  #unlink(e: Entry): void {
    e.queued = false;
    if (e.prev === undefined) this.#first = e.next;
    else e.prev.next = e.next;
    if (e.next === undefined) this.#last = e.prev;
    else e.next.prev = e.prev;
    e.prev = e.next = undefined;
    this.#size--;
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedFor = at;
    // Rounded up: a timer due in 0.3 ms would otherwise be armed for 0 and spin until the deadline is reached.
    const ms = Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(at - this.#now())));
    this.#timer = setTimeout(this.#onTimer, ms);
  }

  #disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Infinity;
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const now = this.#now();
    try {
      // Fire in deadline order; a callback may add or cancel entries, so re-read the first each time.
      for (let e = this.#first; e !== undefined && e.at <= now; e = this.#first) {
        this.#unlink(e);
        e.fire();
      }
    } finally {
      // Timers may fire a fraction of a millisecond before their time: whatever is not due yet is re-armed.
      // (A callback may have armed it already, for a deadline it added, possibly later than the first.)
      if (this.#first !== undefined && this.#first.at < this.#armedFor) this.#arm(this.#first.at);
    }
  };
}
