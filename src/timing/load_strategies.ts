/**
 * The load strategies, declared once: the engine builds a phase's strategy from its registered name, `profile`
 * parses, types and lists each strategy's own options, and the load plan asks each which mode a run selects, so a
 * new load mode is one strategy file and one line here. The order is the order in which modes are tried when no
 * option asks for one (`fallback`): a timestamped dataset is replayed before the closed loop is taken.
 */
import { Registry } from "../base/registry.ts";
import type { LoadStrategyEntry } from "./load_strategy.ts";
import { CONCURRENCY_STRATEGY } from "./concurrency_strategy.ts";
import { REQUEST_RATE_STRATEGY } from "./request_rate_strategy.ts";
import { FIXED_SCHEDULE_STRATEGY } from "./fixed_schedule_strategy.ts";
import { USER_CENTRIC_STRATEGY } from "./user_centric_strategy.ts";
import { RATE_SERIES_STRATEGY } from "./rate_series_strategy.ts";
import { AGENTIC_REPLAY_STRATEGY } from "./agentic_replay_strategy.ts";

const STRATEGY_LIST = [
  FIXED_SCHEDULE_STRATEGY,
  USER_CENTRIC_STRATEGY,
  REQUEST_RATE_STRATEGY,
  RATE_SERIES_STRATEGY,
  CONCURRENCY_STRATEGY,
  AGENTIC_REPLAY_STRATEGY,
] as const;

export const LOAD_STRATEGIES: Registry<LoadStrategyEntry<unknown>> = new Registry(
  "load strategy",
  STRATEGY_LIST,
);

/** The option declarations of the registered strategies, with their literal types (for the configuration type). */
export type LoadStrategyOptionSpec = (typeof STRATEGY_LIST)[number]["options"][number];

/** Every registered strategy's options, in registry order. */
export const LOAD_STRATEGY_OPTIONS: readonly LoadStrategyOptionSpec[] = STRATEGY_LIST.flatMap((
  entry,
): readonly LoadStrategyOptionSpec[] => entry.options);
