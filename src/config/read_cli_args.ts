/**
 * Reads a command's arguments against its option table, returning every option occurrence in command-line order
 * (raw, not yet typed) and every problem found: unknown flags with a "did you mean" hint, stray arguments, missing
 * values. Every command (`profile`, `serve-sim`, `calibrate`, `demo`) reads its arguments here.
 *
 * The parser is our own, table-driven, and imports nothing heavy: loading an npm argument parser (CommonJS, which
 * pulls in Deno's Node compatibility layer) cost ~25–30 ms of `profile`'s startup. Its rules are those of commander
 * 15's `parseOptions`, which the commands used before (listed on {@link scanOptions}), so messages and edge cases
 * did not change.
 */
import { didYouMeanHint } from "../base/did_you_mean.ts";
import type { Command } from "./command_spec.ts";
import type { FlagBinding, OptionIndex } from "./option_index.ts";
import { enumChoices, negatedFlagNames, optionArity, type OptionSpec } from "../base/option_spec.ts";
import { isSecretKeyName, REDACTED } from "../base/redact_secrets.ts";

/** One option as it appeared on the command line. */
export interface CliOccurrence {
  readonly spec: OptionSpec;
  /** The spelling used (`--isl`, `-m`, `--no-streaming`). */
  readonly flag: string;
  /** The value after the flag; undefined for flags without a value. */
  readonly raw: string | undefined;
  readonly negated: boolean;
}

/** Result of {@link readCliArgs}. */
export interface CliArgs {
  readonly occurrences: readonly CliOccurrence[];
  readonly problems: readonly string[];
  /** The words after a bare `--`, for a command that passes them on (else they are problems). */
  readonly passedOn: readonly string[];
  /** Words that belong to no option, for a command that accepts operands (else they are problems). */
  readonly operands: readonly string[];
}

/** True when the arguments ask for help (`-h`/`--help` before any `--`). */
export function isHelpRequest(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === "--") return false;
    if (arg === "-h" || arg === "--help" || arg === "--help-all") return true;
  }
  return false;
}

/** Parses `argv` (the arguments after the command's name) against `command`'s table. Never throws. */
export function readCliArgs(argv: readonly string[], command: Command): CliArgs {
  const ctx: ReadContext = {
    index: command.index,
    seeHelp: `see 'infermeter ${command.name} --help' for all options`,
    negativeNumbersAreValues: ![...command.index.bindings.keys()].some((flag) => /^-\d$/.test(flag)),
  };
  const problems: string[] = [];
  const { args, afterTerminator } = preprocess(ctx, argv, problems);
  const passOn = command.afterTerminator === "passOn";
  const accept = command.operands === "accept";
  const strayAfterTerminator = passOn || accept ? [] : afterTerminator;
  const occurrences: CliOccurrence[] = [];
  const scanned = scanOptions(ctx, args, occurrences);
  if (scanned === "missingValue") {
    // Parsing stopped at the last word, an option without its value; words read so far are not reported as strays.
    const flag = args[args.length - 1];
    problems.push(`${flag} needs a value; put one after it, e.g. ${flag} ${exampleValue(ctx, flag)}.`);
    reportStrays(ctx, [], [], strayAfterTerminator, args, problems);
  } else {
    reportStrays(ctx, accept ? [] : scanned.operands, scanned.unknown, strayAfterTerminator, args, problems);
  }
  const operands = accept && scanned !== "missingValue"
    ? [...scanned.operands, ...(passOn ? [] : afterTerminator)]
    : [];
  return { occurrences, problems, passedOn: passOn ? afterTerminator : [], operands };
}

/** What the reading functions share for one command. */
interface ReadContext {
  readonly index: OptionIndex;
  /** `see 'infermeter <command> --help' for all options`. */
  readonly seeHelp: string;
  /** A negative number is a value, not an option, unless some option is spelled like one (`-1`). */
  readonly negativeNumbersAreValues: boolean;
}

/** Looks like an option: two or more characters starting with `-`. */
function maybeOption(arg: string): boolean {
  return arg.length > 1 && arg[0] === "-";
}

function isNegativeNumber(ctx: ReadContext, arg: string): boolean {
  return ctx.negativeNumbersAreValues && /^-(\d+|\d*\.\d+)([eE][+-]?\d+)?$/.test(arg);
}

