/**
 * The options of `infermeter compare`, declared once: its parser and `--help` come from here. The operands are the
 * runs to compare (artifact directories, summary JSON files, or directories of runs); the first is the baseline.
 */
import { type Command, defineCommand } from "../config/command_spec.ts";
import type { OptionSpec } from "../base/option_spec.ts";
import { EXIT } from "./exit_codes.ts";

const COMPARE_OPTIONS = [
  {
    key: "failOn",
    type: "list",
    items: "text",
    repeatable: true,
    flags: ["--fail-on"],
    group: "Options",
    metavar: "<condition>",
    help: `Exit ${EXIT.THRESHOLD_CROSSED} when a run after the first meets this condition, ` +
      "<metric>.<stat><op><limit>: 'ttft.p99>+10%' (more than 10 % above the baseline), " +
      "'output_token_throughput.avg<-5%' (5 % lower), 'itl.p50>+0.5' (0.5 ms more), 'ttft.p99>500' (over 500 ms). " +
      "A change fails only when its whole confidence interval is past the limit (noise alone never fails); a " +
      "value is judged as measured. Comma-separated or repeated.",
  },
  {
    key: "stats",
    type: "list",
    items: "text",
    default: ["avg", "p50", "p90", "p99"],
    flags: ["--stats"],
    group: "Options",
    metavar: "<list>",
    help: "Statistics of each distribution to show (avg, min, max, std, p1 … p99).",
  },
  {
    key: "metrics",
    type: "list",
    items: "text",
    flags: ["--metrics"],
    group: "Options",
    metavar: "<list>",
    defaultDescription: "the metrics of the console table",
    help: "Metrics to show, by tag or short name (ttft, itl, latency, …), in this order; 'all' for every metric.",
  },
  {
    key: "confidenceLevel",
    type: "float",
    default: 0.95,
    min: 0.5,
    max: 0.999,
    flags: ["--confidence-level"],
    group: "Options",
    metavar: "<level>",
    help: "Confidence level of the intervals of the differences (0.5 to 0.999). A difference whose interval holds " +
      "0 is '≈ same'.",
  },
  {
    key: "consoleWidth",
    type: "int",
    min: 40,
    max: 1000,
    flags: ["--console-width"],
    group: "Options",
    metavar: "<columns>",
    defaultDescription: "the terminal's width, 160 when not a terminal",
    help: "Widest the tables may be: long headers and labels wrap to fit.",
  },
  {
    key: "json",
    type: "bool",
    default: false,
    flags: ["--json"],
    group: "Options",
    help: "Print the comparison as JSON on stdout instead of the table.",
  },
  {
    key: "html",
    type: "path",
    flags: ["--html"],
    group: "Options",
    metavar: "<file>",
    help: "Also write the comparison as one self-contained HTML file (table and charts, no network needed).",
  },
] as const satisfies readonly OptionSpec[];

/** `infermeter compare`. */
export const COMPARE_COMMAND: Command<typeof COMPARE_OPTIONS> = defineCommand({
  name: "compare",
  usage: "<run> <run>… [options]",
  description: "Compare runs side by side: each metric's statistics and every run's change from the first run " +
    "(the baseline), with the change's confidence interval from the runs' per-request records (a seeded " +
    "bootstrap; throughputs by batch means) and a verdict: '≈ same' when the interval holds 0, else better or " +
    "worse by the metric's direction. Without per-request records (AIPerf's summary only, --export-level summary) " +
    "the interval is unknown and the plain difference is shown, marked †. A run is an artifact directory or its " +
    "profile_export_aiperf.json, or a run bundle (run.bundle.tar.gz, checked first); infermeter's and AIPerf's " +
    "exports are both read. A sweep directory alone shows " +
    "each metric against the swept load.\n" +
    `Exit codes: ${EXIT.OK} compared (no --fail-on condition met), ${EXIT.USAGE} bad options or unreadable runs, ` +
    `${EXIT.THRESHOLD_CROSSED} a --fail-on condition was met.`,
  options: COMPARE_OPTIONS,
  operands: "accept",
});
