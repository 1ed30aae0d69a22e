/**
 * A counting gate (semaphore) with FIFO waiters: the concurrency limit of a phase. `acquire()` resolves
 * synchronously-fast when a slot is free (no timer), so a closed loop re-issues a request within the same
 * turn of the event loop that finished the previous one.
 */
export class SlotGate {
  #free: number;
  #waiters: ((granted: boolean) => void)[] = [];
  #closed = false;

  constructor(slots: number) {
    if (!(slots >= 1) || !Number.isFinite(slots)) throw new RangeError(`a slot gate needs ≥ 1 slots, got ${slots}`);
    this.#free = slots;
  }

  /** Resolves true when a slot was taken, false when the gate was closed while waiting. */
  acquire(): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next) next(true);
    else this.#free++;
  }

  /** Wakes every waiter with `false`; later acquires fail at once. */
  close(): void {
    this.#closed = true;
    for (const w of this.#waiters.splice(0)) w(false);
  }

  get waiting(): number {
    return this.#waiters.length;
  }
}
