/**
 * Token counting off the request path.
 *
 * Output tokens are counted for every response (AIPerf: encode the joined output text), which is too slow to do on
 * the engine's event loop at high rates. {@linkcode WorkerTokenCounter} runs the tokenizer in a Deno Worker: calls
 * made in the same tick are sent as one message, the worker answers them in order, and the loop only pays for a
 * `postMessage`. {@linkcode InlineTokenCounter} does the same work on the calling thread, for tests and tools.
 */
import { spawnWorker } from "../runtime/spawn_worker.ts";
import type { SharedTokenizer, Tokenizer } from "./tokenizer.ts";
import { packCountBatch, type TokenCounterReply, type TokenCounterRequest } from "./token_counter_worker.ts";

export interface TokenCounter {
  /** Token count of each text, in order. Rejects (never throws synchronously) when counting fails. */
  count(texts: readonly string[]): Promise<number[]>;
  /** Release the tokenizer (terminates a worker); pending and later counts reject. Idempotent. */
  close(): void;
}

/** Counts on the calling thread. */
export class InlineTokenCounter implements TokenCounter {
  #tokenizer: Tokenizer | undefined;

  constructor(tokenizer: Tokenizer) {
    this.#tokenizer = tokenizer;
  }

  count(texts: readonly string[]): Promise<number[]> {
    const tokenizer = this.#tokenizer;
    if (tokenizer === undefined) return Promise.reject(new Error(CLOSED_MESSAGE));
    try {
      return Promise.resolve(texts.map((text) => tokenizer.count(text)));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  close(): void {
    this.#tokenizer = undefined;
  }
}

const CLOSED_MESSAGE = "The token counter is closed; create a new one with createTokenCounter()";

interface Pending {
  readonly id: number;
  readonly resolve: (counts: number[]) => void;
  readonly reject: (error: Error) => void;
}

/**
 * When a Worker counter loads its tokenizer: at once (`"start"`), or at its first count or `load()` call
 * (`"first-count"`: a run's start does not pay for the tables' ~30 ms of CPU before its first request).
 */
export type CounterLoad = "start" | "first-count";

/**
 * Counts in a dedicated Deno Worker that loads the tokenizer itself (from the same `--tokenizer` spec), so the
 * main thread never holds the rank tables. Counting may start before the worker is ready; requests queue.
 */
export class WorkerTokenCounter implements TokenCounter {
  readonly spec: string;
  /**
   * Resolves with the tokenizer's name once the worker has loaded it; rejects with the load error. With
   * `"first-count"` loading, it settles only after the first count or `load()`.
   */
  readonly ready: Promise<string>;
  #worker: Worker | undefined;
  /** The `init` message, until it is sent. */
  #init: TokenCounterRequest | undefined;
  #nextId = 0;
  /** Sent and unanswered, in request order (the worker answers in order). */
  #inFlight: Pending[] = [];
  /** Made in this tick, not yet sent. */
  #batch: { id: number; texts: readonly string[] }[] = [];
  #flushScheduled = false;
  #failure: Error | undefined;
  #resolveReady!: (name: string) => void;
  #rejectReady!: (error: Error) => void;

  /**
   * `shared`: tables of the same tokenizer already loaded on this thread, counted with instead of loading `spec`.
   * The Worker itself starts here either way: creating one blocks the calling thread while its runtime is built,
   * which must not happen once requests are in flight on this thread.
   */
  constructor(spec: string, shared?: SharedTokenizer, load: CounterLoad = "start") {
    this.spec = spec;
    this.ready = new Promise((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    // A load failure is also reported to every count; do not let an unobserved `ready` crash the process.
    this.ready.catch(() => {});
    const worker = spawnWorker("token-counter");
    worker.onmessage = (event: MessageEvent<TokenCounterReply>) => this.#onReply(event.data);
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.#fail(new Error(`The token counter worker crashed (${event.message}); token counts are unavailable.`));
    };
    worker.onmessageerror = () => {
      this.#fail(
        new Error("The token counter worker sent a message that could not be read; token counts are unavailable."),
      );
    };
    this.#worker = worker;
    this.#init = { type: "init", spec, shared };
    if (load === "start") this.load();
  }

  /** Whether the tokenizer's loading has been asked for (at start, or by the first count or `load()`). */
  get loading(): boolean {
    return this.#init === undefined;
  }

  /** Starts loading the tokenizer, if not yet started (idempotent); the outcome is {@linkcode ready}. */
  load(): Promise<string> {
    const init = this.#init;
    if (init !== undefined && this.#worker !== undefined) {
      this.#init = undefined;
      this.#worker.postMessage(init);
    }
    return this.ready;
  }

  count(texts: readonly string[]): Promise<number[]> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#worker === undefined) return Promise.reject(new Error(CLOSED_MESSAGE));
    this.load(); // before this count's batch is posted: the worker handles messages in order
    const bad = texts.findIndex((t) => typeof t !== "string");
    if (bad >= 0) {
      return Promise.reject(new Error(`Token counting failed: text ${bad} is a ${typeof texts[bad]}, not a string`));
    }
    const id = this.#nextId++;
    return new Promise<number[]>((resolve, reject) => {
      this.#inFlight.push({ id, resolve, reject });
      this.#batch.push({ id, texts: [...texts] });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        queueMicrotask(() => this.#flush());
      }
    });
  }

