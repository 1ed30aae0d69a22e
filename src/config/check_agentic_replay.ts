/**
 * AIPerf 0.13 reads the agentic-replay options only in its agentic_replay timing mode, which only the
 * `--scenario inferencex-agentx-mvp` lock selects (infermeter has no scenario locks). On every other run AIPerf
 * checks their values (each range, min ≤ max ratio) and leaves them unused, except `--agentic-cache-warmup-duration`,
 * which it refuses. infermeter does the same, and says that the others change nothing.
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
  if (values.isSet("agenticCacheWarmupDuration")) {
    problems.push(
      `${values.named("agenticCacheWarmupDuration")} requires the agentic_replay timing mode (set in AIPerf by ` +
        "--scenario inferencex-agentx-mvp, whose scenario locks infermeter does not have); remove it.",
    );
  }
  for (const key of AGENTIC_REPLAY_KEYS) {
    if (key === "agenticCacheWarmupDuration" || !values.given(key)) continue;
    warnings.push(
      `${values.named(key)} has no effect: it applies only to AIPerf's agentic_replay timing mode (--scenario ` +
        "inferencex-agentx-mvp), which infermeter does not run; AIPerf leaves it unused without that scenario too.",
    );
  }
  return { problems, warnings };
}
