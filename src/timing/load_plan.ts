/**
 * What load a phase applies, resolved once from the config (AIPerf's priority: request rate > concurrency),
 * and how it splits across engine shards. Timing (closed loop vs open loop) and stopping (count, duration)
 * are independent parts, combined by the phase runner.
 */
import type { OpenLoopPattern } from "./arrival_pattern.ts";

export interface LoadPlan {
  /** closed: keep `concurrency` requests in flight; open: send on a rate schedule (optionally capped). */
  readonly mode: "closed" | "open";
  /** Max requests in flight (closed: exactly this many; open: a cap, undefined = none). */
  readonly concurrency?: number;
  readonly rate?: number;
  readonly pattern?: OpenLoopPattern;
  readonly smoothness?: number;
  /** Stop issuing after this many requests. */
  readonly requestCount?: number;
  /** Stop issuing after this many ms. */
  readonly durationMs?: number;
  /** After the duration, wait this long for in-flight requests before cancelling them. */
  readonly gracePeriodMs: number;
  /**
   * Closed loop: grow the concurrency from 1 to `concurrency` in even steps over this many ms (AIPerf
   * `--concurrency-ramp-duration`), instead of opening every stream at once.
   */
  readonly concurrencyRampMs?: number;
}

/** Split `total` into `parts` integers that differ by at most one, larger ones first. */
export function splitEvenly(total: number, parts: number): number[] {
  const base = Math.floor(total / parts);
  const extra = total - base * parts;
  return Array.from({ length: parts }, (_, i) => base + (i < extra ? 1 : 0));
}

export interface ShardPlan {
  readonly plan: LoadPlan;
  /** Global index of this shard's first request; the shard owns [firstIndex, firstIndex + requestCount). */
  readonly firstIndex: number;
  /** Index stride between this shard's consecutive requests (1 for blocks, shardCount when interleaved). */
  readonly indexStride: number;
  readonly shardIndex: number;
  readonly shardCount: number;
}

/**
 * The part of `plan` that shard `i` of `n` runs. Closed loop: concurrency and request count split in the
 * same proportion so shards finish together; each shard owns a contiguous block of request indices.
 * Open loop: the count splits evenly and `plan.rate` stays the GLOBAL rate (the arrival schedule derives
 * the shard's stream from it); indices interleave (global index = i + n·j) like the constant-rate grid.
 */
export function shardPlan(plan: LoadPlan, i: number, n: number): ShardPlan {
  if (n === 1) return { plan, firstIndex: 0, indexStride: 1, shardIndex: 0, shardCount: 1 };
  if (plan.mode === "closed") {
    const conc = splitEvenly(plan.concurrency ?? 1, n);
    let requestCount: number | undefined;
    let firstIndex = 0;
    if (plan.requestCount !== undefined) {
      const total = plan.concurrency ?? 1;
      // Proportional to this shard's concurrency; the last shard takes the rounding remainder.
      const counts = conc.map((c) => Math.floor(plan.requestCount! * c / total));
      counts[n - 1] += plan.requestCount - counts.reduce((a, b) => a + b, 0);
      requestCount = counts[i];
      firstIndex = counts.slice(0, i).reduce((a, b) => a + b, 0);
    }
    return {
      plan: { ...plan, concurrency: conc[i], requestCount },
      firstIndex,
      indexStride: 1,
      shardIndex: i,
      shardCount: n,
    };
  }
  const requestCount = plan.requestCount !== undefined ? splitEvenly(plan.requestCount, n)[i] : undefined;
  const concurrency = plan.concurrency !== undefined ? Math.max(1, splitEvenly(plan.concurrency, n)[i]) : undefined;
  return {
    plan: { ...plan, requestCount, concurrency },
    firstIndex: i,
    indexStride: n,
    shardIndex: i,
    shardCount: n,
  };
}
