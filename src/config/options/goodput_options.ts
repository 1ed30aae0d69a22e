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
  {
    key: "thresholds",
    type: "list",
    items: "text",
    default: [],
    flags: ["--threshold"],
    common: true,
    repeatable: true,
    metavar: "<metric[.stat]<op><limit>>",
    yaml: ["benchmark.thresholds"],
    help: "Pass/fail criterion on the run's own metrics (k6's thresholds), e.g. 'time_to_first_token.p99<500', " +
      "'ttft.p99<0.5s', 'request_error_rate<1%', 'output_token_throughput>=1000/s'; a failed one exits 5.",
  },
  {
    key: "thresholdAbort",
    type: "bool",
    default: false,
    flags: ["--threshold-abort"],
    yaml: ["benchmark.threshold_abort"],
    help: "Judge the thresholds once a second while the run goes and stop it at the first that fails (k6's " +
      "abortOnFail); partial results are written.",
  },
]);
