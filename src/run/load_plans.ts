/**
 * The phases of a profile run, resolved once from the config and the dataset, as data for the engine: each a load
 * strategy with its options, plus stop conditions. Which strategy runs and how its options are read is the
 * strategies' own business (`timing/load_strategies.ts`): a mode an option asks for (`selectedBy`), else the first
 * whose `fallback` accepts — a timestamped dataset's replay before the closed loop, AIPerf's priority. What is
 * generic lives here: stop conditions, the warmup, prefill limits, cancellation and the one line each phase says
 * about itself at start.
 */
import type { ProfileConfig } from "../config/profile_config.ts";
import type { Registry } from "../base/registry.ts";
import { optionIsSet } from "../base/option_spec.ts";
import type { PhaseName, PhaseSpec } from "../timing/phase_spec.ts";
import type {
  DatasetShape,
  LoadStrategyEntry,
  StrategyPlan,
  StrategyPlanInput,
  StrategySpec,
} from "../timing/load_strategy.ts";
import { LOAD_STRATEGIES } from "../timing/load_strategies.ts";
import type { StopSpec } from "../timing/stop_conditions.ts";
import { plural, secondsText } from "../timing/describe_load.ts";

export type { DatasetShape } from "../timing/load_strategy.ts";

export interface LoadPlans {
  readonly phases: readonly PhaseSpec[];
  /** Things the user should know about how the load was resolved (one sentence each), then one line per phase. */
  readonly notices: readonly string[];
  /** Options that were set but have no effect in the modes the phases run (one sentence each). */
  readonly warnings: readonly string[];
}

/** Which options were given rather than defaulted (`concurrency`, `fixedSchedule`, `benchmarkGracePeriod`, …). */
export type GivenOptions = Readonly<Partial<Record<string, boolean>>>;

/** Warmup options that stand in for a profiling option during the warmup. */
const WARMUP_OVERRIDES: Readonly<Record<string, string>> = {
  concurrency: "warmupConcurrency",
  concurrencyRampDuration: "warmupConcurrencyRampDuration",
  requestRate: "warmupRequestRate",
  requestRateRampDuration: "warmupRequestRateRampDuration",
  arrivalPattern: "warmupArrivalPattern",
  prefillConcurrency: "warmupPrefillConcurrency",
  prefillConcurrencyRampDuration: "warmupPrefillConcurrencyRampDuration",
};

/** A config and which of its options were given, read the way strategies read them. */
class PlanValues {
  constructor(
    readonly values: Readonly<Record<string, unknown>>,
    readonly givenKeys: GivenOptions,
    readonly strategies: Registry<LoadStrategyEntry>,
  ) {}

  given = (key: string): boolean => this.givenKeys[key] === true;

  /** Set: a value other than `false`; for an option with a default, given too. */
  isSet(key: string): boolean {
    const spec = this.strategies.entries().flatMap((e) => e.options).find((o) => keyOf(o) === key);
    return optionIsSet(spec, this.values[key], this.given(key));
  }

  /** The strategies some set option asks for. */
  asked(): LoadStrategyEntry[] {
    return this.strategies.entries().filter((entry) => entry.selectedBy.some((key) => this.isSet(key)));
  }
}

/** Requests a file dataset sends when no bound is given (AIPerf 0.13's default). */
export const FILE_DEFAULT_REQUEST_COUNT = 10;

/**
 * Profiling, then a warmup before it when one is bounded. Without a request count, a duration or a conversation
 * number, a file dataset sends 10 requests (AIPerf 0.13; a shorter file wraps), a replayed trace each conversation
 * once.
 *
 * @param given which options were given (the strategies read `concurrency`, `fixedSchedule`; the user-centric grace
 *   period reads `benchmarkGracePeriod`)
 * @param strategies the registry to plan from (a copy with more entries in tests)
 * @throws {InputError} when the selected strategy cannot run with these values or this dataset.
 */
