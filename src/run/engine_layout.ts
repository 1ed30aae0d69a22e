/** How many engine shards a run gets and where they run: threads or processes, pinned to cores where there are enough. */
import { allowedCores, formatCpuList } from "../runtime/thread_affinity.ts";
import { InputError } from "../base/input_error.ts";

/** Descriptors a shard process keeps beside its connections (stdio, event loop, workers, log files). */
export const FD_RESERVE = 256;

/**
 * Events/s one engine thread turns into records with its timestamps still on time: ~70 k events/s used 88 % of a
 * core at 1,000 streams; a shard is given well under that.
 */
export const EVENTS_PER_SHARD = 30_000;

/**
 * Engine shards for `--workers auto` (or not given): one (the main thread) on small machines, where the other
 * cores serve the model or the server under test; otherwise enough for the load — one per 256 concurrent streams,
 * and in request-rate mode one per 2000 requests/s or per EVENTS_PER_SHARD expected stream events/s (rate × output
 * tokens) — keeping two of the cores this process may use (its affinity set) free for the main thread and token
 * counting, at most 32.
 */
export function defaultShards(
  load: { readonly concurrency?: number; readonly rate?: number; readonly outputTokensMean?: number },
  cores = allowedCores()?.length ?? navigator.hardwareConcurrency,
): number {
  if (cores < 4) return 1;
  const byLoad = load.rate === undefined ? Math.ceil((load.concurrency ?? 1) / 256) : Math.max(
    Math.ceil(load.rate / 2000),
    Math.ceil(load.rate * Math.max(1, load.outputTokensMean ?? 1) / EVENTS_PER_SHARD),
  );
  return Math.max(1, Math.min(byLoad, cores - 2, 32));
}

/**
 * Where the shards run: with at least one core per shard plus one for the main thread in this process's CPU set,
 * each shard thread (or process) is pinned to its own core, the last ones of the set; the main thread and the
 * token counters keep the rest.
 */
export function engineLayout(shards: number, asProcesses: boolean): {
  readonly cores?: readonly number[];
  readonly clientCores: string;
  readonly text: string;
} {
  const set = allowedCores() ?? Array.from({ length: navigator.hardwareConcurrency }, (_, i) => i);
  const kind = asProcesses ? "processes" : "Workers";
  const base = `${shards} shards (${kind}) on CPUs ${formatCpuList(set)}`;
  if (shards === 1 && !asProcesses) {
    return { clientCores: formatCpuList(set), text: `1 shard on the main thread, CPUs ${formatCpuList(set)}` };
  }
  if (shards < 2 || set.length < shards + 1) {
    return { clientCores: formatCpuList(set), text: `${base}, not pinned (fewer free cores than shards + 1)` };
  }
  const cores = set.slice(set.length - shards);
  return {
    cores,
    clientCores: formatCpuList(set),
    text: `${base}; shard k on CPU ${formatCpuList(cores)}[k], main thread on ${
      formatCpuList(set.slice(0, set.length - shards))
    }`,
  };
}

/** At most this many shard processes per core this process may use: beyond it they only compete for the cores. */
export const SHARD_PROCESSES_PER_CORE = 8;

/**
 * Refuses a process layout the machine cannot hold (a `--concurrency` of 1e12 would start millions of processes):
 * at most {@linkcode SHARD_PROCESSES_PER_CORE} per usable core (at least 16).
 * @throws {InputError} naming the count, the limits it comes from and the fix.
 */
export function checkShardProcesses(
  count: number,
  load: { readonly concurrency?: number; readonly perProcess: number },
  cores = allowedCores()?.length ?? navigator.hardwareConcurrency,
): void {
  const max = Math.max(16, cores * SHARD_PROCESSES_PER_CORE);
  if (count <= max) return;
  const per = Number.isFinite(load.perProcess)
    ? ` (each holds at most ${load.perProcess} connections under the ` +
      "open-file limit)"
    : "";
  throw new InputError(
    `--concurrency ${load.concurrency} needs ${count} shard processes${per}, more than this machine's ${cores} ` +
      `cores can run (at most ${max}); lower the concurrency, raise the open-file limit (ulimit -n), or spread the ` +
      "load over several machines (infermeter kube run).",
  );
}
