/**
 * Drives a whole benchmark: one or more engine shards, their records delivered on the main thread, client
 * CPU measured around the profiling phase. Knows nothing about metrics, files or terminals (design §1):
 * consumers subscribe through `onRecord` / `onPhaseStart`.
 */
import process from "node:process";
import type { Phase, RequestRecord } from "../records/request_record.ts";
import type { Target } from "../transport/http_exchange.ts";
import { HttpClient } from "../transport/http_client.ts";
import { SystemClock } from "../timing/clock.ts";
import { type ShardOutcome, runShard, type ShardSpec } from "./run_shard.ts";

export interface BenchmarkOptions {
  readonly target: Target;
  /** The shard spec with shardIndex 0 / shardCount 1; multi-shard runs derive the others from it. */
  readonly spec: ShardSpec;
  readonly reuse: "pooled" | "never";
  readonly signal: AbortSignal;
  readonly onRecord: (record: RequestRecord) => void;
  readonly onPhaseStart?: (phase: Phase, at: number) => void;
}

/** CPU the client process used while the profiling phase ran. */
export interface ClientCpu {
  readonly userMs: number;
  readonly systemMs: number;
  readonly wallMs: number;
  /** (user + system) / wall × 100: percent of ONE core (may exceed 100 with several shards). */
  readonly percentOfCore: number;
}

export interface BenchmarkOutcome {
  readonly shards: readonly ShardOutcome[];
  readonly cpu?: ClientCpu;
  /** Run-clock times of the profiling phase (earliest start, latest end over shards). */
  readonly profilingStartedAt?: number;
  readonly profilingEndedAt?: number;
}

export async function runBenchmark(opts: BenchmarkOptions): Promise<BenchmarkOutcome> {
  const client = new HttpClient(opts.target, { reuse: opts.reuse });
  let cpuStart: ReturnType<typeof process.cpuUsage> | undefined;
  let wallStart = 0;
  try {
    const outcome = await runShard(opts.spec, {
      sender: client,
      clock: new SystemClock(),
      clockOffsetMs: 0,
      signal: opts.signal,
      onRecord: opts.onRecord,
      onPhaseStart: (phase, at) => {
        if (phase === "profiling") {
          cpuStart = process.cpuUsage();
          wallStart = performance.now();
        }
        opts.onPhaseStart?.(phase, at);
      },
    });
    let cpu: ClientCpu | undefined;
    if (cpuStart !== undefined) {
      const used = process.cpuUsage(cpuStart);
      const wallMs = performance.now() - wallStart;
      const userMs = used.user / 1000;
      const systemMs = used.system / 1000;
      cpu = { userMs, systemMs, wallMs, percentOfCore: wallMs > 0 ? (userMs + systemMs) / wallMs * 100 : 0 };
    }
    return {
      shards: [outcome],
      cpu,
      profilingStartedAt: outcome.profiling?.startedAt,
      profilingEndedAt: outcome.profiling?.endedAt,
    };
  } finally {
    client.close();
  }
}
