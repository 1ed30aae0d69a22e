/**
 * The shared parser of every command: arguments (+ environment variables the table names) → the typed values of the
 * command's option table, defaults filled from the table. `profile` adds its YAML layer and rules on top
 * (`parse_profile_args.ts`); `serve-sim` and `calibrate` use this directly.
 */
import { ConfigError } from "./config_error.ts";
import type { Command } from "./command_spec.ts";
import { layerOptionValues, type OptionAssignment, valueSources } from "./layer_option_values.ts";
import type { OptionSpec, ValueSource } from "../base/option_spec.ts";
import type { LayeredOptionValues, OptionKeyOf } from "../base/option_values.ts";
import { type CliOccurrence, readCliArgs } from "./read_cli_args.ts";

/** What the parser reads besides the arguments. */
export interface CommandIo {
  /** Environment variables, for options that name one. @default {} */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** A successfully parsed command line. */
export interface ParsedCommand<T extends readonly OptionSpec[]> {
  /** Every option's value: given, or the table's default. Frozen. */
  readonly values: LayeredOptionValues<T>;
  /** Which layer each field's value came from. */
  readonly sources: Readonly<Record<OptionKeyOf<T>, ValueSource>>;
  /** Things that did not stop the command but change what the user may expect (one sentence each). */
  readonly warnings: readonly string[];
  /** The words after a bare `--`, for a command that passes them on. */
  readonly passedOn: readonly string[];
  /** The words that belong to no option, for a command that accepts operands. */
  readonly operands: readonly string[];
}

/**
 * Parses `argv` (the arguments after the command's name; `-h/--help` is the caller's to handle first).
 * @throws {ConfigError} listing every problem: unknown flags (with a "did you mean" hint), stray arguments, missing
 * or invalid values, required options not given.
 */
export function parseCommandArgs<const T extends readonly OptionSpec[]>(
  command: Command<T>,
  argv: readonly string[],
  io: CommandIo = {},
): ParsedCommand<T> {
  const cli = readCliArgs(argv, command);
  const layered = layerOptionValues(command.options, [
    ...envAssignments(command.options, io.env ?? {}),
    ...cliAssignments(cli.occurrences),
  ]);
  const problems = [...cli.problems, ...layered.problems];
  if (problems.length > 0) throw new ConfigError(problems);
  const values = Object.fromEntries([...layered.values].map(([key, value]) => [key, value.value]));
  return {
    values: Object.freeze(values) as LayeredOptionValues<T>,
    sources: Object.freeze(valueSources(command.options, layered.values)) as Record<OptionKeyOf<T>, ValueSource>,
    warnings: layered.warnings,
    passedOn: cli.passedOn,
    operands: cli.operands,
  };
}

/** One assignment per option whose environment variable is set (and not empty). */
export function envAssignments(
  options: readonly OptionSpec[],
  env: Readonly<Record<string, string | undefined>>,
): OptionAssignment[] {
  const assignments: OptionAssignment[] = [];
  for (const spec of options) {
    if (spec.env === undefined) continue;
    const name = [spec.env, ...(spec.envAliases ?? [])].find((n) => env[n] !== undefined && env[n] !== "");
    if (name === undefined) continue;
    assignments.push({ spec, raw: env[name], origin: `env ${name}`, source: "env" });
  }
  return assignments;
}

/** One assignment per option occurrence on the command line, in order. */
export function cliAssignments(occurrences: readonly CliOccurrence[]): OptionAssignment[] {
  return occurrences.map((occurrence) => ({
    spec: occurrence.spec,
    raw: occurrence.raw,
    origin: occurrence.flag,
    source: "cli",
    negated: occurrence.negated,
  }));
}
