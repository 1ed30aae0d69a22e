/**
 * One shared timer for every slow response of the simulated server.
 *
 * Why shared: 10k+ concurrent streams with one `setTimeout` each cost a timer allocation per token and wake the
 * loop once per stream; here a binary min-heap orders the tasks by due time, a single timer is armed for the
 * earliest one, and every task due at a wake-up runs in the same macrotask (their writes batch together).
 *
 * Why a PreciseTimer: Deno's timers fire ~1.1 ms late (p50) and up to ~2 ms (p99), which made a 20 ms TTFT
 * arrive at 21.5 ms. The precise timer sleeps coarsely, then polls on event-loop yields for the final stretch,
 * so tokens leave within microseconds of their due time (timing/precise_timer.ts). A server passes its
 * thread's `IoYield` so that new requests keep being read while it polls (runtime/io_yield.ts).
 */
import { PreciseTimer } from "../timing/precise_timer.ts";
import type { YieldToIo } from "../runtime/io_yield.ts";

/** A unit of scheduled work, typically one response stream. */
export interface ScheduledTask {
  /**
   * Do all the work due at or before `horizon` (ms on the `performance.now()` clock). Return the next due time,
   * which must be later than `horizon`, to be called again, or undefined when the task is finished.
   */
  run(horizon: number): number | undefined;
  /** The server is shutting down: finish at once (cut the stream short, answer the waiting request). */
  abort(): void;
}

/** Handle of an added task. */
export interface ScheduledHandle {
  /** Stop calling the task (e.g. the client went away); idempotent. */
  cancel(): void;
}

interface Entry {
  due: number;
  seq: number;
  readonly task: ScheduledTask;
  cancelled: boolean;
}

/** Tasks due within this many ms of a wake-up run in it (batching writes that are due together). */
const TOLERANCE_MS = 0.02;
/** Live streams at which waiting switches from spinning to sleeping (see the constructor). */
const SLEEP_WHEN_STREAMS = 64;

export class StreamScheduler {
  readonly #now: () => number;
  readonly #heap: Entry[] = [];
  readonly #live = new Set<Entry>();
  #seq = 0;
  readonly #timer: PreciseTimer;
  #running = false;

  constructor(now: () => number = () => performance.now(), options: { readonly yieldToIo?: YieldToIo } = {}) {
    this.#now = now;
    // Few streams: spin, for exact timing. Many: sleep between polls, or a few busy simulator processes would
    // starve the machine (20k-stream runs) — events are then due every fraction of a millisecond anyway.
    this.#timer = new PreciseTimer(() => this.#wake(), now, {
      sleepInWindow: () => this.#live.size >= SLEEP_WHEN_STREAMS,
      yieldToIo: options.yieldToIo,
    });
  }

  /** Tasks not yet finished or cancelled. */
  get size(): number {
    return this.#live.size;
  }

  /** Run `task` at `due` (clock ms), then whenever it asks, until it returns undefined or is cancelled. */
  add(task: ScheduledTask, due: number): ScheduledHandle {
    const entry: Entry = { due, seq: this.#seq++, task, cancelled: false };
    this.#live.add(entry);
    this.#push(entry);
    if (!this.#running) this.#arm();
    return {
      cancel: () => {
        if (entry.cancelled) return;
        entry.cancelled = true;
        this.#live.delete(entry);
        // The heap slot is dropped lazily when it reaches the top; removing from the middle is not worth it.
      },
    };
  }

  /** Abort every live task (server shutdown) and drop the timer. */
  abortAll(): void {
    const entries = [...this.#live];
    this.#live.clear();
    this.#heap.length = 0;
    this.#timer.cancel();
    for (const entry of entries) {
      entry.cancelled = true;
      entry.task.abort();
    }
  }

  #arm(): void {
    while (this.#heap.length > 0 && this.#heap[0].cancelled) this.#pop();
    if (this.#heap.length === 0) {
      this.#timer.cancel();
      return;
    }
    const due = this.#heap[0].due;
    if (this.#timer.target <= due) return;
    this.#timer.fireAt(due);
  }

  #wake(): void {
    const start = this.#now();
    this.#running = true;
    try {
      const limit = start + TOLERANCE_MS;
      while (this.#heap.length > 0) {
        const top = this.#heap[0];
        if (top.cancelled) {
          this.#pop();
          continue;
        }
        if (top.due > limit) break;
        this.#pop();
        let next: number | undefined;
        const horizon = this.#now() + TOLERANCE_MS;
        try {
          next = top.task.run(horizon);
          // A task answering a time not after its horizon would spin this loop; push it to the next wake-up.
          if (next !== undefined && next <= horizon) next = horizon + TOLERANCE_MS;
        } catch {
          // A task that throws is finished; it must not take the other streams down with it.
          next = undefined;
        }
        if (next === undefined || top.cancelled) {
          top.cancelled = true;
          this.#live.delete(top);
        } else {
          top.due = next;
          top.seq = this.#seq++;
          this.#push(top);
        }
      }
    } finally {
      this.#running = false;
      this.#arm();
    }
  }

  #push(entry: Entry): void {
    const heap = this.#heap;
    let i = heap.length;
    heap.push(entry);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(entry, heap[parent])) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = entry;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop()!;
    const n = heap.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && before(heap[r], heap[l]) ? r : l;
      if (!before(heap[c], last)) break;
      heap[i] = heap[c];
      i = c;
    }
    heap[i] = last;
  }
}

function before(a: Entry, b: Entry): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}