export function loadPlans(
  config: ProfileConfig,
  dataset: DatasetShape,
  given: GivenOptions,
  strategies: Registry<LoadStrategyEntry> = LOAD_STRATEGIES,
): LoadPlans {
  const values = config as unknown as Readonly<Record<string, unknown>>;
  const profilingValues = new PlanValues(values, given, strategies);
  const stamped = dataset.startTimestamps.length > 0 && dataset.startTimestamps.every((t) => t !== undefined);
  const notices: string[] = [];

  const profilingInput = phaseInput(profilingValues, config.concurrency, dataset, stamped, "profiling");
  const profilingEntry = select(profilingValues, profilingInput, strategies);
  const profilingPlan = profilingEntry.plan(profilingInput);
  notices.push(...profilingPlan.notices ?? []);
  const asked = profilingValues.asked();
  if (stamped && asked.length > 0 && profilingEntry.followsTimestamps !== true) {
    const selector = profilingEntry.selectedBy.find((key) => profilingValues.isSet(key));
    if (selector !== undefined) {
      notices.push(`The dataset's timestamps are not used: ${flagOf(selector, strategies)} sets the send times.`);
    }
  }

  const durationMs = config.benchmarkDuration !== undefined ? config.benchmarkDuration * 1000 : undefined;
  // Given no bound, a file sends AIPerf 0.13's 10 requests (wrapping a shorter file); a replayed trace is sent once:
  // each of its conversations (those the strategy runs), every turn of each.
  const unbounded = dataset.fromFile && durationMs === undefined && config.requestCount === undefined &&
    config.conversationNum === undefined;
  const replay = profilingEntry.followsTimestamps === true;
  const onePass = unbounded && replay;
  const requestCount = unbounded && !replay ? FILE_DEFAULT_REQUEST_COUNT : config.requestCount;
  const sessionCount = onePass ? (profilingPlan.onePass?.sessions ?? dataset.conversations) : (
    config.requestCount === undefined && durationMs === undefined ? config.conversationNum : undefined
  );
  const gracePeriodMs = profilingEntry.waitsForSessions === true && !given.benchmarkGracePeriod
    ? Infinity
    : config.benchmarkGracePeriod * 1000;
  const stops = defined<StopSpec>({ requestCount, sessionCount, durationMs, gracePeriodMs });
  const strategy: StrategySpec = { name: profilingEntry.name, options: profilingPlan.options };
  const prefillRampMs = config.prefillConcurrencyRampDuration !== undefined
    ? config.prefillConcurrencyRampDuration * 1000
    : undefined;
  const profiling: PhaseSpec = {
    name: "profiling",
    strategy,
    stops,
    ...(onePass ? { expectedRequests: profilingPlan.onePass?.requests ?? dataset.totalTurns } : {}),
    ...(config.prefillConcurrency === undefined ? {} : { prefillConcurrency: config.prefillConcurrency }),
    ...(prefillRampMs === undefined ? {} : { prefillRampMs }),
    ...(config.requestCancellationRate !== undefined && config.requestCancellationRate > 0
      ? { cancellation: { percent: config.requestCancellationRate, delayMs: config.requestCancellationDelay * 1000 } }
      : {}),
  };

  const phases: PhaseSpec[] = [];
  const used = [profilingEntry];
  const warmup = profilingEntry.ownWarmup !== undefined
    ? ownWarmupPhase(config, profilingEntry, profilingInput, notices)
    : warmupPhase(config, given, profilingEntry, dataset, strategies);
  if (warmup !== undefined) {
    phases.push(warmup.phase);
    used.push(warmup.entry);
    notices.push(`Warmup: ${describePhase(warmup.phase, warmup.entry)}.`);
  }
  phases.push(profiling);
  notices.push(`Profiling: ${describePhase(profiling, profilingEntry)}.`);
  if (unbounded && !replay) {
    notices.push(`No --request-count, --benchmark-duration or --conversation-num: sending ${requestCount} requests.`);
  }
  return { phases, notices, warnings: unusedOptionWarnings(profilingValues, used, strategies) };
}

