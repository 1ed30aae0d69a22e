/** `profile` options of the "Goodput" group: service-level objectives a request must meet to count as good. */
import { optionGroup } from "./option_group.ts";

export const GOODPUT_OPTIONS = optionGroup("Goodput", [
  {
    key: "goodput",
    type: "goodput",
    default: [],
    flags: ["--goodput"],
    common: true,
    metavar: "<tag:value ...>",
    yaml: ["benchmark.slos"],
    help: "Service-level objectives as space-separated metric_tag:value pairs in the metric's display unit, e.g. " +
      "'request_latency:250 inter_token_latency:10'; a request is good when it meets all of them.",
  },
]);
