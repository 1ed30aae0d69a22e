/**
 * A phase of a run (warmup, then profiling) as plain data: its load strategy and its stop conditions. Data, because
 * it crosses to engine Workers; each shard takes its part with `shardPhase`.
 */
import type { LoadStrategyEntry, StrategySpec } from "./load_strategy.ts";
import type { Registry } from "../base/registry.ts";
import { LOAD_STRATEGIES } from "./load_strategies.ts";
import type { StopSpec } from "./stop_conditions.ts";
import { splitEvenly } from "./split_evenly.ts";

export type PhaseName = "warmup" | "profiling";

export interface PhaseSpec {
  readonly name: PhaseName;
  readonly strategy: StrategySpec;
  readonly stops: StopSpec;
  /** Requests the phase is expected to send when no request count says it (for progress displays). */
  readonly expectedRequests?: number;
  /** Most requests still waiting for their first response (AIPerf `--prefill-concurrency`); undefined = no limit. */
  readonly prefillConcurrency?: number;
  /** Grow the prefill limit from 1 over this many ms (`--prefill-concurrency-ramp-duration`). */
  readonly prefillRampMs?: number;
  /** Cancel this share of requests after they are sent (`--request-cancellation-rate/-delay`). */
  readonly cancellation?: CancellationSpec;
  /** The grace period runs from the end of sending, not only from a duration's end (agentic replay's warm-up). */
  readonly graceAfterSending?: boolean;
  /** A failed or cancelled request of this phase stops the run before the next phase (agentic replay's warm-up). */
  readonly mustSucceed?: boolean;
}

/** Request cancellation (AIPerf): each request is cancelled with probability `percent`/100, `delayMs` after it is sent. */
export interface CancellationSpec {
  readonly percent: number;
  readonly delayMs: number;
}

/** One shard's part of a phase. */
export interface ShardPhase {
  /** The shard's strategy options and budgets. */
  readonly spec: PhaseSpec;
  /** Global index where the shard's sessions and requests start; the shard's k-th one is `firstIndex + k·indexStride`. */
  readonly firstIndex: number;
  readonly indexStride: number;
  readonly shardIndex: number;
  readonly shardCount: number;
}

/**
 * The part of `phase` that shard `i` of `n` runs: the strategy splits its own options and gives each shard a
 * weight; request and session budgets split in proportion to the weights. Blocks (closed loop): each shard owns a
 * contiguous block of indices, the last shard taking the rounding remainder; interleaved (open loop, trace
 * replay) — or blocks without a request budget to size them — shard i numbers i, i + n, ….
 */
export function shardPhase(
  phase: PhaseSpec,
  i: number,
  n: number,
  strategies: Registry<LoadStrategyEntry> = LOAD_STRATEGIES,
): ShardPhase {
  if (n === 1) return { spec: phase, firstIndex: 0, indexStride: 1, shardIndex: 0, shardCount: 1 };
  const entry = strategies.get(phase.strategy.name);
  const shares = Array.from({ length: n }, (_, j) => entry.split(phase.strategy.options, j, n));
  const weights = shares.map((s) => s.weight);
  const layout = shares[i].layout;
  const split = (total: number | undefined): number[] | undefined =>
    total === undefined
      ? undefined
      : layout === "blocks"
      ? splitRemainderLast(total, weights)
      : splitByWeight(total, weights);
  const requests = split(phase.stops.requestCount);
  const sessions = split(phase.stops.sessionCount);
  const stops: StopSpec = {
    ...phase.stops,
    ...(requests === undefined ? {} : { requestCount: requests[i] }),
    ...(sessions === undefined ? {} : { sessionCount: sessions[i] }),
  };
  const prefillConcurrency = phase.prefillConcurrency === undefined
    ? undefined
    : Math.max(1, splitEvenly(phase.prefillConcurrency, n)[i]);
  const spec: PhaseSpec = {
    ...phase,
    strategy: { name: phase.strategy.name, options: shares[i].options },
    stops,
    ...(prefillConcurrency === undefined ? {} : { prefillConcurrency }),
  };
  if (layout === "blocks" && requests !== undefined) {
    const firstIndex = requests.slice(0, i).reduce((a, b) => a + b, 0);
    return { spec, firstIndex, indexStride: 1, shardIndex: i, shardCount: n };
  }
  return { spec, firstIndex: i, indexStride: n, shardIndex: i, shardCount: n };
}

/** `total` in proportion to `weights`: floors, the last part taking the remainder. */
function splitRemainderLast(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const parts = weights.map((w) => sum > 0 ? Math.floor(total * w / sum) : 0);
  parts[parts.length - 1] += total - parts.reduce((a, b) => a + b, 0);
  return parts;
}

/** `total` in proportion to `weights`: floors, the remainder one each to the first parts (even weights: even split). */
function splitByWeight(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (weights.every((w) => w === weights[0])) return splitEvenly(total, weights.length);
  const parts = weights.map((w) => sum > 0 ? Math.floor(total * w / sum) : 0);
  let left = total - parts.reduce((a, b) => a + b, 0);
  for (let j = 0; left > 0; j = (j + 1) % parts.length) {
    if (weights[j] > 0 || sum === 0) {
      parts[j]++;
      left--;
    }
  }
  return parts;
}

/** The most sessions a phase keeps in flight, when its strategy limits them (closed loop, or a cap). */
export function phaseConcurrency(phase: PhaseSpec): number | undefined {
  const options = phase.strategy.options as { readonly concurrency?: unknown };
  return typeof options?.concurrency === "number" ? options.concurrency : undefined;
}

/** The phase's request rate, when its strategy is paced by one. */
export function phaseRate(phase: PhaseSpec): number | undefined {
  const options = phase.strategy.options as { readonly rate?: unknown };
  return typeof options?.rate === "number" ? options.rate : undefined;
}
