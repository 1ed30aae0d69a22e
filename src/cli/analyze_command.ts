/**
 * The options of `infermeter analyze swim-lane` and `infermeter analyze turn-messages` (AIPerf's `aiperf analyze`
 * subcommands), declared once: their parsers and `--help` come from here. Operands: run directories.
 */
import { type Command, defineCommand } from "../config/command_spec.ts";
import type { OptionSpec } from "../base/option_spec.ts";

const SWIM_LANE_OPTIONS = [
  {
    key: "out",
    type: "path",
    flags: ["--out"],
    short: "-o",
    group: "Options",
    metavar: "<file.png>",
    defaultDescription: "<run_dir>/swim_lane.png",
    help: "Where to write the PNG; only with one run directory.",
  },
  {
    key: "concurrency",
    type: "int",
    min: 1,
    max: 1_000_000,
    flags: ["--concurrency"],
    short: "-c",
    group: "Options",
    metavar: "<n>",
    help: "Draw this target concurrency as a reference line under the lanes.",
  },
  {
    key: "ramp",
    type: "float",
    min: 0,
    max: 86_400,
    flags: ["--ramp"],
    group: "Options",
    metavar: "<seconds>",
    defaultDescription: "the run's concurrency ramp, from its JSON summary",
    help: "Concurrency ramp duration to mark (ramp done).",
  },
  {
    key: "html",
    type: "bool",
    default: false,
    negatable: false,
    flags: ["--html"],
    group: "Options",
    help: "Also write an interactive page (swim_lane.html, or the --out path with .html): zoom with the wheel.",
  },
] as const satisfies readonly OptionSpec[];

const TURN_MESSAGES_OPTIONS = [
  {
    key: "out",
    type: "path",
    flags: ["--out"],
    short: "-o",
    group: "Options",
    metavar: "<file.html>",
    defaultDescription: "<run_dir>/turn_messages.html",
    help: "Where to write the page; only with one run directory.",
  },
  {
    key: "limitConversations",
    type: "int",
    default: 40,
    min: 0,
    max: 10_000_000,
    flags: ["--limit-conversations"],
    short: "-n",
    group: "Options",
    metavar: "<n>",
    help: "Most conversations shown (first requests first).",
  },
  {
    key: "maxTurns",
    type: "int",
    default: 60,
    min: 0,
    max: 10_000_000,
    flags: ["--max-turns"],
    group: "Options",
    metavar: "<n>",
    help: "Most turns shown per conversation; the rest are counted.",
  },
  {
    key: "contentCap",
    type: "int",
    default: 8000,
    min: 0,
    max: 1_000_000_000,
    flags: ["--content-cap"],
    group: "Options",
    metavar: "<chars>",
    help: "Most characters kept of each distinct message; longer ones are cut (the rest counted).",
  },
] as const satisfies readonly OptionSpec[];

/** `infermeter analyze swim-lane`. */
export const SWIM_LANE_COMMAND: Command<typeof SWIM_LANE_OPTIONS> = defineCommand({
  name: "analyze swim-lane",
  usage: "<run_dir>… [options]",
  description: "Draw a run's sessions as swim lanes (PNG): one lane per concurrent session slot, each request a bar, " +
    "the think time between a session's requests a faint band, a tick where a new session reuses a slot; under it the " +
    "requests in flight and the sessions idle between turns over time, with the slot count, the target concurrency, " +
    "the ramp end and the benchmark end marked. Reads profile_export.jsonl (and the JSON summary when present).\n" +
    "Exit codes: 0 drawn, 1 a run directory could not be drawn (the others still are), 2 bad options.",
  options: SWIM_LANE_OPTIONS,
  operands: "accept",
  examples: [
    { title: "One run", command: "infermeter analyze swim-lane artifacts/my-run" },
    {
      title: "With the target concurrency and a zoomable page",
      command: "infermeter analyze swim-lane run -c 32 --html",
    },
  ],
});

/** `infermeter analyze turn-messages`. */
export const TURN_MESSAGES_COMMAND: Command<typeof TURN_MESSAGES_OPTIONS> = defineCommand({
  name: "analyze turn-messages",
  usage: "<run_dir>… [options]",
  description: "Write a collapsible page of the messages each turn of a run sent (conversation → turn → message), " +
    "from its raw export (profile --export-level raw). Each distinct message is stored once; the page is one " +
    "self-contained file.\n" +
    "Exit codes: 0 written, 1 a run directory has no raw records (the others are still written), 2 bad options.",
  options: TURN_MESSAGES_OPTIONS,
  operands: "accept",
  examples: [{ title: "One run", command: "infermeter analyze turn-messages artifacts/my-run -n 100" }],
});
