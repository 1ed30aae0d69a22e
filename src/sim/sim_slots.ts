/**
 * The simulator's capacity (`--slots N`): at most N requests generate at once, like an engine's batch of running
 * sequences (vLLM's `--max-num-seqs`); the others wait in arrival order (FIFO) and start when a slot frees. The
 * wait is part of what a client sees as time to first token. 0 slots means no limit.
 *
 * A waiter whose client went away leaves the queue; on shutdown every waiter is turned away.
 */

/** How a wait for a slot ended. */
export type SlotWait = "admitted" | "gone" | "closed";

interface Waiter {
  readonly resolve: (outcome: SlotWait) => void;
  readonly signal?: AbortSignal;
  readonly onAbort: () => void;
}

export class SimSlots {
  readonly #slots: number;
  #busy = 0;
  #closed = false;
  /** FIFO: admitted from the head; removal of a departed waiter is O(n), which only a client going away pays. */
  readonly #queue: Waiter[] = [];

  /** `slots` = 0: no limit. */
  constructor(slots: number) {
    this.#slots = slots;
  }

  /** Requests generating now. */
  get busy(): number {
    return this.#busy;
  }

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Takes a slot: at once (a resolved promise) when one is free and nobody waits, else after those before it.
   * Resolves `"gone"` when `signal` aborts first (the slot is not taken), `"closed"` on shutdown. The signal may be
   * given as a function, read only when the request has to wait: Deno warns once per process when a served request's
   * signal is first read.
   */
  acquire(signalOf?: AbortSignal | (() => AbortSignal)): Promise<SlotWait> {
    if (this.#closed) return Promise.resolve("closed");
    if (this.#slots === 0 || (this.#busy < this.#slots && this.#queue.length === 0)) {
      this.#busy++;
      return Promise.resolve("admitted");
    }
    const signal = typeof signalOf === "function" ? signalOf() : signalOf;
    if (signal?.aborted) return Promise.resolve("gone");
    return new Promise<SlotWait>((resolve) => {
      const waiter: Waiter = {
        resolve,
        signal,
        onAbort: () => {
          const i = this.#queue.indexOf(waiter);
          if (i >= 0) this.#queue.splice(i, 1);
          resolve("gone");
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  /** Gives back a slot taken by an admitted `acquire`; the longest waiter takes it. */
  release(): void {
    this.#busy = Math.max(0, this.#busy - 1);
    while (this.#queue.length > 0 && (this.#slots === 0 || this.#busy < this.#slots)) {
      const next = this.#queue.shift()!;
      next.signal?.removeEventListener("abort", next.onAbort);
      this.#busy++;
      next.resolve("admitted");
    }
  }

  /** Shutdown: every waiter is turned away, and later requests too. */
  close(): void {
    this.#closed = true;
    for (const w of this.#queue.splice(0)) {
      w.signal?.removeEventListener("abort", w.onAbort);
      w.resolve("closed");
    }
  }
}