  close(): void {
    if (this.#worker === undefined) return;
    this.#worker.terminate();
    this.#worker = undefined;
    this.#batch = [];
    this.#rejectAll(new Error(CLOSED_MESSAGE));
    this.#rejectReady(new Error(CLOSED_MESSAGE));
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#worker === undefined || this.#batch.length === 0) return;
    const requests = this.#batch;
    this.#batch = [];
    const batch = packCountBatch(requests);
    this.#worker.postMessage({ type: "count", ...batch } satisfies TokenCounterRequest, [
      batch.utf8.buffer,
      batch.ends.buffer,
    ]);
  }

  #onReply(reply: TokenCounterReply): void {
    switch (reply.type) {
      case "ready":
        this.#resolveReady(reply.name);
        return;
      case "failed":
        this.#fail(new Error(reply.message));
        return;
      case "counted":
      case "error": {
        const pending = this.#inFlight[0];
        if (pending === undefined || pending.id !== reply.id) {
          this.#fail(new Error(`The token counter worker answered request ${reply.id} out of order; this is a bug.`));
          return;
        }
        this.#inFlight.shift();
        if (reply.type === "counted") pending.resolve(reply.counts);
        else pending.reject(new Error(`Token counting failed: ${reply.message}`));
        return;
      }
    }
  }

  /** Stop for good: reject everything pending and every later count with `error`. */
  #fail(error: Error): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    this.#rejectReady(error);
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#batch = [];
    this.#rejectAll(error);
  }

  #rejectAll(error: Error): void {
    const pending = this.#inFlight;
    this.#inFlight = [];
    for (const p of pending) p.reject(error);
  }
}

export interface TokenCounterOptions {
  /** Count in a Deno Worker (off the event loop) instead of on the calling thread. @default true */
  readonly inWorker?: boolean;
  /** Workers sharing the counting round-robin (multi-shard runs produce text faster than one core counts). @default 1 */
  readonly workers?: number;
  /** The same tokenizer, loaded here: Workers count with its tables ({@linkcode Tokenizer.share}) if it has any. */
  readonly loaded?: Tokenizer;
  /** When the Workers load the tokenizer. @default "start" */
  readonly load?: CounterLoad;
}

/** Spreads count() calls round-robin over several counters; order of each call's result is preserved. */
export class PooledTokenCounter implements TokenCounter {
  readonly #counters: readonly TokenCounter[];
  #next = 0;
  constructor(counters: readonly TokenCounter[]) {
    if (counters.length === 0) throw new RangeError("a PooledTokenCounter needs at least one counter");
    this.#counters = counters;
  }
  count(texts: readonly string[]): Promise<number[]> {
    const c = this.#counters[this.#next];
    this.#next = (this.#next + 1) % this.#counters.length;
    return c.count(texts);
  }
  close(): void {
    for (const c of this.#counters) c.close();
  }
}

/** A counter usable at once, whose Workers are started and whose tokenizer may still be loading or unloaded. */
export interface StartedTokenCounter extends TokenCounter {
  /** Starts loading where not yet started; resolves once every Worker is ready, rejects with the load error. */
  load(): Promise<void>;
}

/**
 * Starts the counting Workers for `spec` now and returns at once: counts made before the tokenizer is ready wait for
 * it, and a load failure rejects every count. With `load: "first-count"` nothing is loaded until the first count or
 * `load()`.
 */
export function startTokenCounter(spec: string, options: TokenCounterOptions = {}): StartedTokenCounter {
  const shared = options.loaded?.share?.();
  const counters = Array.from(
    { length: Math.max(1, options.workers ?? 1) },
    () => new WorkerTokenCounter(spec, shared, options.load ?? "start"),
  );
  const pool = counters.length === 1 ? counters[0] : new PooledTokenCounter(counters);
  return {
    count: (texts) => pool.count(texts),
    close: () => pool.close(),
    load: async () => {
      await Promise.all(counters.map((c) => c.load()));
    },
  };
}

/**
 * A token counter for the `--tokenizer` `spec` (see `loadTokenizer`), ready to count: it resolves once the
 * tokenizer has loaded and rejects with the load error (e.g. an unknown path) otherwise.
 */
export async function createTokenCounter(spec: string, options: TokenCounterOptions = {}): Promise<TokenCounter> {
  if (options.inWorker ?? true) {
    const shared = options.loaded?.share?.();
    const counters = Array.from(
      { length: Math.max(1, options.workers ?? 1) },
      () => new WorkerTokenCounter(spec, shared),
    );
    try {
      await Promise.all(counters.map((c) => c.ready));
    } catch (error) {
      for (const c of counters) c.close();
      throw error;
    }
    return counters.length === 1 ? counters[0] : new PooledTokenCounter(counters);
  }
  if (options.loaded !== undefined) return new InlineTokenCounter(options.loaded);
  const { loadTokenizer } = await import("./load_tokenizer.ts");
  return new InlineTokenCounter(await loadTokenizer(spec));
}
