/**
 * The options of `infermeter analyze-trace` (AIPerf's `aiperf analyze-trace`), declared once: its parser and `--help`
 * come from here. The operand is the Mooncake trace file.
 */
import { type Command, defineCommand } from "../config/command_spec.ts";
import type { OptionSpec } from "../base/option_spec.ts";

const ANALYZE_TRACE_OPTIONS = [
  {
    key: "blockSize",
    type: "int",
    default: 512,
    min: 1,
    max: 1_000_000,
    flags: ["--block-size"],
    group: "Options",
    metavar: "<tokens>",
    help: "Tokens per hash_id block (the KV-cache block size the trace was recorded with).",
  },
  {
    key: "outputFile",
    type: "path",
    flags: ["--output-file"],
    group: "Options",
    metavar: "<file>",
    help: "Also write the analysis as JSON (AIPerf's field names) to this file; its folder is created.",
  },
] as const satisfies readonly OptionSpec[];

/** `infermeter analyze-trace`. */
export const ANALYZE_TRACE_COMMAND: Command<typeof ANALYZE_TRACE_OPTIONS> = defineCommand({
  name: "analyze-trace",
  usage: "<trace.jsonl> [options]",
  description: "Analyze a Mooncake trace (input_length, output_length, hash_ids per line) before replaying it: " +
    "request count, unique prefixes and prefix groups, and the distributions of input length, shared context " +
    "length, unique prompt length, output length and the hit rate an infinite prefix cache would have.\n" +
    "Exit codes: 0 analyzed, 2 an unreadable file or a malformed line (file:line), or bad options.",
  options: ANALYZE_TRACE_OPTIONS,
  operands: "accept",
  examples: [
    {
      title: "Analyze a trace and keep the report",
      command: "infermeter analyze-trace trace.jsonl --block-size 64 --output-file trace_analysis.json",
    },
  ],
});
