/**
 * The options of `infermeter compare`, declared once: its parser and `--help` come from here. The operands are the
 * runs to compare (artifact directories, summary JSON files, or directories of runs); the first is the baseline.
 */
import { type Command, defineCommand } from "../config/command_spec.ts";
import type { OptionSpec } from "../base/option_spec.ts";

const COMPARE_OPTIONS = [
  {
    key: "failOn",
    type: "list",
    items: "text",
    repeatable: true,
    flags: ["--fail-on"],
    group: "Options",
    metavar: "<condition>",
    help: "Exit 4 when a run after the first meets this condition, <metric>.<stat><op><limit>: 'ttft.p99>+10%' " +
      "(more than 10 % above the baseline), 'output_token_throughput.avg<-5%' (5 % lower), 'itl.p50>+0.5' (0.5 ms " +
      "more), 'ttft.p99>500' (over 500 ms). Comma-separated or repeated.",
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
    help: "Metrics to show, by tag or short name (ttft, itl, latency, …), in this order.",
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
    "(the baseline). A run is an artifact directory, its profile_export_aiperf.json, or a directory of runs (a " +
    "sweep); infermeter's and AIPerf's exports are both read.\n" +
    "Exit codes: 0 compared (no --fail-on condition met), 2 bad options or unreadable runs, 4 a --fail-on condition " +
    "was met.",
  options: COMPARE_OPTIONS,
  operands: "accept",
});
