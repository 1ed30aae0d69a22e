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
