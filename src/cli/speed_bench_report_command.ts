/**
 * The options of `infermeter speed-bench-report` (AIPerf's `aiperf speed-bench-report`), declared once: its parser
 * and `--help` come from here. The operands are run directories or the folders that hold them.
 */
import { type Command, defineCommand } from "../config/command_spec.ts";
import type { OptionSpec } from "../base/option_spec.ts";
import { SPEED_BENCH_METRICS } from "../report/speed_bench_report.ts";

const SPEED_BENCH_REPORT_OPTIONS = [
  {
    key: "output",
    type: "path",
    default: "speed_bench_report.csv",
    flags: ["--output"],
    group: "Options",
    metavar: "<file>",
    help: "The CSV file written (with --format csv or both).",
  },
  {
    key: "format",
    type: "enum",
    choices: ["csv", "table", "both"],
    default: "both",
    flags: ["--format"],
    group: "Options",
    help: "Write the CSV, print the table, or both.",
  },
  {
    key: "metric",
    type: "enum",
    choices: SPEED_BENCH_METRICS,
    default: "accept_length",
    flags: ["--metric"],
    group: "Options",
    help: "accept_length (tokens per verification step), accept_rate (accepted / drafted tokens, a fraction) or " +
      "throughput (output tokens/s).",
  },
] as const satisfies readonly OptionSpec[];

/** `infermeter speed-bench-report`. */
export const SPEED_BENCH_REPORT_COMMAND: Command<typeof SPEED_BENCH_REPORT_OPTIONS> = defineCommand({
  name: "speed-bench-report",
  usage: "<path>… [options]",
  description: "Assemble per-category SPEED-Bench runs into AIPerf's matrix: run 'infermeter profile' once per " +
    "speed_bench_* dataset type (or spec_al_* public dataset) against a speculative-decoding server, then point this " +
    "at the run directories or the folder holding them. One row per model, one column per category, and Overall " +
    "(the mean). Acceptance comes from the server metrics (SGLang / TensorRT-LLM gauges, vLLM's counters), else " +
    "from the run's own per-request speculative-decoding statistics.\n" +
    "Exit codes: 0 written, 2 bad options, no run directories or no SPEED-Bench results, 4 the CSV could not be " +
    "written.",
  options: SPEED_BENCH_REPORT_OPTIONS,
  operands: "accept",
  examples: [
    { title: "Scan a folder of per-category runs", command: "infermeter speed-bench-report ./artifacts/" },
    {
      title: "Acceptance rate matrix, table only",
      command: "infermeter speed-bench-report ./artifacts/ --metric accept_rate --format table",
    },
  ],
});
