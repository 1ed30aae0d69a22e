/** `profile` options of the "UI" group: what the terminal shows while the run goes on. */
import { optionGroup } from "./option_group.ts";

export const UI_OPTIONS = optionGroup("UI", [
  {
    key: "ui",
    type: "enum",
    choices: ["none", "simple", "dashboard"],
    flags: ["--ui-type", "--ui"],
    common: true,
    env: "INFERMETER_UI",
    yaml: ["benchmark.runtime.ui"],
    defaultDescription: "simple on a terminal, else none",
    resolvedByRule: true,
    help: "Progress display on stderr: 'simple' a progress bar, 'dashboard' a live view (progress, in flight, " +
      "throughput, TTFT/ITL/latency percentiles, errors, client CPU; one line every few seconds when not a " +
      "terminal), 'none' nothing.",
  },
]);
