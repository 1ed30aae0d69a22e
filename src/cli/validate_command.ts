/**
 * The options of `infermeter validate` (AIPerf's `aiperf validate`), declared once: its parser and `--help` come
 * from here. The operand is the artifact format; `--input` names the file.
 */
import { type Command, defineCommand } from "../config/command_spec.ts";
import type { OptionSpec } from "../base/option_spec.ts";

const VALIDATE_OPTIONS = [
  {
    key: "input",
    type: "path",
    flags: ["--input"],
    group: "Options",
    metavar: "<file>",
    required: "name the file to check: --input <file>",
    help: "The artifact file to check.",
  },
] as const satisfies readonly OptionSpec[];

/** Formats `validate` checks (AIPerf 0.13 has one). */
export const VALIDATE_TARGETS = ["mooncake-trace"] as const;

/** `infermeter validate`. */
export const VALIDATE_COMMAND: Command<typeof VALIDATE_OPTIONS> = defineCommand({
  name: "validate",
  usage: "mooncake-trace --input <file>",
  description: "Check that a file is a valid benchmark artifact before using it. mooncake-trace: every line is a " +
    "Mooncake trace row infermeter (and AIPerf) replays — exactly one of input_length, text_input, messages or " +
    "payload, hash_ids only with input_length, tools only with messages, numbers where numbers go; up to 10 problems " +
    "are listed with their line.\n" +
    "Exit codes: 0 valid, 1 invalid (the problems are listed), 2 bad options or an unreadable file.",
  options: VALIDATE_OPTIONS,
  operands: "accept",
  examples: [{
    title: "Check a trace before replaying it",
    command: "infermeter validate mooncake-trace --input trace.jsonl",
  }],
});
