/** `profile` options of the "Multi-Run" group: repeated runs and parameter sweeps. */
import { MAX_DURATION_SECONDS } from "../../timing/load_limits.ts";
import { optionGroup } from "./option_group.ts";

export const MULTI_RUN_OPTIONS = optionGroup("Multi-Run", [
  {
    key: "numProfileRuns",
    type: "int",
    default: 1,
    min: 1,
    max: 10,
    flags: ["--num-profile-runs"],
    metavar: "<int>",
    help: "Run the profile this many times and report each metric statistic's mean, std, CV and Student-t " +
      "confidence interval across runs (profile_runs/run_NNNN/, aggregate/).",
  },
  {
    key: "profileRunCooldownSeconds",
    type: "float",
    default: 0,
    min: 0,
    max: MAX_DURATION_SECONDS,
    flags: ["--profile-run-cooldown-seconds"],
    metavar: "<seconds>",
    help: "Pause between profile runs.",
  },
  {
    key: "confidenceLevel",
    type: "float",
    default: 0.95,
    min: 0,
    exclusiveMin: true,
    max: 0.999999,
    flags: ["--confidence-level"],
    metavar: "<level>",
    help: "Confidence level of the intervals across profile runs (between 0 and 1, e.g. 0.90, 0.95, 0.99).",
  },
  {
    key: "profileRunDisableWarmupAfterFirst",
    type: "bool",
    default: true,
    flags: ["--profile-run-disable-warmup-after-first"],
    help: "Warm up in the first profile run only (--no-profile-run-disable-warmup-after-first: in every run).",
  },
  {
    key: "setConsistentSeed",
    type: "bool",
    default: true,
    flags: ["--set-consistent-seed"],
    help: "Without --random-seed, repeated runs and sweep points use seed 42, so they send the same workload.",
  },
  {
    key: "sweepType",
    type: "enum",
    choices: ["grid", "zip"],
    default: "grid",
    flags: ["--sweep-type"],
    help: "With several list values (--concurrency 1,4 --request-rate 2,8): every combination (grid), or the " +
      "lists paired element by element (zip; equal lengths).",
  },
  {
    key: "parameterSweepCooldownSeconds",
    type: "float",
    default: 0,
    min: 0,
    max: MAX_DURATION_SECONDS,
    flags: ["--parameter-sweep-cooldown-seconds"],
    metavar: "<seconds>",
    help: "Pause between sweep points.",
  },
]);
