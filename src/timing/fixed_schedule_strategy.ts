/**
 * Trace replay (AIPerf's fixed schedule): each conversation starts at its first turn's timestamp, in ms after the
 * phase start (less `offsetMs`); the session's later turns follow their own timestamps or delays, not ticks. A
 * concurrency cap, when given, limits sessions in flight, and a late start is recorded as lateness, never hidden.
 */
import { SessionCap } from "./session_cap.ts";
import { splitCap } from "./split_evenly.ts";
import type { Clock } from "./clock.ts";
import type { LoadStrategy, LoadStrategyEntry, StrategyContext, Tick } from "./load_strategy.ts";

/** One conversation's start: its index in the dataset and its timestamp (ms). */
export interface ScheduledStart {
  readonly conversationIndex: number;
  readonly atMs: number;
}

export interface FixedScheduleOptions {
  /** Starts in time order (ties keep dataset order). */
  readonly starts: readonly ScheduledStart[];
  /** Subtracted from every timestamp (e.g. the first one, to start the trace at once). @default 0 */
  readonly offsetMs?: number;
  /** Most sessions in flight; undefined = no cap. */
  readonly concurrency?: number;
}

class FixedScheduleStrategy extends SessionCap implements LoadStrategy {
  readonly pacesContinuations = false;
  readonly #o: FixedScheduleOptions;
  readonly #clock: Clock;
  readonly #start: number;
  #next = 0;

  constructor(o: FixedScheduleOptions, ctx: StrategyContext) {
    super(o.concurrency);
    this.#o = o;
    this.#clock = ctx.clock;
    this.#start = ctx.startedAt;
  }

  async nextTick(stop: AbortSignal, deadline: number): Promise<Tick | undefined> {
    const start = this.#o.starts[this.#next];
    if (start === undefined || stop.aborted) return undefined;
    const scheduledAt = this.#start + start.atMs - (this.#o.offsetMs ?? 0);
    if (scheduledAt >= deadline) return undefined;
    this.#next++;
    await this.#clock.sleepUntil(scheduledAt, stop);
    return stop.aborted ? undefined : { scheduledAt, conversationIndex: start.conversationIndex };
  }
}

/** Orders starts by time (stable), as the strategy expects them. */
export function scheduleStarts(atMs: readonly (number | undefined)[]): ScheduledStart[] {
  const starts: ScheduledStart[] = [];
  atMs.forEach((at, conversationIndex) => {
    if (at !== undefined) starts.push({ conversationIndex, atMs: at });
  });
  return starts.sort((a, b) => a.atMs - b.atMs || a.conversationIndex - b.conversationIndex);
}

export const FIXED_SCHEDULE_STRATEGY: LoadStrategyEntry<FixedScheduleOptions> = {
  name: "fixed_schedule",
  description: "Trace replay: start each conversation at its timestamp; later turns follow their delays.",
  /** Shard i replays starts i, i + n, …: every conversation once, all at their own times. */
  split(o, i, n) {
    const starts = o.starts.filter((_, k) => k % n === i);
    const concurrency = splitCap(o.concurrency, i, n);
    return { options: { ...o, starts, concurrency }, weight: starts.length, layout: "interleaved" };
  },
  create: (o, ctx) => new FixedScheduleStrategy(o, ctx),
};
