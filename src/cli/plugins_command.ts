/**
 * The options of `infermeter plugins` (AIPerf's `aiperf plugins`), declared once: its parser and `--help` come from
 * here. Operands: an optional category, then an optional name in it.
 */
import { type Command, defineCommand } from "../config/command_spec.ts";
import type { OptionSpec } from "../base/option_spec.ts";

const PLUGINS_OPTIONS = [
  {
    key: "all",
    type: "bool",
    default: false,
    negatable: false,
    flags: ["--all"],
    short: "-a",
    group: "Options",
    help: "Show every category and the names in it.",
  },
  {
    key: "validate",
    type: "bool",
    default: false,
    negatable: false,
    flags: ["--validate"],
    short: "-v",
    group: "Options",
    help: "Check the registries (unique names, descriptions, a serve-sim route for every endpoint type, no option " +
      "flag declared twice); exit 1 on a problem.",
  },
  {
    key: "json",
    type: "bool",
    default: false,
    negatable: false,
    flags: ["--json"],
    group: "Options",
    help: "Print the listing as JSON on stdout instead of tables.",
  },
] as const satisfies readonly OptionSpec[];

/** `infermeter plugins`. */
export const PLUGINS_COMMAND: Command<typeof PLUGINS_OPTIONS> = defineCommand({
  name: "plugins",
  usage: "[category] [name] [options]",
  description: "List what infermeter is built from: endpoint types, custom dataset types, public datasets, load " +
    "strategies, outputs, metrics and serve-sim routes (AIPerf's plugin categories; infermeter's are built in). " +
    "Without a category: the categories and their sizes; with one: its entries; with a name too: that entry's " +
    "details.\n" +
    "Categories: endpoint, custom_dataset_loader (dataset), public_dataset_loader (public_dataset), " +
    "timing_strategy (load_strategy), data_exporter (output), metric, sim_route.\n" +
    "Exit codes: 0 listed (or valid), 1 --validate found a problem, 2 an unknown category or name.",
  options: PLUGINS_OPTIONS,
  operands: "accept",
  examples: [
    { title: "Every category and its names", command: "infermeter plugins --all" },
    { title: "The endpoint types", command: "infermeter plugins endpoint" },
    { title: "One endpoint type in detail", command: "infermeter plugins endpoint video_generation" },
  ],
});
