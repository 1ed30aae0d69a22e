/**
 * Open loop (AIPerf `--request-rate`): send opportunities at absolute due times `phaseStart + schedule.next()` from
 * the arrival pattern (constant, Poisson, gamma), so a late wake-up never shifts later sends and lateness is
 * recorded per request. With a concurrency cap, a new session first sleeps to its due time and then waits for a
 * slot ("sleep then gate"; no catch-up burst is scheduled). With a ramp, the rate rises from a small start to the
 * target first (timing/rate_ramp.ts).
 */
import { createArrivalSchedule, type OpenLoopPattern } from "./arrival_pattern.ts";
import type { ArrivalSchedule } from "./arrival_pattern.ts";
import { SessionCap } from "./session_cap.ts";
import { RampTimeMap } from "./rate_ramp.ts";
import { splitCap } from "./split_evenly.ts";
import type { Clock } from "./clock.ts";
import type { LoadStrategy, LoadStrategyEntry, StrategyContext, Tick } from "./load_strategy.ts";

export interface RequestRateOptions {
  /** Requests per second across all shards (each shard derives its own stream from the global rate). */
  readonly rate: number;
  readonly pattern: OpenLoopPattern;
  /** Gamma shape. */
  readonly smoothness?: number;
  /** Most sessions in flight; undefined = no cap. */
  readonly concurrency?: number;
  /** Ramp the rate up to `rate` over this many ms (timing/rate_ramp.ts). @default no ramp */
  readonly rampMs?: number;
}

class RequestRateStrategy extends SessionCap implements LoadStrategy {
  readonly pacesContinuations = true;
  readonly #schedule: ArrivalSchedule;
  readonly #clock: Clock;
  readonly #start: number;
  readonly #ramp: RampTimeMap | undefined;

  constructor(o: RequestRateOptions, ctx: StrategyContext) {
    super(o.concurrency);
    this.#schedule = createArrivalSchedule({
      pattern: o.pattern,
      rate: o.rate,
      smoothness: o.smoothness,
      shardIndex: ctx.shardIndex,
      shardCount: ctx.shardCount,
    }, ctx.rng);
    this.#clock = ctx.clock;
    this.#start = ctx.startedAt;
    this.#ramp = (o.rampMs ?? 0) > 0 ? new RampTimeMap(o.rate, o.rampMs!) : undefined;
  }

  async nextTick(stop: AbortSignal, deadline: number): Promise<Tick | undefined> {
    const offset = this.#schedule.next();
    const scheduledAt = this.#start + (this.#ramp === undefined ? offset : this.#ramp.timeFor(offset));
    if (scheduledAt >= deadline || stop.aborted) return undefined;
    await this.#clock.sleepUntil(scheduledAt, stop);
    return stop.aborted ? undefined : { scheduledAt };
  }
}

export const REQUEST_RATE_STRATEGY: LoadStrategyEntry<RequestRateOptions> = {
  name: "request_rate",
  description: "Open loop: send at a target rate with constant, Poisson or gamma arrivals, optionally capped.",
  /** Every shard keeps the global rate (its schedule is its part of it); a cap splits evenly. */
  split(o, i, n) {
    const concurrency = splitCap(o.concurrency, i, n);
    return { options: { ...o, concurrency }, weight: 1, layout: "interleaved" };
  },
  create: (o, ctx) => new RequestRateStrategy(o, ctx),
};