/** What a strategy is planned from, for one phase. */
function phaseInput(
  values: PlanValues,
  concurrency: number | undefined,
  dataset: DatasetShape,
  stamped: boolean,
  phase: PhaseName,
): StrategyPlanInput {
  return { values: values.values, given: values.given, concurrency, dataset, stamped, phase };
}

/** The strategy a phase runs: the one an option asks for, else the first whose fallback accepts. */
function select(
  values: PlanValues,
  input: StrategyPlanInput,
  strategies: Registry<LoadStrategyEntry>,
): LoadStrategyEntry {
  const asked = values.asked();
  if (asked.length > 0) return asked[0];
  const fallback = strategies.entries().find((entry) => entry.fallback?.(input) === true);
  if (fallback === undefined) throw new RangeError("no load strategy accepts a run that asks for none");
  return fallback;
}

/**
 * The warmup (AIPerf): there is one when a request count, a duration or a session count bounds it. It runs the
 * profiling mode with the warmup's own concurrency, rate and prefill limit where given (`--warmup-request-rate`
 * asks for the open loop); a mode that warms up in a closed loop (a replayed trace) gets the closed loop. Requests
 * are never cancelled on purpose in the warmup, and its grace period (after `--warmup-duration`) is unbounded
 * unless given.
 */
function warmupPhase(
  config: ProfileConfig,
  given: GivenOptions,
  profilingEntry: LoadStrategyEntry,
  dataset: DatasetShape,
  strategies: Registry<LoadStrategyEntry>,
): { phase: PhaseSpec; entry: LoadStrategyEntry } | undefined {
  const count = config.warmupRequestCount !== undefined && config.warmupRequestCount > 0
    ? config.warmupRequestCount
    : undefined;
  if (count === undefined && config.warmupDuration === undefined && config.numWarmupSessions === undefined) {
    return undefined;
  }
  const record = config as unknown as Readonly<Record<string, unknown>>;
  const overridden: Record<string, unknown> = { ...record };
  const warmupGiven: Record<string, boolean | undefined> = { ...given };
  const overriding: string[] = [];
  for (const [key, warmupKey] of Object.entries(WARMUP_OVERRIDES)) {
    if (record[warmupKey] === undefined) continue;
    overridden[key] = record[warmupKey];
    warmupGiven[key] = true;
    overriding.push(key);
  }
  const values = new PlanValues(overridden, warmupGiven, strategies);
  const input = phaseInput(values, overridden.concurrency as number | undefined, dataset, false, "warmup");
  // A warmup option that selects a mode (`--warmup-request-rate`) asks for it; otherwise the profiling mode runs.
  const askedByWarmup = strategies.entries().find((entry) => entry.selectedBy.some((key) => overriding.includes(key)));
  const entry = askedByWarmup ??
    (profilingEntry.warmsUpClosedLoop === true
      ? strategies.entries().find((e) => e.selectedBy.length === 0 && e.fallback?.(input) === true)
      : profilingEntry);
  if (entry === undefined) throw new RangeError("no load strategy runs a closed-loop warmup");
  const plan: StrategyPlan<unknown> = entry.plan(input);
  const prefill = overridden.prefillConcurrency as number | undefined;
  const prefillRamp = overridden.prefillConcurrencyRampDuration as number | undefined;
  const phase: PhaseSpec = {
    name: "warmup",
    strategy: { name: entry.name, options: plan.options },
    stops: defined<StopSpec>({
      requestCount: count,
      sessionCount: config.numWarmupSessions,
      durationMs: config.warmupDuration !== undefined ? config.warmupDuration * 1000 : undefined,
      gracePeriodMs: config.warmupGracePeriod !== undefined ? config.warmupGracePeriod * 1000 : Infinity,
    }),
    ...(prefill === undefined ? {} : { prefillConcurrency: prefill }),
    ...(prefill === undefined || prefillRamp === undefined ? {} : { prefillRampMs: prefillRamp * 1000 }),
  };
  return { phase, entry };
}

