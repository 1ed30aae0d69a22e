/**
 * A load strategy decides WHEN requests go out; the engine's phase runner (engine/phase_runner.ts) decides WHAT
 * goes out (a new session, or the next turn of one already running) and stop conditions decide WHETHER
 * (timing/stop_conditions.ts). Each strategy is a named entry of `LOAD_STRATEGIES` that owns everything about its
 * mode, as k6's executors do: the `profile` options it declares (parsed, typed, listed in `--help` with the
 * others), which options select it, its checks, how it turns option values into its engine options (plain data:
 * they cross to engine Workers), the one line that describes it at start, how its options split across shards,
 * and a factory of the live object.
 *
 * A session holds one session slot from its first turn to its last (AIPerf: concurrency counts sessions). Ticks
 * are send opportunities: open-loop schedules give them at absolute due times, and there a running session's next
 * turn waits for a tick of its own (priority over new sessions), so the request rate counts every request; a
 * closed loop gives them at once and a session's turns follow each other directly.
 */
import type { OptionReader, OptionSpec } from "../base/option_spec.ts";
import type { OptionValues } from "../base/option_values.ts";
import type { RegistryEntry } from "../base/registry.ts";
import type { SeededRandom } from "../base/seeded_random.ts";
import type { Clock } from "./clock.ts";
import type { StreamShape } from "./trajectory.ts";

/** One send opportunity. */
export interface Tick {
  /** Absolute run-clock time the request was due (open loop, fixed schedule); undefined in a closed loop. */
  readonly scheduledAt?: number;
  /** The conversation (index into the phase's dataset) a new session must run, when the strategy decides. */
  readonly conversationIndex?: number;
  /** A new session sends at most this many of its turns (user-centric rate: users met mid-conversation). */
  readonly maxTurns?: number;
  /** The new session resumes its trace mid-way (agentic replay): the root's turn and the live sub-agents. */
  readonly resume?: SessionResume;
  /** The new session sends one turn of one conversation with a one-token answer (agentic replay's warm-up). */
  readonly warm?: WarmTurnTick;
}

/** Where a session resumes a trace (agentic replay, timing/trajectory.ts): conversations are dataset indices. */
export interface SessionResume {
  /** The replay lane; its sessions share one cache-bust marker across the warm-up and the measured phase. */
  readonly lane: number;
  /** The root's turn the session resumes at; undefined when only sub-agents are left. */
  readonly rootTurn?: number;
  /** Wait from the session's start to the root's turn (ms). */
  readonly rootDelayMs: number;
  /** Sub-agents live at the resume point: each from its turn, `delayMs` after the session's start. */
  readonly children: readonly {
    readonly conversation: number;
    readonly turn: number;
    readonly delayMs: number;
    /** The root's turn (in the trace's numbering) that waits for it. */
    readonly joinAt?: number;
  }[];
}

/** One warm-up request of agentic replay: turn `turn` of dataset conversation `conversation`, with its context. */
export interface WarmTurnTick {
  readonly lane: number;
  readonly conversation: number;
  readonly turn: number;
}

/** Sleeps that lead to a request, which a system-wide idle cap may bring forward (timing/request_timers.ts). */
export interface RequestSleeper {
  /** Resolves at `due` or earlier when the idle cap shifts it; the due time it fired at. */
  sleepUntil(due: number, signal: AbortSignal): Promise<number>;
  /** Idle time skipped so far (ms): what an absolute schedule read now subtracts from its due times. */
  readonly skippedMs: number;
}

/** A live strategy for one phase of one shard. */
export interface LoadStrategy {
  /** Whether a running session's later turns wait for a tick (open loop) or follow at once (closed loop). */
  readonly pacesContinuations: boolean;
  /**
   * Resolves at the next send opportunity; undefined when there will be none (schedule exhausted, past
   * `deadline`) or `stop` aborted. Due times at or past `deadline` are never given.
   */
  nextTick(stop: AbortSignal, deadline: number): Promise<Tick | undefined>;
  /** Takes a session slot (waits for one where sessions are limited); false when closed while waiting. */
  acquireSession(): Promise<boolean>;
  /** A session that acquired a slot has ended. */
  releaseSession(): void;
  /** Wakes every waiter with false; the phase is over. */
  close(): void;
  /** A session started for `tick` and will send `turns` requests (strategies that plan around sessions). */
  sessionStarted?(tick: Tick, turns: number): void;
  /**
   * When a running session's next turn is due, given the previous turn's due time and now (its answer has
   * arrived): strategies that pace each session themselves (user-centric rate). Think times are then not used.
   */
  nextTurnDue?(previousDue: number, now: number): number;
}

/** What a strategy needs from its shard to run. */
export interface StrategyContext {
  readonly clock: Clock;
  /** This shard's randomness for arrival times. */
  readonly rng: SeededRandom;
  readonly shardIndex: number;
  readonly shardCount: number;
  /** Run-clock time the phase started; schedules are offsets from it. */
  readonly startedAt: number;
  /** Aborted when the phase stops issuing (ends ramps and timers). */
  readonly stop: AbortSignal;
  /** Where sleeps before requests go, so the system idle cap can shift them. @default ctx.clock */
  readonly timers?: RequestSleeper;
}

