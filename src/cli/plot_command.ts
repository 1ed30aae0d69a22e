/**
 * The options of `infermeter plot`, declared once: its parser and `--help` come from here. The operands are the runs
 * to plot (artifact directories, summary JSON files, or a directory of runs).
 */
import { type Command, defineCommand } from "../config/command_spec.ts";
import type { OptionSpec } from "../base/option_spec.ts";

const PLOT_OPTIONS = [
  {
    key: "output",
    type: "path",
    flags: ["--output"],
    short: "-o",
    group: "Options",
    metavar: "<dir>",
    defaultDescription: "<run>/plots for one run, plots/ beside several runs",
    help: "Folder the charts and report.html are written to.",
  },
  {
    key: "format",
    type: "enum",
    choices: ["png", "svg"],
    default: "png",
    flags: ["--format"],
    group: "Options",
    help: "Image format of the charts.",
  },
] as const satisfies readonly OptionSpec[];

/** `infermeter plot`. */
export const PLOT_COMMAND: Command<typeof PLOT_OPTIONS> = defineCommand({
  name: "plot",
  usage: "<run>… [options]",
  description: "Draw a run's charts: TTFT, ITL and request latency distributions (histogram and CDF, p50/p90/p99 " +
    "marked), TTFT and ITL by send time, throughput and requests in flight over time, latency by output length. " +
    "With several runs (or a directory of runs): each latency's p50 and p99 and the throughput against concurrency " +
    "or request rate, and the throughput–latency curve. Writes report.html beside the charts: one file with the " +
    "tables and interactive charts that opens offline in any browser. Rendering needs no browser and no network.",
  options: PLOT_OPTIONS,
  operands: "accept",
});
