/**
 * One engine shard: its own connections and event loop, running the warmup phase (if any) and then the
 * profiling phase over its share of the load, handing every finished request on as a RequestRecord.
 *
 * A single-shard run executes this on the main thread; `--workers N` runs N of these in Deno Workers
 * (engine/shard_worker.ts) with the same ShardSpec, which is why the spec is plain cloneable data.
 */
import { SeededRandom } from "../base/seeded_random.ts";
import { createSampler } from "../dataset/dataset_sampler.ts";
import type { SamplingStrategy } from "../dataset/conversation.ts";
import type { EndpointType } from "../endpoints/endpoint_adapter.ts";
import { ENDPOINTS } from "../endpoints/endpoint_registry.ts";
import type { Phase, RequestRecord } from "../records/request_record.ts";
import type { Clock } from "../timing/clock.ts";
import { type LoadPlan, shardPlan } from "../timing/load_plan.ts";
import type { PreparedEntry } from "./prepared_entry.ts";
import { executeRequest, type ExecutorContext, type RequestSender } from "./request_executor.ts";
import { type PhaseOutcome, runPhase } from "./phase_runner.ts";
import { warmUpHotPath } from "./warm_up.ts";
import type { YieldToIo } from "../runtime/io_yield.ts";
import { SystemClock } from "../timing/clock.ts";
import { WakeThread } from "../timing/wake_thread.ts";

export interface ShardSpec {
  readonly workerId: string;
  readonly shardIndex: number;
  readonly shardCount: number;
  readonly endpointType: EndpointType;
  readonly path: string;
  /** The path came from `--endpoint` (never rewritten per target). */
  readonly explicitEndpoint: boolean;
  /** Keep raw response payloads on records (`--export-level raw`). */
  readonly keepRaw?: boolean;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly timeoutMs: number;
  readonly entries: readonly PreparedEntry[];
  readonly sampling: SamplingStrategy;
  readonly seed: number;
  readonly warmup?: LoadPlan;
  readonly profiling: LoadPlan;
}

export interface ShardDeps {
  readonly sender: RequestSender;
  readonly clock: Clock;
  /** Offset from this thread's `performance.now()` to the run clock (0 on the main thread). */
  readonly clockOffsetMs: number;
  readonly signal: AbortSignal;
  readonly onRecord: (record: RequestRecord) => void;
  readonly onPhaseStart?: (phase: Phase, at: number) => void;
  /** Awaited between issuing slices; lets this thread's socket reads in (runtime/io_yield.ts). */
  readonly yieldToIo?: YieldToIo;
}

export interface ShardOutcome {
  readonly warmup?: PhaseOutcome;
  readonly profiling?: PhaseOutcome;
}

export async function runShard(spec: ShardSpec, deps: ShardDeps): Promise<ShardOutcome> {
  const adapter = ENDPOINTS.get(spec.endpointType);
  const rng = new SeededRandom(spec.seed);
  // Every shard builds the same sampler, so request k maps to the same entry whichever shard sends it.
  const sampler = createSampler(spec.sampling, spec.entries.length, rng.derive("dataset-sampling"));
  const arrivals = rng.derive(`arrivals-${spec.shardIndex}`);
  const warmupCount = spec.warmup?.requestCount ?? 0;
  warmUpHotPath(adapter);

  const run = (phase: Phase, plan: LoadPlan, indexOffset: number): Promise<PhaseOutcome> => {
    const ctx: ExecutorContext = {
      sender: deps.sender,
      adapter,
      path: spec.path,
      headers: spec.headers,
      timeoutMs: spec.timeoutMs,
      clockOffsetMs: deps.clockOffsetMs,
      workerId: spec.workerId,
      phase,
      keepRaw: spec.keepRaw,
    };
    deps.onPhaseStart?.(phase, deps.clock.now());
    return runPhase({
      shard: shardPlan(plan, spec.shardIndex, spec.shardCount),
      clock: deps.clock,
      rng: arrivals.derive(phase),
      signal: deps.signal,
      yieldToIo: deps.yieldToIo,
      launch: async (meta, signal) => {
        const entry = spec.entries[sampler.indexAt(indexOffset + meta.requestIndex)];
        const record = await executeRequest(ctx, entry, {
          requestIndex: meta.requestIndex,
          sessionNum: meta.requestIndex,
          xCorrelationId: crypto.randomUUID(),
          creditIssuedAt: meta.creditIssuedAt,
          scheduledAt: meta.scheduledAt,
        }, signal);
        deps.onRecord(record);
      },
    });
  };

  const warmup = spec.warmup ? await run("warmup", spec.warmup, 0) : undefined;
  if (deps.signal.aborted) return { warmup };
  const profiling = await run("profiling", spec.profiling, warmupCount);
  return { warmup, profiling };
}

/**
 * The clock of a shard's thread: its sleeps poll their last stretch on `yieldToIo` (the thread's `IoYield`), and
 * in open loop they wait on a wake thread rather than polling (timing/wake_thread.ts). `close()` when the shard ends.
 */
export function shardClock(
  spec: ShardSpec,
  offsetMs: number,
  yieldToIo: YieldToIo,
): { readonly clock: SystemClock; close(): void } {
  const open = spec.profiling.mode === "open" || spec.warmup?.mode === "open";
  const wake = open ? new WakeThread() : undefined;
  return { clock: new SystemClock(offsetMs, yieldToIo, wake), close: () => wake?.close() };
}