/**
 * The warmup of a mode that plans its own (agentic replay primes each lane): it replaces the declared warmup, as in
 * AIPerf, sends its requests and waits for their answers for its grace period (unbounded unless given).
 */
function ownWarmupPhase(
  config: ProfileConfig,
  entry: LoadStrategyEntry,
  input: StrategyPlanInput,
  notices: string[],
): { phase: PhaseSpec; entry: LoadStrategyEntry } | undefined {
  const own = entry.ownWarmup!({ ...input, phase: "warmup" });
  const declared = (config.warmupRequestCount ?? 0) > 0 || config.warmupDuration !== undefined ||
    config.numWarmupSessions !== undefined;
  if (declared) notices.push(`The ${entry.name} mode runs its own warmup in place of the --warmup-* bounds given.`);
  if (own === undefined) return undefined;
  const phase: PhaseSpec = {
    name: "warmup",
    strategy: { name: entry.name, options: own.options },
    stops: { requestCount: own.requests, gracePeriodMs: own.gracePeriodMs },
    graceAfterSending: true,
    mustSucceed: true,
  };
  return { phase, entry };
}

/** The strategy's own line, then what stops the phase: "closed loop, 8 sessions in flight; 100 requests". */
export function describePhase(phase: PhaseSpec, entry: LoadStrategyEntry): string {
  const stops: string[] = [];
  if (phase.stops.requestCount !== undefined) stops.push(plural(phase.stops.requestCount, "request"));
  if (phase.stops.sessionCount !== undefined) stops.push(plural(phase.stops.sessionCount, "session"));
  if (phase.stops.durationMs !== undefined) {
    const grace = phase.stops.gracePeriodMs;
    stops.push(
      `${secondsText(phase.stops.durationMs)}` +
        (grace === undefined || grace === Infinity
          ? " (then every answer is awaited)"
          : ` (+ ${secondsText(grace)} grace)`),
    );
  }
  const limits = [
    phase.prefillConcurrency !== undefined ? `at most ${phase.prefillConcurrency} awaiting a first token` : "",
    phase.cancellation !== undefined ? `${phase.cancellation.percent}% cancelled on purpose` : "",
  ].filter((s) => s !== "");
  return entry.describe(phase.strategy.options) + (limits.length > 0 ? `, ${limits.join(", ")}` : "") +
    (stops.length > 0 ? `; stops after ${stops.join(" or ")}` : "");
}

/** Options of strategies no phase runs: they have no effect (an asked mode's conflicts were refused at parse time). */
function unusedOptionWarnings(
  values: PlanValues,
  used: readonly LoadStrategyEntry[],
  strategies: Registry<LoadStrategyEntry>,
): string[] {
  const warnings: string[] = [];
  const usedKeys = new Set(used.flatMap((e) => [...e.options.map(keyOf), ...(e.reads ?? [])]));
  for (const entry of strategies.entries()) {
    for (const spec of entry.options) {
      const key = keyOf(spec);
      if (key === undefined || usedKeys.has(key) || entry.selectedBy.includes(key) || !values.isSet(key)) continue;
      warnings.push(
        `${spec.flags[0]} has no effect: it applies to the ${entry.name} load mode, and this run uses ` +
          `${used.map((e) => e.name).filter((n, i, all) => all.indexOf(n) === i).join(" and ")}.`,
      );
    }
  }
  return warnings;
}

function keyOf(spec: { readonly flags: readonly string[] }): string | undefined {
  return "key" in spec ? (spec as { key: string }).key : undefined;
}

function flagOf(key: string, strategies: Registry<LoadStrategyEntry>): string {
  const spec = strategies.entries().flatMap((e) => e.options).find((o) => keyOf(o) === key);
  return spec?.flags[0] ?? key;
}

/** `o` without its undefined fields (plans are compared and cloned as data). */
function defined<T extends object>(o: { [K in keyof T]: T[K] | undefined }): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
