/**
 * Runs one phase (warmup or profiling) of one shard: turns a LoadPlan into request launches.
 *
 * - Closed loop: `concurrency` slots; a finished request frees its slot and the next one is issued at once.
 * - Open loop: each request has an absolute due time `phaseStart + schedule.next()`; we sleep until it, then
 *   (with a concurrency cap) wait for a slot — "sleep then gate", no catch-up burst. The due time travels
 *   with the request as `scheduledAt`, so lateness is measured, not hidden.
 * - Stop conditions compose with either: request count (issue no more), duration (issue no more, then wait
 *   `gracePeriodMs` for in-flight requests and cancel the rest), and cancellation (Ctrl-C: stop issuing and
 *   cancel in-flight requests, which become records with `RequestCancellationError`).
 */
import type { Clock } from "../timing/clock.ts";
import { SlotGate } from "../timing/slot_gate.ts";
import { createArrivalSchedule } from "../timing/arrival_pattern.ts";
import type { ShardPlan } from "../timing/load_plan.ts";
import type { SeededRandom } from "../base/seeded_random.ts";
import { nextMacrotask } from "../runtime/next_macrotask.ts";
import type { YieldToIo } from "../runtime/io_yield.ts";

/**
 * Longest stretch of back-to-back request issuing before yielding to the event loop with `yieldToIo`, which lets
 * the thread's pending socket reads complete (runtime/io_yield.ts). When hundreds of streams finish together (a
 * batching server's decode step), a closed loop re-issues hundreds of requests at once; issuing them in one go
 * (~20–30 µs each, ~6 ms for 256 here) would hold up the socket reads, and so the timestamps, of the streams
 * still receiving their last tokens.
 */
const ISSUE_SLICE_MS = 1;

export interface LaunchMeta {
  /** Global request index within the phase. */
  readonly requestIndex: number;
  readonly creditIssuedAt: number;
  readonly scheduledAt?: number;
}

/** Sends one request and resolves when its record has been handed on. Must not reject. */
export type LaunchFn = (meta: LaunchMeta, signal: AbortSignal) => Promise<void>;

export interface PhaseRunOptions {
  readonly shard: ShardPlan;
  readonly clock: Clock;
  /** Arrival-time randomness (open loop). */
  readonly rng: SeededRandom;
  /** Aborted by Ctrl-C or a failure gate: stop issuing and cancel in-flight requests. */
  readonly signal: AbortSignal;
  readonly launch: LaunchFn;
  /** Awaited between issuing slices (see ISSUE_SLICE_MS). @default nextMacrotask */
  readonly yieldToIo?: YieldToIo;
}

export interface PhaseOutcome {
  readonly issued: number;
  readonly startedAt: number;
  readonly endedAt: number;
  /** Issuing stopped because the duration elapsed. */
  readonly durationReached: boolean;
  /** In-flight requests were cancelled (grace period over, or the run was cancelled). */
  readonly cancelledInFlight: number;
  readonly cancelled: boolean;
}

/**
 * Adds slots to `gate` so that `target` are open by `start + rampMs`: slot k (of target − 1 added) at
 * `start + k·rampMs/(target − 1)`, checked every ≥ 10 ms so a 20k-stream ramp is not 20k timers.
 */
async function rampUp(
  gate: SlotGate,
  target: number,
  start: number,
  rampMs: number,
  clock: Clock,
  signal: AbortSignal,
): Promise<void> {
  const steps = target - 1;
  let added = 0;
  while (added < steps && !signal.aborted) {
    const due = Math.min(steps, Math.floor((clock.now() - start) / rampMs * steps));
    for (; added < due; added++) gate.release();
    if (added >= steps) break;
    // Sleep until the next slot is due, but not less than 10 ms.
    const next = start + (added + 1) * rampMs / steps;
    await clock.sleepUntil(Math.max(next, clock.now() + 10), signal);
  }
}

