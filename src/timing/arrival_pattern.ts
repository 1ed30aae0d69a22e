/**
 * Inter-arrival gaps of open-loop request-rate schedules (AIPerf `--arrival-pattern`, vLLM `--burstiness`).
 *
 * - constant: gap = 1/rate exactly.
 * - poisson: gap ~ Exponential(mean 1/rate) — a true renewal process, not a jittered grid (AIPerf checklist 9).
 * - gamma: gap ~ Gamma(shape k = smoothness, scale 1/(rate·k)), mean 1/rate; k = 1 is Poisson, k < 1 burstier,
 *   k > 1 smoother (vLLM-compatible burstiness).
 *
 * Sharding: shard i of S generates an independent stream at rate r/S. The superposition of S Poisson streams
 * is Poisson(r); constant streams are phase-shifted so the union is the exact single-stream grid.
 */
import type { SeededRandom } from "../base/seeded_random.ts";

export type OpenLoopPattern = "constant" | "poisson" | "gamma";

export interface ArrivalOptions {
  readonly pattern: OpenLoopPattern;
  /** Requests per second across all shards. */
  readonly rate: number;
  /** Gamma shape; required for `gamma`. */
  readonly smoothness?: number;
  /** @default 0 */
  readonly shardIndex?: number;
  /** @default 1 */
  readonly shardCount?: number;
}

/** Absolute send times (ms from phase start) of successive requests, computed without accumulating drift. */
export interface ArrivalSchedule {
  /** Send time of the next request, ms after the phase start. */
  next(): number;
}

export function createArrivalSchedule(opts: ArrivalOptions, rng: SeededRandom): ArrivalSchedule {
  if (!(opts.rate > 0) || !Number.isFinite(opts.rate)) {
    throw new RangeError(`request rate must be a positive number, got ${opts.rate}`);
  }
  const shards = opts.shardCount ?? 1;
  const shard = opts.shardIndex ?? 0;
  const meanGapMs = 1000 / opts.rate;
  switch (opts.pattern) {
    case "constant": {
      // Request j of this shard is global request shard + j·shards: t = that index × gap (multiplication,
      // not repeated addition, so float error never accumulates).
      let j = 0;
      return { next: () => (shard + shards * j++) * meanGapMs };
    }
    case "poisson":
      return renewal(shard, () => rng.exponential(meanGapMs * shards));
    case "gamma": {
      const k = opts.smoothness;
      if (!(k !== undefined && k > 0)) throw new RangeError(`gamma arrivals need a smoothness > 0, got ${k}`);
      const mean = meanGapMs * shards;
      return renewal(shard, () => rng.gamma(k, mean / k));
    }
  }
}

/**
 * A renewal process: independent gaps from `gap()`, summed. Shard 0's first request goes at t = 0 like
 * AIPerf's; other shards start one gap in, so the merged stream has no burst at t = 0.
 */
function renewal(shard: number, gap: () => number): ArrivalSchedule {
  let t = 0;
  let first = shard === 0;
  return {
    next: () => {
      if (first) {
        first = false;
        return 0;
      }
      t += gap();
      return t;
    },
  };
}
