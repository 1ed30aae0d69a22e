/**
 * `profile` options of AIPerf 0.13's agentic_replay timing mode (Load Generator, Warmup and Input groups), kept in
 * AIPerf's help groups and read by the mode (timing/agentic_replay_strategy.ts), which `--scenario
 * inferencex-agentx-mvp` selects. On any other run AIPerf checks their values and ignores them,
 * `--agentic-cache-warmup-duration` excepted (refused); infermeter does the same (`check_agentic_replay.ts`), with a
 * notice that they change nothing there.
 */
import { PROFILING_PHASE } from "./option_group.ts";
import { MAX_DURATION_SECONDS } from "../../timing/load_limits.ts";
import type { OptionSpec } from "../../base/option_spec.ts";

const ONLY = "Agentic replay mode only (--scenario inferencex-agentx-mvp):";

export const AGENTIC_REPLAY_OPTIONS = [
  {
    key: "trajectoryStartMinRatio",
    type: "float",
    min: 0,
    max: 1,
    default: 0.25,
    flags: ["--trajectory-start-min-ratio"],
    group: "Load Generator",
    metavar: "<ratio>",
    yaml: [`${PROFILING_PHASE}.trajectory_start_min_ratio`],
    help: `${ONLY} lowest start point within each trace, as a share of its recorded duration.`,
  },
  {
    key: "trajectoryStartMaxRatio",
    type: "float",
    min: 0,
    max: 1,
    default: 0.75,
    flags: ["--trajectory-start-max-ratio"],
    group: "Load Generator",
    metavar: "<ratio>",
    yaml: [`${PROFILING_PHASE}.trajectory_start_max_ratio`],
    help: `${ONLY} highest start point within each trace, as a share of its recorded duration.`,
  },
  {
    key: "burstPhaseStarts",
    type: "bool",
    default: false,
    negatable: false,
    flags: ["--burst-phase-starts"],
    group: "Load Generator",
    yaml: [`${PROFILING_PHASE}.burst_phase_starts`],
    help: `${ONLY} send the first requests of the warm-up and of the measured phase together instead of at ` +
      "their recorded offsets.",
  },
  {
    key: "systemIdleGapCapSeconds",
    type: "float",
    min: 0,
    max: MAX_DURATION_SECONDS,
    flags: ["--system-idle-gap-cap-seconds"],
    group: "Load Generator",
    metavar: "<seconds>",
    yaml: [`${PROFILING_PHASE}.system_idle_gap_cap_seconds`],
    help: `${ONLY} longest time the replay may stay idle with requests still scheduled.`,
  },
  {
    key: "agenticCacheWarmupDuration",
    type: "float",
    min: 0,
    exclusiveMin: true,
    max: MAX_DURATION_SECONDS,
    flags: ["--agentic-cache-warmup-duration"],
    group: "Warmup",
    metavar: "<seconds>",
    yaml: [`${PROFILING_PHASE}.agentic_cache_warmup_duration`],
    help: `${ONLY} AIPerf's accelerated cache-pressure warm-up (the warmed trajectories continued without idle ` +
      "delays, one-token answers, for this long). Not built yet: refused, as AIPerf refuses it on any other run.",
  },
  {
    key: "agenticWarmupGracePeriod",
    type: "float",
    min: 0,
    max: MAX_DURATION_SECONDS,
    flags: ["--agentic-warmup-grace-period"],
    group: "Warmup",
    metavar: "<seconds>",
    yaml: [`${PROFILING_PHASE}.agentic_warmup_grace_period`],
    help: `${ONLY} how long the warm-up barrier waits for its priming requests once sent (default: until every ` +
      "one is answered; under --scenario, --warmup-grace-period when this is not given).",
  },
  {
    key: "allowDatasetWrap",
    type: "bool",
    default: false,
    flags: ["--allow-dataset-wrap"],
    group: "Input",
    help: `${ONLY} let more replay lanes (--concurrency) than traces replay a trace twice; a bounded run refuses it ` +
      "otherwise, unless a --cache-bust target keeps the repeats distinct.",
  },
] as const satisfies readonly OptionSpec[];

/** The keys above, for the check that says they change nothing. */
export const AGENTIC_REPLAY_KEYS = AGENTIC_REPLAY_OPTIONS.map((o) => o.key);
