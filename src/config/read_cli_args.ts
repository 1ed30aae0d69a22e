/**
 * Reads `infermeter profile` arguments with the commander command built from the option table, returning every
 * option occurrence in command-line order (raw, not yet typed) and every problem found: unknown flags with a
 * "did you mean" hint, stray arguments, missing values.
 */
import { CommanderError, type Option } from "commander";
import { buildProfileCommand, type OptionBinding } from "./build_profile_command.ts";
import { didYouMeanHint } from "./did_you_mean.ts";
import { allFlagNames, findOptionByFlag, OPTION_TABLE, optionArity, type OptionSpec } from "./option_table.ts";
import { isSecretKeyName, REDACTED } from "./redact_secrets.ts";

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
}

/** True when the arguments ask for help (`-h`/`--help` before any `--`). */
export function isProfileHelpRequest(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === "--") return false;
    if (arg === "-h" || arg === "--help") return true;
  }
  return false;
}

const MULTI_LETTER_SHORTS: ReadonlyMap<string, string> = new Map(
  OPTION_TABLE.filter((spec) => spec.short !== undefined && spec.short.length > 2)
    .map((spec) => [spec.short as string, spec.flags[0]] as const),
);

const SEE_HELP = "see 'infermeter profile --help' for all options";

/** Parses `argv` (the arguments after `profile`). Never throws. */
export function readCliArgs(argv: readonly string[]): CliArgs {
  const problems: string[] = [];
  const { args, afterTerminator } = preprocess(argv, problems);
  const { command, bindings } = buildProfileCommand();
  const occurrences: CliOccurrence[] = [];
  for (const [option, binding] of bindings) listen(command.on.bind(command), option, binding, occurrences);

  let operands: string[] = [];
  let unknown: string[] = [];
  try {
    ({ operands, unknown } = command.parseOptions(args));
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    const flag = args[args.length - 1];
    problems.push(`${flag} needs a value; put one after it, e.g. ${flag} ${exampleValue(flag)}.`);
  }

  reportStrays(operands, unknown, afterTerminator, args, problems);
  return { occurrences, problems };
}

/** Subscribes to one commander option's events (emitted once per occurrence, in order). */
function listen(
  on: (event: string, listener: (value: unknown) => void) => unknown,
  option: Option,
  binding: OptionBinding,
  out: CliOccurrence[],
): void {
  on(`option:${option.name()}`, (value: unknown) => {
    out.push({
      spec: binding.spec,
      flag: binding.flag,
      raw: typeof value === "string" ? value : undefined,
      negated: binding.negated,
    });
  });
}

/**
 * Rewrites what commander cannot express: `-vv` → `--extra-verbose`, `--flag=true|false` for booleans (→ `--flag`
 * or `--no-flag`), and splits off everything after `--`.
 */
function preprocess(argv: readonly string[], problems: string[]): { args: string[]; afterTerminator: string[] } {
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
    const multi = MULTI_LETTER_SHORTS.get(arg);
    if (multi !== undefined) {
      args.push(multi);
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const spec = findOptionByFlag(name);
    if (spec !== undefined && eq > 0 && optionArity(spec) === "none") {
      if (spec.type === "bool" && !name.startsWith("--no-")) {
        const word = arg.slice(eq + 1).trim().toLowerCase();
        if (["true", "1", "yes", "on"].includes(word)) args.push(name);
        else if (["false", "0", "no", "off"].includes(word)) args.push(`--no-${name.slice(2)}`);
        else {problems.push(
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
      if (next !== undefined && (findOptionByFlag(nextName) !== undefined || MULTI_LETTER_SHORTS.has(next))) {
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
  operands: readonly string[],
  unknown: readonly string[],
  afterTerminator: readonly string[],
  args: readonly string[],
  problems: string[],
): void {
  const flagNames = allFlagNames();
  let previousWasUnknownFlag = false;
  let previousSecret = false;
  for (const item of unknown) {
    if (item.startsWith("-") && !/^-\d/.test(item)) {
      const name = item.includes("=") ? item.slice(0, item.indexOf("=")) : item;
      const hint = didYouMeanHint(name, flagNames);
      problems.push(
        hint === ""
          ? `Unknown option '${name}'; ${SEE_HELP}.`
          : `Unknown option '${name}';${hint} See 'infermeter profile --help' for all options.`,
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
    problems.push(strayMessage(previousSecret ? REDACTED : item));
  }
  for (const item of operands) problems.push(strayMessage(strayShown(item, args)));
  for (const item of afterTerminator) problems.push(strayMessage(strayShown(item, args)));
}

/** A stray word right after a header or secret value is probably part of it (unquoted spaces): hide it. */
function strayShown(item: string, args: readonly string[]): string {
  const index = args.indexOf(item);
  for (let i = index - 1; i >= 0 && i >= index - 4; i--) {
    const spec = findOptionByFlag(args[i].split("=")[0]);
    if (spec === undefined) continue;
    if (spec.secret || spec.type === "headers") return REDACTED;
    break;
  }
  return item;
}

function strayMessage(shown: string): string {
  return `Unexpected argument '${shown}'; every value must follow its option (quote values that contain spaces), ` +
    `${SEE_HELP}.`;
}

/** A plausible value for a flag's "needs a value" hint. */
function exampleValue(flag: string): string {
  const spec = findOptionByFlag(flag);
  if (spec === undefined || spec.type === "unsupported" || spec.type === "noEffect") return "VALUE";
  switch (spec.type) {
    case "int":
      return "8";
    case "float":
      return "2.5";
    case "enum":
      return spec.choices[0];
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
