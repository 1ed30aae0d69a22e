/**
 * Every Worker infermeter starts runs `main.ts` itself; the worker's `name` selects its role (worker_main.ts).
 *
 * Why not `new Worker(new URL("./x_worker.ts", import.meta.url))`: the bundle (`deno task bundle`: an entry and
 * hashed chunks) and a `deno compile` binary contain no separate worker files. Re-entering the main module works in
 * all three forms: from source, bundled, and compiled; the worker's role module then loads on use like a command.
 */
export type WorkerRole = "token-counter" | "engine-shard" | "waker" | "records-reader";

const NAME_PREFIX = "infermeter:";

/** The main module: from source it is ../../main.ts; bundled or compiled, every module shares its URL. */
function workerEntryUrl(): string {
  const here = import.meta.url;
  if (here.endsWith("/src/runtime/spawn_worker.ts")) return new URL("../../main.ts", here).href;
  return Deno.mainModule;
}

export function spawnWorker(role: WorkerRole): Worker {
  return new Worker(workerEntryUrl(), { type: "module", name: NAME_PREFIX + role });
}

/**
 * A Worker started before the code that uses it has loaded. `new Worker` blocks the calling thread while the Worker's
 * runtime is built, wherever it is called; the Worker then loads its own modules on another core. Started first, that
 * load runs beside this thread's loading and planning rather than beside its server probes and first requests. Taken
 * once by its user; closed if never taken.
 */
export class EarlyWorker {
  #worker: Worker | undefined;
  #failed = false;
  #taken = false;

  /** `spawn`: how the Worker is started (tests give a stand-in). */
  constructor(role: WorkerRole, spawn: (role: WorkerRole) => Worker = spawnWorker) {
    const worker = spawn(role);
    // Until it is taken: a Worker that failed to load is not handed out (its user starts one of its own and reports
    // that one's failure), and its error does not reach this thread as an uncaught one.
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.#failed = true;
    };
    this.#worker = worker;
  }

  /** Whether the Worker failed to load before it was taken. */
  get failed(): boolean {
    return this.#failed;
  }

  /** Whether `take()` handed the Worker out. */
  get taken(): boolean {
    return this.#taken;
  }

  /** The Worker, the first time; afterwards, after `close()` or when it failed to load, undefined. */
  take(): Worker | undefined {
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker === undefined) return undefined;
    worker.onerror = null;
    if (this.#failed) {
      worker.terminate();
      return undefined;
    }
    this.#taken = true;
    return worker;
  }

  /** Terminates the Worker if it was never taken. */
  close(): void {
    this.#worker?.terminate();
    this.#worker = undefined;
  }
}

/** The role of the current worker, or undefined on the main thread / in a worker we did not start. */
export function currentWorkerRole(): WorkerRole | undefined {
  const scope = (globalThis as { WorkerGlobalScope?: abstract new () => unknown }).WorkerGlobalScope;
  if (scope === undefined || !(self instanceof scope)) return undefined;
  const name = (self as unknown as { name?: string }).name ?? "";
  return name.startsWith(NAME_PREFIX) ? name.slice(NAME_PREFIX.length) as WorkerRole : undefined;
}

/**
 * Messages that reach a worker before its role module has installed `onmessage` would be dropped (Deno
 * dispatches them as soon as the worker's message pump runs, and loading the role module takes awaits).
 * Call this synchronously at worker start; `release()` replays what arrived to the handler installed since.
 */
export function holdEarlyMessages(): { release(): void } {
  // Typed loosely: this module is also loaded on the main thread, whose `self` is a Window.
  const scope = self as unknown as { onmessage: ((e: MessageEvent) => void) | null };
  const held: MessageEvent[] = [];
  const hold = (e: MessageEvent) => {
    held.push(e);
  };
  scope.onmessage = hold;
  return {
    release(): void {
      const handler = scope.onmessage;
      if (handler === hold || handler === null) throw new Error("release() needs the role's onmessage installed first");
      for (const e of held.splice(0)) handler(e);
    },
  };
}
