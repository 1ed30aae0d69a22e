/**
 * The phases of a profile run, resolved once from the config and the dataset (AIPerf's priority: a timestamped
 * dataset's fixed schedule > request rate > concurrency), as data for the engine: each a load strategy with its
 * options, plus stop conditions.
 */
import type { ProfileConfig } from "../config/profile_config.ts";
import type { OpenLoopPattern } from "../timing/arrival_pattern.ts";
import type { PhaseSpec } from "../timing/phase_spec.ts";
import type { ConcurrencyOptions } from "../timing/concurrency_strategy.ts";
import type { RequestRateOptions } from "../timing/request_rate_strategy.ts";
import { type FixedScheduleOptions, scheduleStarts } from "../timing/fixed_schedule_strategy.ts";
import type { StrategySpec } from "../timing/load_strategy.ts";
import { InputError } from "../base/input_error.ts";

/** What the phases need to know of the prepared dataset. */
export interface DatasetShape {
  /** Each conversation's first-turn timestamp (ms), where the dataset has them. */
  readonly startTimestamps: readonly (number | undefined)[];
  /** Requests in one pass over the dataset (every turn of every conversation). */
  readonly totalTurns: number;
  readonly conversations: number;
  /** Turns of each conversation (for the requests of a windowed replay); undefined = unknown. */
  readonly turnCounts?: readonly number[];
  /** The dataset came from a file (then one pass over it is the default request count). */
  readonly fromFile: boolean;
}

export interface LoadPlans {
  readonly phases: readonly PhaseSpec[];
  /** Things the user should know about how the load was resolved (one sentence each). */
  readonly notices: readonly string[];
}

/**
 * Profiling: a dataset whose every conversation starts at a timestamp is replayed on its schedule (with a given
 * `--concurrency` as a cap) unless `--request-rate` asks otherwise, which is then said; else request rate, else
 * concurrency. Without a request count or a duration, a file dataset is sent once: each conversation, all its turns. Warmup inherits
 * the profiling load (AIPerf) with its own request count and no duration; a replayed trace warms up in a closed loop.
 */
export function loadPlans(
  config: ProfileConfig,
  dataset: DatasetShape,
  given: { readonly concurrency: boolean; readonly fixedSchedule?: boolean },
): LoadPlans {
  const notices: string[] = [];
  const durationMs = config.benchmarkDuration !== undefined ? config.benchmarkDuration * 1000 : undefined;
  const stamped = dataset.startTimestamps.length > 0 && dataset.startTimestamps.every((t) => t !== undefined);
  const fixedAsked = given.fixedSchedule === true && config.fixedSchedule;
  if (fixedAsked && !stamped) {
    throw new InputError(
      "--fixed-schedule replays timestamps, but not every conversation's first turn has one; add a timestamp to " +
        "each, or remove --fixed-schedule.",
    );
  }
  // --no-fixed-schedule keeps the load options even for a timestamped dataset (AIPerf).
  const replay = stamped && (fixedAsked || (given.fixedSchedule !== true && config.requestRate === undefined));
  let starts = replay ? scheduleStarts(dataset.startTimestamps) : [];
  if (replay) {
    const from = config.fixedScheduleStartOffset ?? -Infinity;
    const to = config.fixedScheduleEndOffset ?? Infinity;
    starts = starts.filter((s) => s.atMs >= from && s.atMs <= to);
    if (starts.length === 0) {
      throw new InputError(
        "--fixed-schedule-start-offset/--fixed-schedule-end-offset leave no conversation to replay; widen the window.",
      );
    }
  }
  const windowed = replay && starts.length < dataset.conversations;
  // A file is sent once by default: each of its conversations, every turn of each.
  const onePass = dataset.fromFile && durationMs === undefined && config.requestCount === undefined;
  const sessionCount = onePass ? (windowed ? starts.length : dataset.conversations) : (
    config.requestCount === undefined && durationMs === undefined ? config.conversationNum : undefined
  );
  const stops = {
    requestCount: config.requestCount,
    sessionCount,
    durationMs,
    gracePeriodMs: config.benchmarkGracePeriod * 1000,
  };
  let expectedRequests = dataset.totalTurns;
  if (windowed && dataset.turnCounts !== undefined) {
    expectedRequests = starts.reduce((n, s) => n + dataset.turnCounts![s.conversationIndex], 0);
  }
  let strategy: StrategySpec;
  if (replay) {
    // The config's concurrency defaults to 1 for a closed loop; a replayed trace is capped only when asked.
    const offsetMs = config.fixedScheduleStartOffset ?? (config.fixedScheduleAutoOffset ? starts[0].atMs : 0);
    const options: FixedScheduleOptions = {
      starts,
      offsetMs,
      concurrency: given.concurrency ? config.concurrency : undefined,
    };
    strategy = { name: "fixed_schedule", options };
    notices.push(
      "The dataset has timestamps: each conversation starts at its own (trace replay)" +
        (windowed ? `; ${starts.length} of ${dataset.conversations} conversations are in the window.` : "."),
    );
  } else if (config.requestRate !== undefined) {
    if (stamped) notices.push("The dataset's timestamps are not used: --request-rate sets the send times.");
    const pattern: OpenLoopPattern = config.arrivalPattern === "concurrency_burst" ? "poisson" : config.arrivalPattern;
    const options: RequestRateOptions = {
      rate: config.requestRate,
      pattern,
      smoothness: config.arrivalSmoothness,
      concurrency: config.concurrency,
    };
    strategy = { name: "request_rate", options };
  } else {
    const options: ConcurrencyOptions = {
      concurrency: config.concurrency ?? 1,
      rampMs: config.concurrencyRampDuration !== undefined ? config.concurrencyRampDuration * 1000 : undefined,
    };
    strategy = { name: "concurrency", options };
  }
  const profiling: PhaseSpec = {
    name: "profiling",
    strategy,
    stops,
    ...(onePass ? { expectedRequests } : {}),
  };
  const phases: PhaseSpec[] = [];
  if (config.warmupRequestCount !== undefined && config.warmupRequestCount > 0) {
    const warmupStrategy: StrategySpec = strategy.name === "fixed_schedule"
      ? { name: "concurrency", options: { concurrency: config.concurrency ?? 1 } satisfies ConcurrencyOptions }
      : strategy;
    phases.push({
      name: "warmup",
      strategy: warmupStrategy,
      stops: { requestCount: config.warmupRequestCount, gracePeriodMs: stops.gracePeriodMs },
    });
  }
  phases.push(profiling);
  return { phases, notices };
}
