/**
 * The options of `infermeter synthesize` (AIPerf's `aiperf synthesize`), declared once: its parser and `--help` come
 * from here. The operand (or `--target`) is the workload; AIPerf 0.13 has one, `agentic-code`.
 */
import { type Command, defineCommand } from "../config/command_spec.ts";
import type { OptionSpec } from "../base/option_spec.ts";

const SYNTHESIZE_OPTIONS = [
  {
    key: "target",
    type: "string",
    flags: ["--target"],
    group: "Parameters",
    metavar: "<workload>",
    help: "Dataset workload to synthesize (also the first operand): agentic-code.",
  },
  {
    key: "numSessions",
    type: "int",
    default: 1000,
    min: 1,
    max: 10_000_000,
    flags: ["--num-sessions"],
    group: "Parameters",
    metavar: "<n>",
    help: "Number of sessions to generate.",
  },
  {
    key: "output",
    type: "path",
    default: ".",
    flags: ["--output"],
    group: "Parameters",
    metavar: "<dir>",
    help: "Parent directory of the run directory (<config>_<n>s_seed<seed>_<time>/).",
  },
  {
    key: "config",
    type: "string",
    flags: ["--config"],
    group: "Parameters",
    metavar: "<name|file>",
    defaultDescription: "the built-in distributions",
    help: "Distributions to draw from: a bundled name (default), a config JSON, or a previous run's manifest.json.",
  },
  {
    key: "seed",
    type: "int",
    default: 42,
    min: 0,
    max: 4_294_967_295,
    flags: ["--seed"],
    group: "Parameters",
    metavar: "<n>",
    help: "Random seed: the same seed and config give the same dataset.",
  },
  {
    key: "maxIsl",
    type: "int",
    min: 1,
    max: 100_000_000,
    flags: ["--max-isl"],
    group: "Parameters",
    metavar: "<tokens>",
    help: "Maximum input sequence length: replaces the config's max_prompt_tokens (the context a session may reach).",
  },
  {
    key: "maxOsl",
    type: "int",
    min: 1,
    max: 100_000_000,
    flags: ["--max-osl"],
    group: "Parameters",
    metavar: "<tokens>",
    help: "Maximum output sequence length: replaces the config's generation_length.max.",
  },
] as const satisfies readonly OptionSpec[];

/** The workloads `synthesize` builds (AIPerf 0.13 has one). */
export const SYNTHESIZE_TARGETS = ["agentic-code"] as const;

/** `infermeter synthesize`. */
export const SYNTHESIZE_COMMAND: Command<typeof SYNTHESIZE_OPTIONS> = defineCommand({
  name: "synthesize",
  usage: "agentic-code [options]",
  description: "Synthesize a dataset workload. agentic-code: coding-agent sessions whose context grows turn by " +
    "turn (a shared tools and system prefix, a group's repository context, each session's own files, new tokens, " +
    "answers and think times drawn from the config's distributions, resets), written as a Mooncake trace with " +
    "KV-cache block ids into a run directory: dataset.jsonl, manifest.json (seed and every distribution, reusable " +
    "with --config), quality.json and comparison.txt (target against dataset), report.html. Replay it with " +
    "'infermeter profile --input-file <run>/dataset.jsonl --custom-dataset-type mooncake_trace'.\n" +
    "Exit codes: 0 written and valid, 1 the trace failed its Mooncake check, 2 bad options or config, 4 a file " +
    "could not be written.",
  options: SYNTHESIZE_OPTIONS,
  operands: "accept",
  examples: [
    { title: "1,000 sessions into ./datasets", command: "infermeter synthesize agentic-code --output datasets" },
    {
      title: "Clip the context and the answers",
      command: "infermeter synthesize agentic-code --num-sessions 200 --max-isl 131072 --max-osl 2000",
    },
    {
      title: "Again, from a previous run's manifest",
      command: "infermeter synthesize agentic-code --config datasets/default_1000s_seed42_<time>/manifest.json",
    },
  ],
});
