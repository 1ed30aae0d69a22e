/** How many engine shards a run gets and where they run: threads or processes, pinned to cores where there are enough. */
import { allowedCores, formatCpuList } from "../runtime/thread_affinity.ts";

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

/** What bounds the number of shard processes on this machine. */
export interface ShardMachine {
  /** Cores this process may use (its affinity set). */
  readonly cores: number;
  /** This process's open-file limit (soft): each child holds three pipes here (stdin, stdout, stderr). */
  readonly fdLimit: number;
}

/** Shard processes per core at most: more would only queue on the cores and skew every timestamp. */
export const SHARD_PROCESSES_PER_CORE = 4;
/** Shard processes of one run at most, whatever the machine. */
export const MAX_SHARD_PROCESSES = 256;

/**
 * The most `infermeter shard` processes one run may start here: {@link SHARD_PROCESSES_PER_CORE} per core, within
 * the parent's open-file limit (three pipes per child beside {@link FD_RESERVE}), and at most
 * {@link MAX_SHARD_PROCESSES}; at least 1.
 */
export function maxShardProcesses(machine: ShardMachine): number {
  const byCores = machine.cores * SHARD_PROCESSES_PER_CORE;
  const byFds = Math.floor((machine.fdLimit - FD_RESERVE) / 3);
  return Math.max(1, Math.min(byCores, byFds, MAX_SHARD_PROCESSES));
}

/**
 * Why a run cannot use `shards` processes of `perProcess` connections each on `machine`, or undefined: the input
 * error (exit 2) to give before any process is started.
 */
export function shardProcessProblem(
  run: { readonly shards: number; readonly concurrency?: number; readonly perProcess?: number },
  machine: ShardMachine,
): string | undefined {
  const most = maxShardProcesses(machine);
  if (run.shards <= most) return undefined;
  const need = run.concurrency !== undefined && run.perProcess !== undefined && Number.isFinite(run.perProcess)
    ? `--concurrency ${run.concurrency.toLocaleString("en-US")} needs ${run.shards.toLocaleString("en-US")} shard ` +
      `processes of ${run.perProcess.toLocaleString("en-US")} connections each`
    : `${run.shards.toLocaleString("en-US")} shard processes were asked for`;
  return `${need}, but this machine runs at most ${most} (${SHARD_PROCESSES_PER_CORE} per core on ${machine.cores} ` +
    `core${machine.cores === 1 ? "" : "s"}, 3 pipes each within the open-file limit of ` +
    `${machine.fdLimit.toLocaleString("en-US")}, ${MAX_SHARD_PROCESSES} in all); raise the open-file limit ` +
    "(ulimit -n), lower --concurrency or --workers, or spread the run over machines (infermeter kube).";
}
