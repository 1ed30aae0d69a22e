/**
 * The load strategies, declared once: the engine builds a phase's strategy from its registered name, so a new load
 * mode is one strategy file and one line here.
 */
import { Registry } from "../base/registry.ts";
import type { LoadStrategyEntry } from "./load_strategy.ts";
import { CONCURRENCY_STRATEGY } from "./concurrency_strategy.ts";
import { REQUEST_RATE_STRATEGY } from "./request_rate_strategy.ts";
import { FIXED_SCHEDULE_STRATEGY } from "./fixed_schedule_strategy.ts";

export const LOAD_STRATEGIES: Registry<LoadStrategyEntry<unknown>> = new Registry("load strategy", [
  CONCURRENCY_STRATEGY,
  REQUEST_RATE_STRATEGY,
  FIXED_SCHEDULE_STRATEGY,
], {
  unsupported: {
    user_centric_rate: "per-user rates (--user-centric-rate) are planned",
  },
});