/** The part of a strategy's options one shard runs. */
export interface StrategyShare<O> {
  readonly options: O;
  /** This shard's weight: request and session budgets split in proportion to it. */
  readonly weight: number;
  /**
   * How shards number their sessions and requests: in contiguous blocks (closed loop: shards finish together), or
   * interleaved (open loop: shard i of n sends global requests i, i + n, …, like the single-stream grid).
   */
  readonly layout: "blocks" | "interleaved";
}

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
  /**
   * Every conversation (roots and children, dataset order) as trajectory sampling reads it (agentic replay); built
   * when asked, as only that mode needs it.
   */
  readonly streams?: () => readonly StreamShape[];
}

/** What a strategy is planned from: the profile's option values for one phase, and the dataset. */
export interface StrategyPlanInput<V = unknown> {
  /** The phase's option values: the strategy's own options typed by its declaration, any other by key. */
  readonly values: V & Readonly<Record<string, unknown>>;
  /** Whether an option was given (YAML, environment, flag) rather than left at its default. */
  given(key: string): boolean;
  /** Most sessions in flight for this phase, when given (`--concurrency`, or `--warmup-concurrency`). */
  readonly concurrency?: number;
  readonly dataset: DatasetShape;
  /** Every conversation's first turn has a timestamp. */
  readonly stamped: boolean;
  readonly phase: "warmup" | "profiling";
}

/** A strategy's engine options for one phase, and what the plan should know about them. */
export interface StrategyPlan<O> {
  readonly options: O;
  /** Sessions and requests of one pass over the dataset when the strategy runs only part of it (a replay window). */
  readonly onePass?: { readonly sessions: number; readonly requests?: number };
  /** What the user should know about how the load was resolved (one sentence each). */
  readonly notices?: readonly string[];
}

/** Problems (input errors, exit 2) and warnings a strategy finds in the option values. */
export interface StrategyChecks {
  readonly problems?: readonly string[];
  readonly warnings?: readonly string[];
}

/**
 * A strategy as registered: options are plain data (structured-clone safe). Everything a load mode needs is here,
 * so a new mode is one file and one line in `LOAD_STRATEGIES` (see ARCHITECTURE.md, "How to add").
 */
export interface LoadStrategyEntry<O = unknown> extends RegistryEntry {
  /**
   * The `profile` options this mode owns (flags, YAML keys, help, bounds and relations, like every other option).
   * Set while another mode is selected, they are an input error (another mode asked) or a warning (another mode
   * chosen by default).
   */
  readonly options: readonly OptionSpec[];
  /** Keys of options whose setting asks for this mode (`requestRate`); two modes asked at once is an input error. */
  readonly selectedBy: readonly string[];
  /** Keys of other modes' options this mode uses too (user-centric rate ramps like request rate). */
  readonly reads?: readonly string[];
  /**
   * Whether the mode runs when none is asked (the first entry of the registry that accepts wins); absent: only
   * when asked.
   */
  fallback?(input: StrategyPlanInput): boolean;
  /**
   * Sessions start at their dataset timestamps and their later turns are sent at their own timestamps (trace
   * replay) rather than after their delays. @default false
   */
  readonly followsTimestamps?: boolean;
  /** Open loop: sessions in flight are not capped unless `--concurrency` is given (closed loop: 1 by default). */
  readonly openLoop?: boolean;
  /** After a duration, wait for every running session to end unless a grace period is given. */
  readonly waitsForSessions?: boolean;
  /** A warmup before this mode runs in a closed loop at the warmup's concurrency (a trace replay). */
  readonly warmsUpClosedLoop?: boolean;
  /**
   * The mode plans its own warmup, replacing the declared one (agentic replay primes each lane): its options, its
   * requests and how long after sending them it waits for their answers; undefined when there is nothing to warm.
   */
  ownWarmup?(
    input: StrategyPlanInput,
  ): { readonly options: O; readonly requests: number; readonly gracePeriodMs: number } | undefined;
  /** Longest time the whole phase may stay idle with requests scheduled (ms); undefined: no cap. */
  systemIdleGapCapMs?(options: O): number | undefined;
  /** Checks beyond the declared option relations, on the resolved values (run only when the mode is asked). */
  validate?(values: OptionReader): StrategyChecks;
  /**
   * This mode's engine options for one phase.
   * @throws {InputError} when the values or the dataset cannot be run this way.
   */
  plan(input: StrategyPlanInput): StrategyPlan<O>;
  /** One line said at the start of the phase: what this load does ("10 req/s, Poisson arrivals, …"). */
  describe(options: O): string;
  /** The options shard `i` of `n` runs. */
  split(options: O, i: number, n: number): StrategyShare<O>;
  create(options: O, ctx: StrategyContext): LoadStrategy;
}

/** A strategy's declaration with its options' literal types kept, so the configuration type includes them. */
export type LoadStrategyDeclaration<T extends readonly OptionSpec[], O> =
  & Omit<LoadStrategyEntry<O>, "options" | "plan">
  & {
    readonly options: T;
    plan(input: StrategyPlanInput<OptionValues<T>>): StrategyPlan<O>;
  };

/** Declares a load strategy: its `plan` reads its own options typed by their declarations. */
export function defineLoadStrategy<const T extends readonly OptionSpec[], O>(
  declaration: LoadStrategyDeclaration<T, O>,
): LoadStrategyEntry<O> & { readonly options: T } {
  return declaration as LoadStrategyEntry<O> & { readonly options: T };
}

/** A strategy choice as data: the registered name and its options. */
export interface StrategySpec {
  readonly name: string;
  readonly options: unknown;
}
