/**
 * Drives a whole benchmark: one or more engine shards, their records delivered on the main thread, client
 * CPU measured around the profiling phase. Knows nothing about metrics, files or terminals (design §1):
 * consumers subscribe through `onRecord` / `onPhaseStart`.
 *
 * One shard runs on the main thread (no messaging at all). With `shards > 1` every shard runs in its own
 * Worker (own event loop and connections, on its own core), and the main thread only receives record
 * batches — the measured timestamps are taken in the shards, so main-thread work never delays them.
 */
import type { Phase, RequestRecord } from "../records/request_record.ts";
import type { Target } from "../transport/http_exchange.ts";
import { CONNECT_TIMEOUT_MS, TargetSet } from "./target_set.ts";
import { IoYield } from "../runtime/io_yield.ts";
import { type CpuTime, cpuTimeReader } from "../runtime/cpu_time.ts";
import { runShard, shardClock, type ShardOutcome, type ShardSpec } from "./run_shard.ts";
import { workerLink } from "./shard_worker.ts";
import { coordinateShards, type LostShard } from "./coordinate_shards.ts";
import type { TransportActivity } from "../transport/http_client.ts";
import { StallDetector } from "../transport/stall_detector.ts";

export interface BenchmarkOptions {
  /** Where requests go; several = round robin (target_set.ts). */
  readonly targets: readonly Target[];
  /** The shard spec with shardIndex 0 / shardCount 1; multi-shard runs derive the others from it. */
  readonly spec: ShardSpec;
  /** Engine shards. @default 1 */
  readonly shards?: number;
  /** With several shards: the CPU each shard's Worker pins its thread to (shard k: cores[k % length]). */
  readonly cores?: readonly number[];
  readonly reuse: "pooled" | "never";
  /** Per-connection read buffer (smaller for tens of thousands of connections). @default 65536 */
  readonly readBufferBytes?: number;
  /** Keep a second read posted per connection (HttpClientOptions.pipelinedReads). @default true */
  readonly pipelinedReads?: boolean;
  readonly signal: AbortSignal;
  readonly onRecord: (record: RequestRecord) => void;
  readonly onPhaseStart?: (phase: Phase, at: number) => void;
  /**
   * This thread's I/O yield, shared with the caller's own slicing (record hand-on); the in-process shard polls
   * its precise sleeps and issuing slices on it. Without one, the shard opens and closes its own.
   */
  readonly ioYield?: IoYield;
  /**
   * Told once per stall when a target has requests in flight and no response byte arrived for `stallNoticeMs`
   * (transport/stall_detector.ts); without it nothing is watched.
   */
  readonly onStall?: (notice: string) => void;
  /** @default 30000 */
  readonly stallNoticeMs?: number;
  /** Given, before anything is sent, a reader of what every shard's requests are doing (live displays). */
  readonly onActivity?: (read: () => readonly TransportActivity[]) => void;
}

/** CPU the client process (all threads) used while the profiling phase ran. */
export interface ClientCpu {
  readonly userMs: number;
  readonly systemMs: number;
  readonly wallMs: number;
  /** (user + system) / wall × 100: percent of ONE core (exceeds 100 with several shards). */
  readonly percentOfCore: number;
  /** The same divided by the shard count: how busy each engine thread was, on average. */
  readonly percentPerShard: number;
}

/** A shard that ran as a process of its own. */
export interface ShardProcessInfo {
  readonly pid: number;
  readonly peakRssBytes: number;
  /** How late after the agreed start time it began sending (ms). */
  readonly startLatenessMs?: number;
}

export interface BenchmarkOutcome {
  /** The outcomes of the shards that ran to their end. */
  readonly shards: readonly ShardOutcome[];
  /** How many shards the run had. @default shards.length */
  readonly shardCount?: number;
  /**
   * Shards that did not run to their end (killed, failed, stopped by a signal): what they measured before is
   * merged, and the run is partial — it carries less load than asked for. Empty or absent: none.
   */
  readonly lostShards?: readonly LostShard[];
  /** Per pinned shard: "CPU n" or why it could not be pinned (Workers only; empty when none was asked). */
  readonly pinning?: readonly string[];
  /** Shards that ran as processes (`infermeter shard`), in shard order. */
  readonly processes?: readonly ShardProcessInfo[];
  readonly cpu?: ClientCpu;
  /** Run-clock times of the profiling phase (earliest start, latest end over shards). */
  readonly profilingStartedAt?: number;
  readonly profilingEndedAt?: number;
}

