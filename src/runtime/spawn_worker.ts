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
