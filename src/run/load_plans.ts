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
import type { UserCentricOptions } from "../timing/user_centric_strategy.ts";
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

/** Requests a file dataset sends when no bound is given (AIPerf 0.13's default). */
export const FILE_DEFAULT_REQUEST_COUNT = 10;

/**
 * Profiling: a dataset whose every conversation starts at a timestamp is replayed on its schedule (with a given
 * `--concurrency` as a cap) unless `--request-rate` or `--user-centric-rate` asks otherwise, which is then said; else
 * request rate, else concurrency; `--user-centric-rate` runs users. Without a request count, a duration or a
 * conversation number, a file dataset sends 10 requests (AIPerf 0.13), a replayed trace each conversation once.
 */
export function loadPlans(
  config: ProfileConfig,
  dataset: DatasetShape,
  given: { readonly concurrency: boolean; readonly fixedSchedule?: boolean; readonly benchmarkGracePeriod?: boolean },
): LoadPlans {
  const notices: string[] = [];
  const durationMs = config.benchmarkDuration !== undefined ? config.benchmarkDuration * 1000 : undefined;
  const stamped = dataset.startTimestamps.length > 0 && dataset.startTimestamps.every((t) => t !== undefined);
  const userCentric = config.userCentricRate !== undefined;
  const fixedAsked = given.fixedSchedule === true && config.fixedSchedule;
  if (fixedAsked && !stamped) {
    throw new InputError(
      "--fixed-schedule replays timestamps, but not every conversation's first turn has one; add a timestamp to " +
        "each, or remove --fixed-schedule.",
    );
  }
  // --no-fixed-schedule keeps the load options even for a timestamped dataset (AIPerf).
  const replay = stamped &&
    (fixedAsked || (given.fixedSchedule !== true && config.requestRate === undefined && !userCentric));
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
  // Given no bound, a file sends AIPerf 0.13's 10 requests (wrapping a shorter file); a replayed trace is sent once.
  const unbounded = dataset.fromFile && durationMs === undefined && config.requestCount === undefined &&
    config.conversationNum === undefined;
  const onePass = unbounded && replay;
  const requestCount = unbounded && !replay ? FILE_DEFAULT_REQUEST_COUNT : config.requestCount;
  const sessionCount = onePass ? (windowed ? starts.length : dataset.conversations) : (
    config.requestCount === undefined && durationMs === undefined ? config.conversationNum : undefined
  );
  // User-centric users run whole sessions: AIPerf waits for all of them after the duration unless told otherwise.
  const gracePeriodMs = userCentric && !given.benchmarkGracePeriod ? Infinity : config.benchmarkGracePeriod * 1000;
  const stops = defined({ requestCount, sessionCount, durationMs, gracePeriodMs });
  let expectedRequests = dataset.totalTurns;
  if (windowed && dataset.turnCounts !== undefined) {
    expectedRequests = starts.reduce((n, s) => n + dataset.turnCounts![s.conversationIndex], 0);
  }
  const pattern: OpenLoopPattern = config.arrivalPattern === "concurrency_burst" ? "poisson" : config.arrivalPattern;
  const rateRampMs = config.requestRateRampDuration !== undefined ? config.requestRateRampDuration * 1000 : undefined;
  let strategy: StrategySpec;
  if (replay) {
    // The config's concurrency defaults to 1 for a closed loop; a replayed trace is capped only when asked.
    const offsetMs = config.fixedScheduleStartOffset ?? (config.fixedScheduleAutoOffset ? starts[0].atMs : 0);
    const options: FixedScheduleOptions = {
      starts,
      offsetMs,
      concurrency: given.concurrency ? config.concurrency : undefined,
    };
    strategy = { name: "fixed_schedule", options: defined(options) };
    notices.push(
      "The dataset has timestamps: each conversation starts at its own (trace replay)" +
        (windowed ? `; ${starts.length} of ${dataset.conversations} conversations are in the window.` : "."),
    );
  } else if (userCentric) {
    if (stamped) notices.push("The dataset's timestamps are not used: --user-centric-rate sets the send times.");
    const options: UserCentricOptions = {
      rate: config.userCentricRate!,
      users: config.numUsers!,
      sessionTurns: Math.max(1, Math.round(dataset.totalTurns / Math.max(1, dataset.conversations))),
      concurrency: config.concurrency,
    };
    strategy = { name: "user_centric_rate", options: defined(options) };
  } else if (config.requestRate !== undefined) {
    if (stamped) notices.push("The dataset's timestamps are not used: --request-rate sets the send times.");
    const options: RequestRateOptions = {
      rate: config.requestRate,
      pattern,
      smoothness: config.arrivalSmoothness,
      concurrency: config.concurrency,
      rampMs: rateRampMs,
    };
    strategy = { name: "request_rate", options: defined(options) };
  } else {
    const options: ConcurrencyOptions = {
      concurrency: config.concurrency ?? 1,
      rampMs: config.concurrencyRampDuration !== undefined ? config.concurrencyRampDuration * 1000 : undefined,
    };
    strategy = { name: "concurrency", options: defined(options) };
  }
  const prefillRampMs = config.prefillConcurrencyRampDuration !== undefined
    ? config.prefillConcurrencyRampDuration * 1000
    : undefined;
  const profiling: PhaseSpec = {
    name: "profiling",
    strategy,
    stops,
    ...(onePass ? { expectedRequests } : {}),
    ...(config.prefillConcurrency === undefined ? {} : { prefillConcurrency: config.prefillConcurrency }),
    ...(prefillRampMs === undefined ? {} : { prefillRampMs }),
    ...(config.requestCancellationRate !== undefined && config.requestCancellationRate > 0
      ? { cancellation: { percent: config.requestCancellationRate, delayMs: config.requestCancellationDelay * 1000 } }
      : {}),
  };
  const phases: PhaseSpec[] = [];
  const warmup = warmupPhase(config, strategy, pattern);
  if (warmup !== undefined) phases.push(warmup);
  phases.push(profiling);
  if (unbounded && !replay) {
    notices.push(`No --request-count, --benchmark-duration or --conversation-num: sending ${requestCount} requests.`);
  }
  return { phases, notices };
}

