/**
 * A load strategy decides WHEN requests go out; the engine's phase runner (engine/phase_runner.ts) decides WHAT
 * goes out (a new session, or the next turn of one already running) and stop conditions decide WHETHER
 * (timing/stop_conditions.ts). Each strategy is a named entry of `LOAD_STRATEGIES` with its own options as plain
 * data (they cross to engine Workers), how they split across shards, and a factory of the live object.
 *
 * A session holds one session slot from its first turn to its last (AIPerf: concurrency counts sessions). Ticks
 * are send opportunities: open-loop schedules give them at absolute due times, and there a running session's next
 * turn waits for a tick of its own (priority over new sessions), so the request rate counts every request; a
 * closed loop gives them at once and a session's turns follow each other directly.
 */
import type { RegistryEntry } from "../base/registry.ts";
import type { SeededRandom } from "../base/seeded_random.ts";
import type { Clock } from "./clock.ts";

/** One send opportunity. */
export interface Tick {
  /** Absolute run-clock time the request was due (open loop, fixed schedule); undefined in a closed loop. */
  readonly scheduledAt?: number;
  /** The conversation (index into the phase's dataset) a new session must run, when the strategy decides. */
  readonly conversationIndex?: number;
  /** A new session sends at most this many of its turns (user-centric rate: users met mid-conversation). */
  readonly maxTurns?: number;
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

/** A strategy as registered: options are plain data (structured-clone safe). */
export interface LoadStrategyEntry<O = unknown> extends RegistryEntry {
  /** The options shard `i` of `n` runs. */
  split(options: O, i: number, n: number): StrategyShare<O>;
  create(options: O, ctx: StrategyContext): LoadStrategy;
}

/** A strategy choice as data: the registered name and its options. */
export interface StrategySpec {
  readonly name: string;
  readonly options: unknown;
}
