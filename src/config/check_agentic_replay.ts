/**
 * AIPerf 0.13 reads the agentic-replay options only in its agentic_replay timing mode, which the
 * `--scenario inferencex-agentx-mvp` lock selects (timing/agentic_replay_strategy.ts reads them). On every other run
 * AIPerf checks their values (each range, min ≤ max ratio) and leaves them unused, except
 * `--agentic-cache-warmup-duration`, which it refuses. infermeter does the same, and says that the others change
 * nothing there. In the mode, `--agentic-cache-warmup-duration`'s accelerated stage is not built: refused too.
 */
import type { OptionReader } from "../base/option_spec.ts";
import { AGENTIC_REPLAY_KEYS } from "./options/agentic_replay_options.ts";

export interface AgenticReplayReport {
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

export function checkAgenticReplay(values: OptionReader): AgenticReplayReport {
  const problems: string[] = [];
  const warnings: string[] = [];
  const min = values.value("trajectoryStartMinRatio");
  const max = values.value("trajectoryStartMaxRatio");
  if (typeof min === "number" && typeof max === "number" && min > max) {
    problems.push(
      `${values.named("trajectoryStartMinRatio")} (${min}) must be <= ${values.named("trajectoryStartMaxRatio")} ` +
        `(${max}).`,
    );
  }
  if (values.isSet("scenario")) {
    // AIPerf's accelerated cache-pressure stage continues the warmed trajectories into the measured phase; that
    // hand-over is not built, and running without it would silently measure something else.
    if (values.isSet("agenticCacheWarmupDuration")) {
      problems.push(
        `${values.named("agenticCacheWarmupDuration")} (the accelerated cache-pressure warm-up after the priming ` +
          "requests) is not built yet in the agentic replay mode; remove it (the priming warm-up still runs).",
      );
    }
    return { problems, warnings };
  }
  if (values.isSet("agenticCacheWarmupDuration")) {
    problems.push(
      `${values.named("agenticCacheWarmupDuration")} requires the agentic_replay timing mode, which ` +
        "--scenario inferencex-agentx-mvp selects; add it, or remove this option.",
    );
  }
  for (const key of AGENTIC_REPLAY_KEYS) {
    if (key === "agenticCacheWarmupDuration" || !values.given(key)) continue;
    warnings.push(
      `${values.named(key)} has no effect: it applies only to the agentic_replay timing mode, which --scenario ` +
        "inferencex-agentx-mvp selects (AIPerf leaves it unused without that scenario too).",
    );
  }
  return { problems, warnings };
}
