/**
 * A command's declaration for the shared parser and help renderer: its name, what it does, its option table and the
 * text around the option list. Every command (`profile`, `serve-sim`, `calibrate`, `demo`) is one of these, so they
 * all read their arguments with `read_cli_args.ts` and render `--help` with `render_help.ts`.
 */
import { OptionIndex } from "./option_index.ts";
import type { OptionSpec } from "../base/option_spec.ts";

/** What a command declares. */
export interface CommandSpec<T extends readonly OptionSpec[] = readonly OptionSpec[]> {
  /** The word after `infermeter` (`profile`, `serve-sim`). */
  readonly name: string;
  /** What follows the command name in the usage line. @default "[options]" */
  readonly usage?: string;
  /** Paragraphs under the usage line (separated by blank lines). */
  readonly description: string;
  readonly options: T;
  /** `--help` groups in display order; groups not listed follow in table order. @default table order */
  readonly groups?: readonly string[];
  /** Heading of the list of recognised-but-unsupported flags in `--help`. @default "Recognised but not supported yet:" */
  readonly unsupportedHeading?: string;
  /** Text after the option list (verbatim, already wrapped). */
  readonly epilogue?: string;
  /** Complete command lines shown in `--help`, each under a one-line title. */
  readonly examples?: readonly HelpExample[];
  /**
   * Words after a bare `--`: `reject` reports them as stray arguments, `passOn` returns them for another command
   * (`calibrate -- <profile options>`). @default "reject"
   */
  readonly afterTerminator?: "reject" | "passOn";
  /**
   * Words that belong to no option (before any unknown option, and after a bare `--`): `reject` reports them as
   * stray arguments, `accept` returns them as the command's operands (`compare <dir> <dir>`). @default "reject"
   */
  readonly operands?: "reject" | "accept";
}

/** One example of `--help`: what it does, and the command line. */
export interface HelpExample {
  readonly title: string;
  readonly command: string;
  /** Shown by `--help-all` only (the short `--help` keeps a first run's examples). */
  readonly allOnly?: boolean;
}

/** A declared command with the lookups its table needs, built once. */
export interface Command<T extends readonly OptionSpec[] = readonly OptionSpec[]> extends CommandSpec<T> {
  readonly index: OptionIndex;
}

/**
 * Builds the lookups of `spec`'s table (checking that no spelling is declared twice).
 * @throws {RangeError} when two options share a flag.
 */
export function defineCommand<const T extends readonly OptionSpec[]>(spec: CommandSpec<T>): Command<T> {
  return Object.freeze({ ...spec, index: new OptionIndex(spec.options) });
}
