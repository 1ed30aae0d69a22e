/**
 * The pure half of the `--workers` scaling bench (workers_scaling.ts): how the machine's cores are split between
 * the near-free servers and the client, and how the runs are summarized into speed-ups.
 */
import { computeStats } from "../../src/metrics/stats.ts";

export interface ScalingLayout {
  /** One core per server process, from the end of the allowed list. */
  readonly serverCores: readonly number[];
  /** The client's `taskset` list. */
  readonly clientCores: readonly number[];
  /** The client also runs on the servers' cores (too few cores to keep them apart). */
  readonly shared: boolean;
  readonly note: string;
}

/**
 * Servers get one core per 4 engine threads of the largest run (at least 1), from the end of the allowed list; the
 * client gets the rest when that leaves it a core per engine thread, else every allowed core, shared.
 */
export function scalingLayout(allowed: readonly number[], maxWorkers: number): ScalingLayout {
  const servers = Math.max(1, Math.min(Math.ceil(maxWorkers / 4), allowed.length - 1));
  const serverCores = allowed.slice(allowed.length - servers);
  const rest = allowed.slice(0, allowed.length - servers);
  const shared = rest.length < maxWorkers;
  const clientCores = shared ? [...allowed] : rest;
  const note = shared
    ? `client on cores ${clientCores.join(",")}, sharing them with ${servers} server(s) on ${serverCores.join(",")}: ` +
      `fewer than ${maxWorkers} cores are free, so this measures what the engine threads get from shared cores`
    : `${servers} server(s) on cores ${serverCores.join(",")}, client on ${clientCores.length} free cores ` +
      `(${clientCores.join(",")})`;
  return { serverCores, clientCores, shared, note };
}

export interface ScalingRun {
  readonly workers: number;
  readonly tokensPerSec: number;
  /** Client CPU over the profiling phase, % of one core. */
  readonly clientCpuPercent: number;
  readonly serverCpuPercent: number;
  readonly requests: number;
  readonly errors: number;
}

export interface ScalingRow {
  readonly workers: number;
  readonly runs: number;
  /** Medians over the runs of this `--workers`. */
  readonly tokensPerSec: number;
  readonly clientCpuPercent: number;
  readonly serverCpuPercent: number;
  /** Median tokens/s ÷ that of the smallest `--workers` measured. */
  readonly speedup: number;
  /** Tokens per client CPU-second, ÷ that of the smallest `--workers`: how much sharding costs per core used. */
  readonly efficiency: number;
  readonly errors: number;
}

/** The middle value (the mean of the two middle ones for an even count). */
function median(values: readonly number[]): number {
  return computeStats(values)!.p50;
}

export function summarizeScaling(runs: readonly ScalingRun[]): ScalingRow[] {
  const counts = [...new Set(runs.map((r) => r.workers))].sort((a, b) => a - b);
  const rows = counts.map((workers) => {
    const of = runs.filter((r) => r.workers === workers);
    return {
      workers,
      runs: of.length,
      tokensPerSec: median(of.map((r) => r.tokensPerSec)),
      clientCpuPercent: median(of.map((r) => r.clientCpuPercent)),
      serverCpuPercent: median(of.map((r) => r.serverCpuPercent)),
      errors: of.reduce((n, r) => n + r.errors, 0),
    };
  });
  const base = rows[0];
  const perCpu = (r: { tokensPerSec: number; clientCpuPercent: number }) => r.tokensPerSec / r.clientCpuPercent;
  return rows.map((r) => ({
    ...r,
    speedup: base ? r.tokensPerSec / base.tokensPerSec : NaN,
    efficiency: base ? perCpu(r) / perCpu(base) : NaN,
  }));
}
