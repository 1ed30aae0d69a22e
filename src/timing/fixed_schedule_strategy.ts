/**
 * Trace replay (AIPerf's fixed schedule): each conversation starts at its first turn's timestamp, in ms after the
 * phase start (less `offsetMs`); the session's later turns follow their own timestamps or delays, not ticks. A
 * concurrency cap, when given, limits sessions in flight, and a late start is recorded as lateness, never hidden.
 */
import { SessionCap } from "./session_cap.ts";
import { splitCap } from "./split_evenly.ts";
import type { Clock } from "./clock.ts";
import { defineLoadStrategy, type LoadStrategy, type StrategyContext, type Tick } from "./load_strategy.ts";
import { definedFields, plural, secondsText } from "./describe_load.ts";
import type { OptionSpec } from "../base/option_spec.ts";
import { InputError } from "../base/input_error.ts";

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

/** The options of trace replay. */
const FIXED_SCHEDULE_OPTIONS = [
  {
    key: "fixedSchedule",
    type: "bool",
    default: false,
    flags: ["--fixed-schedule"],
    group: "Load Generator",
    defaultDescription: "on when every conversation of the dataset has a timestamp",
    help: "Send each conversation at its dataset timestamp (trace replay); --no-fixed-schedule uses the load " +
      "options instead even for a timestamped dataset.",
  },
  {
    key: "fixedScheduleAutoOffset",
    type: "bool",
    default: false,
    flags: ["--fixed-schedule-auto-offset"],
    group: "Load Generator",
    conflictsWith: [{ key: "fixedScheduleStartOffset", why: "both say where the replay starts" }],
    help: "Shift the schedule so the first timestamp is sent at once.",
  },
  {
    key: "fixedScheduleStartOffset",
    type: "int",
    min: 0,
    flags: ["--fixed-schedule-start-offset"],
    group: "Load Generator",
    metavar: "<ms>",
    help: "Replay only conversations starting at or after this timestamp (ms); it is sent at once.",
  },
  {
    key: "fixedScheduleEndOffset",
    type: "int",
    min: 0,
    flags: ["--fixed-schedule-end-offset"],
    group: "Load Generator",
    metavar: "<ms>",
    defaultDescription: "the last timestamp",
    help: "Replay only conversations starting at or before this timestamp (ms).",
  },
] as const satisfies readonly OptionSpec[];

export const FIXED_SCHEDULE_STRATEGY = defineLoadStrategy({
  name: "fixed_schedule",
  description: "Trace replay: start each conversation at its timestamp; later turns follow their delays.",
  options: FIXED_SCHEDULE_OPTIONS,
  selectedBy: ["fixedSchedule"],
  /** A dataset whose every conversation has a timestamp is replayed unless --no-fixed-schedule says otherwise. */
  fallback: ({ stamped, given }) => stamped && !given("fixedSchedule"),
  followsTimestamps: true,
  warmsUpClosedLoop: true,
  validate(values) {
    const start = values.value("fixedScheduleStartOffset");
    const end = values.value("fixedScheduleEndOffset");
    if (typeof start === "number" && typeof end === "number" && end < start) {
      return {
        problems: [
          `${values.named("fixedScheduleEndOffset")} is before ${values.named("fixedScheduleStartOffset")}; swap them.`,
        ],
      };
    }
    return {};
  },
  /** The window's starts; the config's concurrency defaults to 1 for a closed loop, so a replay is capped only when asked. */
  plan: ({ values, stamped, dataset, concurrency, given }) => {
    if (!stamped) {
      throw new InputError(
        "--fixed-schedule replays timestamps, but not every conversation's first turn has one; add a timestamp to " +
          "each, or remove --fixed-schedule.",
      );
    }
    const from = values.fixedScheduleStartOffset ?? -Infinity;
    const to = values.fixedScheduleEndOffset ?? Infinity;
    const starts = scheduleStarts(dataset.startTimestamps).filter((s) => s.atMs >= from && s.atMs <= to);
    if (starts.length === 0) {
      throw new InputError(
        "--fixed-schedule-start-offset/--fixed-schedule-end-offset leave no conversation to replay; widen the window.",
      );
    }
    const windowed = starts.length < dataset.conversations;
    const offsetMs = values.fixedScheduleStartOffset ?? (values.fixedScheduleAutoOffset ? starts[0].atMs : 0);
    const turnCounts = dataset.turnCounts;
    return {
      options: definedFields<FixedScheduleOptions>({
        starts,
        offsetMs,
        concurrency: given("concurrency") ? concurrency : undefined,
      }),
      onePass: windowed
        ? {
          sessions: starts.length,
          requests: turnCounts === undefined
            ? undefined
            : starts.reduce((n, s) => n + turnCounts[s.conversationIndex], 0),
        }
        : undefined,
      notices: [
        "The dataset has timestamps: each conversation starts at its own (trace replay)" +
        (windowed ? `; ${starts.length} of ${dataset.conversations} conversations are in the window.` : "."),
      ],
    };
  },
  describe: (o) => {
    const first = o.starts[0]?.atMs ?? 0;
    const last = o.starts[o.starts.length - 1]?.atMs ?? 0;
    const offset = o.offsetMs ?? 0;
    return `trace replay of ${plural(o.starts.length, "conversation")} over ${secondsText(last - first)}` +
      (offset !== 0 ? ` (timestamps shifted by −${secondsText(offset)})` : "") +
      (o.concurrency !== undefined ? `, at most ${o.concurrency} in flight` : "");
  },
  /** Shard i replays starts i, i + n, …: every conversation once, all at their own times. */
  split(o: FixedScheduleOptions, i: number, n: number) {
    const starts = o.starts.filter((_, k) => k % n === i);
    const concurrency = splitCap(o.concurrency, i, n);
    return { options: { ...o, starts, concurrency }, weight: starts.length, layout: "interleaved" as const };
  },
  create: (o: FixedScheduleOptions, ctx: StrategyContext) => new FixedScheduleStrategy(o, ctx),
});