/**
 * Reads the options out of `args` (already preprocessed, no `--` terminator left except as a value), appending one
 * occurrence per option in order. Returns the words that belong to no option (`operands` before the first unknown
 * option, `unknown` from it on), or `"missingValue"` when the last word is an option that needs a value.
 *
 * These are commander 15's `parseOptions` rules, which the commands followed before this parser replaced commander:
 * - a word that is a known flag takes the next word as its value whatever it looks like (`--extra-inputs -1`,
 *   `--model -x`) when the option requires one; an optional value is taken only if the next word does not look like
 *   an option (negative numbers do not count as options);
 * - `-Xrest`, where `-X` is a known short flag: the rest is the value (`-Hx-a:1`, `-m=foo` → `=foo`); for an option
 *   without a value the rest is read again as `-rest` (`-vvv` is three `-v`, `-vm x` is `-v -m x`);
 * - `--flag=value` for a known flag that takes a value;
 * - a bare `--` ends option parsing: the words after it are operands (after an unknown option: `unknown`, `--`
 *   included);
 * - anything else that looks like an option (and is not a negative number) is unknown: it and every later word that
 *   is not a known option land in `unknown`; other words are operands.
 */
function scanOptions(
  ctx: ReadContext,
  args: readonly string[],
  out: CliOccurrence[],
): { operands: string[]; unknown: string[] } | "missingValue" {
  const operands: string[] = [];
  const unknown: string[] = [];
  let dest = operands;
  const emit = (binding: FlagBinding, raw: string | undefined): void => {
    out.push({ spec: binding.spec, flag: binding.flag, raw, negated: binding.negated });
  };
  let pendingGroup: string | undefined; // the rest of a group of short flags, like `-vm` after `-v`
  let i = 0;
  while (i < args.length || pendingGroup !== undefined) {
    const arg = pendingGroup ?? args[i++];
    pendingGroup = undefined;

    if (arg === "--") {
      // Only reachable as a word that preprocess took for a value but an option before it consumed instead
      // (`-vm --isl -- x`), or as the rest of a short group (`-v-`): everything after it is an operand.
      if (dest === unknown) dest.push(arg);
      dest.push(...args.slice(i));
      break;
    }

    if (maybeOption(arg)) {
      const binding = ctx.index.bindings.get(arg);
      if (binding !== undefined) {
        if (binding.arity === "required") {
          if (i >= args.length) return "missingValue";
          emit(binding, args[i++]);
        } else if (binding.arity === "optional") {
          const next = args[i];
          const takesNext = i < args.length && (!maybeOption(next) || isNegativeNumber(ctx, next));
          if (takesNext) i++;
          emit(binding, takesNext ? next : undefined);
        } else {
          emit(binding, undefined);
        }
        continue;
      }
    }

    if (arg.length > 2 && arg[0] === "-" && arg[1] !== "-") {
      const binding = ctx.index.bindings.get(arg.slice(0, 2));
      if (binding !== undefined) {
        if (binding.arity === "none") {
          emit(binding, undefined);
          pendingGroup = `-${arg.slice(2)}`;
        } else {
          emit(binding, arg.slice(2));
        }
        continue;
      }
    }

    if (/^--[^=]+=/.test(arg)) {
      const eq = arg.indexOf("=");
      const binding = ctx.index.bindings.get(arg.slice(0, eq));
      if (binding !== undefined && binding.arity !== "none") {
        emit(binding, arg.slice(eq + 1));
        continue;
      }
    }

    if (dest === operands && maybeOption(arg) && !isNegativeNumber(ctx, arg)) dest = unknown;
    dest.push(arg);
  }
  return { operands, unknown };
}

/**
 * Rewrites what {@link scanOptions} does not handle: `-vv` → `--extra-verbose`, `--flag=true|false` for booleans
 * (→ `--flag` or `--no-flag`), a required value forgotten before the next option, and splits off everything after
 * `--`.
 */
