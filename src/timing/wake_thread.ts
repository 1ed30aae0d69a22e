/**
 * Wakes this thread shortly before a given time without polling for it: a helper Worker sleeps on `Atomics.wait`
 * until `WAKE_LEAD_MS` before the earliest time asked for and then posts a message, which wakes this thread's event
 * loop like any socket would. The precise timer polls only the last stretch (timing/precise_timer.ts).
 *
 * Why: Deno's timers have 1 ms granularity and fire up to ~1.3 ms late (p99 here), so the precise timer polled
 * through the last 2.5 ms before every open-loop send on I/O rounds; at a few hundred sends per second those
 * windows touch and the thread polled all the time: `profile --request-rate 400` (20-token answers) used 71–74 %
 * of a core for ~3–5 % of real work, and warned that its timestamps could not be trusted. A futex sleep is exact
 * to the kernel's timer slack (50 µs by default), and the message costs a wake-up like a socket read's.
 *
 * One helper per engine thread, started when its load plan is open-loop and closed with the run. Spawning it blocks
 * the caller for 12–20 ms, so it happens before the first request, and the helper loads the whole program
 * (spawn_worker.ts): ready 19–33 ms after the start on the main thread, but a helper started inside a `--workers`
 * shard was seen to take up to ~1 s (a first version that waited for it sent its first second of requests that
 * late). Until the helper says it is ready, `ready` is false and the precise timer keeps its coarse timer and
 * polling.
 */
import { spawnWorker } from "../runtime/spawn_worker.ts";

/** How long before a requested time the helper wakes us: its futex slack plus the message, with room to spare. */
export const WAKE_LEAD_MS = 0.3;

/** Shared block: bytes 0–3 the generation (bumped at every change), 4–7 the stop flag, 8–15 the target epoch ms. */
const GENERATION = 0;
const STOP = 1;
/** The helper's first message: it has the shared block and is waiting for targets. */
const READY = -1;

export class WakeThread {
  readonly #worker: Worker;
  readonly #control: Int32Array;
  readonly #target: Float64Array;
  /** Waiters in time order (this thread's `performance.now()` clock); a handful at most. */
  #waiters: { at: number; resolve: () => void }[] = [];
  #closed = false;
  #ready = false;
  readonly #started = Promise.withResolvers<void>();

  constructor() {
    const shared = new SharedArrayBuffer(16);
    this.#control = new Int32Array(shared, 0, 2);
    this.#target = new Float64Array(shared, 8, 1);
    this.#target[0] = NaN;
    this.#worker = spawnWorker("waker");
    this.#worker.onmessage = this.#onWake;
    // A helper that fails costs only CPU: sleeps go back to timing themselves, and the run must not stop.
    this.#worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.close();
    };
    this.#worker.postMessage(shared);
  }

  /** True once the helper runs (until then, and after `close()`, callers time themselves). */
  get ready(): boolean {
    return this.#ready && !this.#closed;
  }

  /** Resolves once the helper runs (or the thread is closed first). */
  get started(): Promise<void> {
    return this.#started.promise;
  }

  /** Resolves at about `at − WAKE_LEAD_MS` (never later than the helper can manage); at once after `close()`. */
  wakeNear(at: number): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = this.#waiters;
      let i = waiters.length;
      while (i > 0 && waiters[i - 1].at > at) i--;
      waiters.splice(i, 0, { at, resolve });
      if (i === 0) this.#arm();
    });
  }

  /** Stops the helper and releases every waiter. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    Atomics.store(this.#control, STOP, 1);
    Atomics.add(this.#control, GENERATION, 1);
    Atomics.notify(this.#control, GENERATION);
    this.#worker.terminate();
    this.#started.resolve();
    for (const w of this.#waiters.splice(0)) w.resolve();
  }

  /** Tells the helper the earliest time now wanted (or none). */
  #arm(): void {
    const first = this.#waiters[0];
    this.#target[0] = first === undefined ? NaN : performance.timeOrigin + first.at - WAKE_LEAD_MS;
    Atomics.add(this.#control, GENERATION, 1);
    Atomics.notify(this.#control, GENERATION);
  }

  readonly #onWake = (event: MessageEvent<number>): void => {
    if (this.#closed) return;
    if (event.data === READY) {
      this.#ready = true;
      this.#started.resolve();
      return;
    }
    const now = performance.now();
    const waiters = this.#waiters;
    let due = 0;
    while (due < waiters.length && waiters[due].at - WAKE_LEAD_MS <= now) due++;
    const woken = waiters.splice(0, due);
    this.#arm(); // always: after a wake the helper sleeps until the generation changes
    for (const w of woken) w.resolve();
  };
}

/** The helper's side: sleeps until the target epoch time, posts, and waits to be re-armed; never returns to its loop. */
export function runWaker(shared: SharedArrayBuffer, post: (generation: number) => void): void {
  post(READY);
  const control = new Int32Array(shared, 0, 2);
  const target = new Float64Array(shared, 8, 1);
  for (;;) {
    const generation = Atomics.load(control, GENERATION);
    if (Atomics.load(control, STOP) === 1) return;
    const t = target[0];
    if (Number.isNaN(t)) {
      Atomics.wait(control, GENERATION, generation);
      continue;
    }
    const left = t - (performance.timeOrigin + performance.now());
    if (left > 0) {
      Atomics.wait(control, GENERATION, generation, left);
      continue;
    }
    post(generation);
    Atomics.wait(control, GENERATION, generation);
  }
}