/**
 * The warmup (AIPerf): there is one when a request count, a duration or a session count bounds it; it inherits the
 * profiling load unless `--warmup-concurrency` / `--warmup-request-rate` / `--warmup-prefill-concurrency` say
 * otherwise; a replayed trace warms up in a closed loop. Requests are never cancelled on purpose in the warmup, and
 * its grace period (after `--warmup-duration`) is unbounded unless given.
 */
function warmupPhase(config: ProfileConfig, profiling: StrategySpec, pattern: OpenLoopPattern): PhaseSpec | undefined {
  const count = config.warmupRequestCount !== undefined && config.warmupRequestCount > 0
    ? config.warmupRequestCount
    : undefined;
  if (count === undefined && config.warmupDuration === undefined && config.numWarmupSessions === undefined) {
    return undefined;
  }
  const concurrency = config.warmupConcurrency ?? config.concurrency;
  let strategy: StrategySpec;
  if (config.warmupRequestRate !== undefined) {
    const options: RequestRateOptions = {
      rate: config.warmupRequestRate,
      pattern,
      smoothness: config.arrivalSmoothness,
      concurrency,
    };
    strategy = { name: "request_rate", options: defined(options) };
  } else if (profiling.name === "fixed_schedule" || profiling.name === "concurrency") {
    const inherited = profiling.name === "concurrency" ? profiling.options as ConcurrencyOptions : undefined;
    const options: ConcurrencyOptions = { ...inherited, concurrency: concurrency ?? 1 };
    strategy = { name: "concurrency", options: defined(options) };
  } else {
    strategy = {
      name: profiling.name,
      options: defined({ ...(profiling.options as Record<string, unknown>), concurrency }),
    };
  }
  const prefill = config.warmupPrefillConcurrency ?? config.prefillConcurrency;
  return {
    name: "warmup",
    strategy,
    stops: defined({
      requestCount: count,
      sessionCount: config.numWarmupSessions,
      durationMs: config.warmupDuration !== undefined ? config.warmupDuration * 1000 : undefined,
      gracePeriodMs: config.warmupGracePeriod !== undefined ? config.warmupGracePeriod * 1000 : Infinity,
    }),
    ...(prefill === undefined ? {} : { prefillConcurrency: prefill }),
  };
}

/** `o` without its undefined fields (plans are compared and cloned as data). */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