export async function runBenchmark(opts: BenchmarkOptions): Promise<BenchmarkOutcome> {
  const shards = Math.max(1, opts.shards ?? 1);
  const cpu = new CpuMeter(await cpuTimeReader());
  const started = new Set<Phase>();
  const onPhaseStart = (phase: Phase, at: number) => {
    if (started.has(phase)) return; // every shard reports it; the first one marks the phase start
    started.add(phase);
    if (phase === "profiling") cpu.start();
    opts.onPhaseStart?.(phase, at);
  };
  // What each shard's requests are doing: the in-process one is read directly, Workers report once a second.
  const activity: (() => readonly TransportActivity[])[] = [];
  const detector = new StallDetector(opts.stallNoticeMs ?? 30_000);
  opts.onActivity?.(() => activity.flatMap((read) => read()));
  const watch = opts.onStall === undefined ? undefined : setInterval(() => {
    for (const notice of detector.check(performance.now(), activity.flatMap((read) => read()))) opts.onStall!(notice);
  }, 1000);
  let outcomes: readonly ShardOutcome[];
  let pinning: readonly string[] = [];
  let lost: readonly LostShard[] = [];
  try {
    if (shards === 1) outcomes = [await runInProcess(opts, onPhaseStart, (read) => activity.push(read))];
    else {
      const merged = await coordinateShards({
        links: Array.from({ length: shards }, (_, i) =>
          workerLink({
            index: i,
            of: shards,
            clockOriginMs: performance.timeOrigin,
            startAt: { kind: "now" },
            core: opts.cores?.length ? opts.cores[i % opts.cores.length] : undefined,
            setup: {
              spec: { ...opts.spec, shardIndex: i, shardCount: shards, workerId: `worker_${i}` },
              targets: opts.targets,
              reuse: opts.reuse,
              readBufferBytes: opts.readBufferBytes,
              pipelinedReads: opts.pipelinedReads,
            },
          })),
        timeOriginMs: performance.timeOrigin,
        signal: opts.signal,
        onRecord: opts.onRecord,
        onPhaseStart,
        onActivity: (read) => activity.push(read),
      });
      outcomes = merged.outcomes;
      pinning = merged.pinning;
      lost = merged.lost;
    }
  } finally {
    clearInterval(watch);
  }
  const profiling = outcomes.map((o) => o.profiling).filter((p) => p !== undefined);
  return {
    shards: outcomes,
    shardCount: shards,
    lostShards: lost,
    pinning,
    cpu: cpu.stop(shards),
    profilingStartedAt: profiling.length ? Math.min(...profiling.map((p) => p.startedAt)) : undefined,
    profilingEndedAt: profiling.length ? Math.max(...profiling.map((p) => p.endedAt)) : undefined,
  };
}

type ActivitySource = (read: () => readonly TransportActivity[]) => void;

async function runInProcess(
  opts: BenchmarkOptions,
  onPhaseStart: (phase: Phase, at: number) => void,
  watchActivity: ActivitySource,
): Promise<ShardOutcome> {
  // Connection setup is bounded by the request timeout, as in AIPerf, and by CONNECT_TIMEOUT_MS: a server slow
  // to accept shows up as a long TTFT, one that never completes a connection as ConnectTimeoutError.
  const client = new TargetSet(opts.targets, {
    reuse: opts.reuse,
    readBufferBytes: opts.readBufferBytes,
    pipelinedReads: opts.pipelinedReads,
    connectTimeoutMs: Math.min(opts.spec.timeoutMs, CONNECT_TIMEOUT_MS),
    maxResponseBytes: opts.spec.maxResponseBytes,
  }, opts.spec.explicitEndpoint);
  watchActivity(() => client.activity());
  const io = opts.ioYield ?? new IoYield();
  const timing = shardClock(opts.spec, 0, io.wait);
  try {
    return await runShard(opts.spec, {
      sender: client,
      clock: timing.clock,
      clockOffsetMs: 0,
      signal: opts.signal,
      onRecord: opts.onRecord,
      onPhaseStart,
      yieldToIo: io.wait,
    });
  } finally {
    client.close();
    timing.close();
    if (opts.ioYield === undefined) io.close();
  }
}

/** Process CPU (all threads) between start() and stop(). */
class CpuMeter {
  readonly #read: () => CpuTime;
  #cpu: CpuTime | undefined;
  #wall = 0;
  constructor(read: () => CpuTime) {
    this.#read = read;
  }
  start(): void {
    this.#cpu = this.#read();
    this.#wall = performance.now();
  }
  stop(shards: number): ClientCpu | undefined {
    if (this.#cpu === undefined) return undefined;
    const now = this.#read();
    const wallMs = performance.now() - this.#wall;
    const userMs = now.userMs - this.#cpu.userMs;
    const systemMs = now.systemMs - this.#cpu.systemMs;
    const percentOfCore = wallMs > 0 ? (userMs + systemMs) / wallMs * 100 : 0;
    return { userMs, systemMs, wallMs, percentOfCore, percentPerShard: percentOfCore / shards };
  }
}