export async function runPhase(opts: PhaseRunOptions): Promise<PhaseOutcome> {
  const { clock, launch } = opts;
  const yieldToIo = opts.yieldToIo ?? nextMacrotask;
  const { plan, firstIndex, indexStride } = opts.shard;
  const startedAt = clock.now();
  const deadline = plan.durationMs !== undefined ? startedAt + plan.durationMs : Infinity;
  const count = plan.requestCount ?? Infinity;

  // Aborting `stop` ends issuing; aborting `inflight` cancels requests already sent.
  const stop = new AbortController();
  const inflight = new AbortController();
  const onCancel = () => {
    stop.abort();
    inflight.abort();
  };
  if (opts.signal.aborted) onCancel();
  opts.signal.addEventListener("abort", onCancel, { once: true });

  const ramping = plan.mode === "closed" && (plan.concurrencyRampMs ?? 0) > 0 && (plan.concurrency ?? 1) > 1;
  const gate = plan.concurrency !== undefined ? new SlotGate(ramping ? 1 : plan.concurrency) : undefined;
  if (ramping) rampUp(gate!, plan.concurrency!, startedAt, plan.concurrencyRampMs!, clock, stop.signal);
  let durationReached = false;
  if (deadline !== Infinity) {
    clock.sleepUntil(deadline, stop.signal).then(() => {
      if (!stop.signal.aborted) {
        durationReached = true;
        stop.abort();
      }
    });
  }
  stop.signal.addEventListener("abort", () => gate?.close(), { once: true });

  const running = new Set<Promise<void>>();
  let issued = 0;
  const schedule = plan.mode === "open"
    ? createArrivalSchedule({
      pattern: plan.pattern ?? "poisson",
      rate: plan.rate!,
      smoothness: plan.smoothness,
      shardIndex: opts.shard.shardIndex,
      shardCount: opts.shard.shardCount,
    }, opts.rng)
    : undefined;

  // Issuing in slices: see ISSUE_SLICE_MS.
  let sliceStart = -Infinity;
  let lastIssueAt = -Infinity;
  while (issued < count && !stop.signal.aborted) {
    let scheduledAt: number | undefined;
    if (schedule) {
      scheduledAt = startedAt + schedule.next();
      if (scheduledAt >= deadline) break;
      await clock.sleepUntil(scheduledAt, stop.signal);
      if (stop.signal.aborted) break;
    }
    if (gate && !(await gate.acquire())) break;
    const now = performance.now();
    if (now - lastIssueAt > ISSUE_SLICE_MS) {
      sliceStart = now; // the loop was idle: a new burst starts
    } else if (now - sliceStart > ISSUE_SLICE_MS) {
      await yieldToIo();
      sliceStart = performance.now();
      if (stop.signal.aborted) {
        gate?.release();
        break;
      }
    }
    lastIssueAt = now;
    if (stop.signal.aborted) {
      gate?.release();
      break;
    }
    const meta: LaunchMeta = {
      requestIndex: firstIndex + issued * indexStride,
      creditIssuedAt: scheduledAt ?? clock.now(),
      scheduledAt,
    };
    issued++;
    const p: Promise<void> = launch(meta, inflight.signal).finally(() => {
      running.delete(p);
      gate?.release();
    });
    running.add(p);
  }

  let cancelledInFlight = 0;
  if (running.size > 0) {
    if (opts.signal.aborted) {
      cancelledInFlight = running.size;
    } else if (durationReached && plan.gracePeriodMs !== Infinity) {
      // Wait for stragglers until the grace period ends, then cancel what is left.
      const graceEnd = deadline + plan.gracePeriodMs;
      const graceOver = new AbortController();
      const all = Promise.all(running).then(() => graceOver.abort());
      await clock.sleepUntil(graceEnd, graceOver.signal);
      if (running.size > 0) {
        cancelledInFlight = running.size;
        inflight.abort();
      }
      await all;
    }
    await Promise.all(running);
  }
  opts.signal.removeEventListener("abort", onCancel);
  stop.abort(); // ends the duration sleeper if it is still pending
  return {
    issued,
    startedAt,
    endedAt: clock.now(),
    durationReached,
    cancelledInFlight,
    cancelled: opts.signal.aborted,
  };
}
