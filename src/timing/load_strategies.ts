/**
 * The load strategies, declared once: the engine builds a phase's strategy from its registered name, so a new load
 * mode is one strategy file and one line here.
 */
import { Registry } from "../base/registry.ts";
import type { LoadStrategyEntry } from "./load_strategy.ts";
import { CONCURRENCY_STRATEGY } from "./concurrency_strategy.ts";
import { REQUEST_RATE_STRATEGY } from "./request_rate_strategy.ts";
import { FIXED_SCHEDULE_STRATEGY } from "./fixed_schedule_strategy.ts";
import { USER_CENTRIC_STRATEGY } from "./user_centric_strategy.ts";

export const LOAD_STRATEGIES: Registry<LoadStrategyEntry<unknown>> = new Registry("load strategy", [
  CONCURRENCY_STRATEGY,
  REQUEST_RATE_STRATEGY,
  FIXED_SCHEDULE_STRATEGY,
  USER_CENTRIC_STRATEGY,
]);
