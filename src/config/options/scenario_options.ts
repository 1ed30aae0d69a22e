/** `profile` options of the "Scenario" group: AIPerf 0.13's named scenario locks (config/scenario_lock.ts). */
import { optionGroup } from "./option_group.ts";

export const SCENARIO_OPTIONS = optionGroup("Scenario", [
  {
    key: "scenario",
    type: "string",
    flags: ["--scenario"],
    metavar: "<name>",
    yaml: ["benchmark.scenario"],
    help: "Lock every benchmark invariant of a named scenario: 'inferencex-agentx-mvp' runs agent traces (weka) in " +
      "the agentic replay mode with streaming, ignore_eos, a first-turn cache-bust marker, a 10 s system idle cap and " +
      "a 30 min run (at least 15 min). A conflicting option is an input error unless --unsafe-override is given.",
  },
  {
    key: "unsafeOverride",
    type: "bool",
    default: false,
    negatable: false,
    flags: ["--unsafe-override"],
    yaml: ["benchmark.unsafe_override"],
    help: "Turn the scenario's conflicts into warnings (the run is then not a valid submission). No effect " +
      "without --scenario.",
  },
]);
