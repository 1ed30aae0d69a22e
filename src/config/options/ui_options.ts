/** `profile` options of the "UI" group: what the terminal shows while the run goes on. */
import { optionGroup } from "./option_group.ts";

export const UI_OPTIONS = optionGroup("UI", [
  {
    key: "ui",
    type: "enum",
    choices: ["none", "simple", "dashboard"],
    flags: ["--ui-type", "--ui"],
    common: true,
    default: "simple",
    env: "INFERMETER_UI",
    yaml: ["benchmark.runtime.ui"],
    help: "Progress display on stderr: 'simple' a progress bar with the rate, tokens/s, in-flight and errors (one " +
      "plain line every --progress-every seconds when not a terminal), 'dashboard' a live view (progress, in " +
      "flight, throughput, TTFT/ITL/latency percentiles, errors, client CPU), 'none' nothing.",
  },
  {
    key: "console",
    type: "enum",
    choices: ["compact", "full", "aiperf"],
    default: "compact",
    flags: ["--console"],
    env: "INFERMETER_CONSOLE",
    yaml: ["benchmark.runtime.console"],
    help: "What the console shows at the end: 'compact' the headline (counts, TTFT, ITL, latency, throughput, " +
      "verdicts), AIPerf's main metrics table, errors and the files; 'full' every table (time-weighted, usage, " +
      "server metrics, GPUs); 'aiperf' exactly AIPerf's tables, no headline. The console file keeps every table.",
  },
  {
    key: "progressEvery",
    type: "float",
    default: 10,
    min: 0.1,
    max: 86400,
    flags: ["--progress-every"],
    metavar: "<seconds>",
    env: "INFERMETER_PROGRESS_EVERY",
    yaml: ["benchmark.runtime.progress_every"],
    help: "Seconds between two progress lines when stderr is not a terminal (CI logs).",
  },
]);
