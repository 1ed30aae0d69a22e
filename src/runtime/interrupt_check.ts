/**
 * Makes a long loop on the main thread (reading a dataset file, preparing a hundred thousand request bodies)
 * interruptible: a signal listener runs only when the thread returns to its event loop, so every
 * {@linkcode INTERRUPT_SLICE_MS} of work `check()` yields one macrotask, and once the signal has aborted it throws
 * {@linkcode InterruptedError}. Checking is a clock read; the yields cost about 5 µs per slice.
 */
import { InterruptedError } from "../base/interrupted_error.ts";
import { nextMacrotask } from "./next_macrotask.ts";

/** Longest stretch of work between two chances for a signal to be seen. */
export const INTERRUPT_SLICE_MS = 20;

export class InterruptCheck {
  readonly #signal: AbortSignal | undefined;
  readonly #what: string;
  #sliceStart = performance.now();

  /** `what`: the work, in words ("loading big.jsonl"), for the error. */
  constructor(signal: AbortSignal | undefined, what: string) {
    this.#signal = signal;
    this.#what = what;
  }

  /**
   * Undefined when the work may go on at once; a promise to await when it is time to yield (it rejects with
   * {@linkcode InterruptedError} if the signal aborted meanwhile). @throws {InterruptedError} once aborted.
   */
  check(): Promise<void> | undefined {
    const signal = this.#signal;
    if (signal === undefined) return undefined;
    if (signal.aborted) throw new InterruptedError(this.#what);
    if (performance.now() - this.#sliceStart < INTERRUPT_SLICE_MS) return undefined;
    return nextMacrotask().then(() => {
      this.#sliceStart = performance.now();
      if (signal.aborted) throw new InterruptedError(this.#what);
    });
  }
}