function preprocess(
  ctx: ReadContext,
  argv: readonly string[],
  problems: string[],
): { args: string[]; afterTerminator: string[] } {
  const args: string[] = [];
  let expectValue = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (expectValue) {
      args.push(arg);
      expectValue = false;
      continue;
    }
    if (arg === "--") return { args, afterTerminator: argv.slice(i + 1) };
    const multi = ctx.index.multiLetterShorts.get(arg);
    if (multi !== undefined) {
      args.push(multi);
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const spec = ctx.index.find(name);
    if (spec !== undefined && eq > 0 && optionArity(spec) === "none") {
      if (spec.type === "bool" && !name.startsWith("--no-")) {
        const word = arg.slice(eq + 1).trim().toLowerCase();
        if (["true", "1", "yes", "on"].includes(word)) args.push(name);
        else if (["false", "0", "no", "off"].includes(word)) {
          args.push(negatedFlagNames(spec)[0] ?? `--no-${name.slice(2)}`);
        } else {problems.push(
            `${name}: '${arg.slice(eq + 1)}' is not true or false; write ${name} or --no-${name.slice(2)}.`,
          );}
      } else {
        problems.push(`${name} takes no value; write ${name} alone.`);
      }
      continue;
    }
    if (
      spec !== undefined && eq < 0 && optionArity(spec) === "required" && (arg.startsWith("--") || arg.length === 2)
    ) {
      const next = argv[i + 1];
      const nextName = next?.startsWith("--") ? next.split("=")[0] : next;
      if (next !== undefined && (ctx.index.find(nextName) !== undefined || ctx.index.multiLetterShorts.has(next))) {
        // `--model --url x`: the value was forgotten; do not let the option swallow the next flag.
        problems.push(
          `${arg} is missing its value (the next word is the option ${nextName}); put a value after ${arg}.`,
        );
        continue;
      }
      expectValue = true;
    }
    args.push(arg);
  }
  return { args, afterTerminator: [] };
}

/** Problems for unknown options and for arguments that belong to no option. */
function reportStrays(
  ctx: ReadContext,
  operands: readonly string[],
  unknown: readonly string[],
  afterTerminator: readonly string[],
  args: readonly string[],
  problems: string[],
): void {
  const flagNames = ctx.index.flagNames;
  let previousWasUnknownFlag = false;
  let previousSecret = false;
  for (const item of unknown) {
    if (item.startsWith("-") && !/^-\d/.test(item)) {
      const name = item.includes("=") ? item.slice(0, item.indexOf("=")) : item;
      const hint = didYouMeanHint(name, flagNames);
      problems.push(
        hint === ""
          ? `Unknown option '${name}'; ${ctx.seeHelp}.`
          : `Unknown option '${name}';${hint} S${ctx.seeHelp.slice(1)}.`,
      );
      previousWasUnknownFlag = !item.includes("=");
      previousSecret = isSecretKeyName(name.replace(/^-+/, ""));
      continue;
    }
    if (previousWasUnknownFlag) {
      // Most likely the unknown option's value: already reported with the option; never echo it (may be secret).
      previousWasUnknownFlag = false;
      continue;
    }
    problems.push(strayMessage(ctx, previousSecret ? REDACTED : item));
  }
  for (const item of operands) problems.push(strayMessage(ctx, strayShown(ctx, item, args)));
  for (const item of afterTerminator) problems.push(strayMessage(ctx, strayShown(ctx, item, args)));
}

/** A stray word right after a header or secret value is probably part of it (unquoted spaces): hide it. */
function strayShown(ctx: ReadContext, item: string, args: readonly string[]): string {
  const index = args.indexOf(item);
  for (let i = index - 1; i >= 0 && i >= index - 4; i--) {
    const spec = ctx.index.find(args[i].split("=")[0]);
    if (spec === undefined) continue;
    if (spec.secret || spec.type === "headers") return REDACTED;
    break;
  }
  return item;
}

function strayMessage(ctx: ReadContext, shown: string): string {
  return `Unexpected argument '${shown}'; every value must follow its option (quote values that contain spaces), ` +
    `${ctx.seeHelp}.`;
}

/** A plausible value for a flag's "needs a value" hint. */
function exampleValue(ctx: ReadContext, flag: string): string {
  const spec = ctx.index.find(flag);
  if (spec === undefined || spec.type === "unsupported" || spec.type === "noEffect") return "VALUE";
  switch (spec.type) {
    case "int":
      return "8";
    case "float":
      return "2.5";
    case "enum":
      return enumChoices(spec)[0];
    case "headers":
      return "'X-Trace: 1'";
    case "keyValue":
      return "max_tokens:128";
    case "list":
      return spec.items === "url" ? "localhost:8000" : "my-model";
    default:
      return spec.metavar?.replace(/[<>]/g, "").toUpperCase() ?? "VALUE";
  }
}
