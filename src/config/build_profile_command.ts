/**
 * The commander `Command` for `infermeter profile`, generated from the option table: each option's first long flag
 * (with its short flag) is the visible option, every alias and every `--no-x` form is a hidden option of its own.
 * Only `--help` uses it: commander renders it with AIPerf's groups, all aliases, defaults, choices and environment
 * variables. Arguments are parsed by `read_cli_args.ts` without commander, whose import alone costs ~25–30 ms of
 * startup; so import this module lazily (`profileHelp()` in `parse_profile_args.ts` does).
 */
import { Command, type Help, Option } from "commander";
import {
  OPTION_GROUPS,
  OPTION_TABLE,
  optionArity,
  optionFlagNames,
  type OptionSpec,
  type ValueArity,
} from "./option_table.ts";

/** What one commander option stands for. */
export interface OptionBinding {
  readonly spec: OptionSpec;
  /** The spelling(s) this commander option stands for (`--isl`, `-m/--model-names`, `--no-streaming`). */
  readonly flag: string;
  /** True for the `--no-x` form of a boolean. */
  readonly negated: boolean;
}

/** The command plus the meaning of each of its commander options. */
export interface ProfileCommand {
  readonly command: Command;
  readonly bindings: ReadonlyMap<Option, OptionBinding>;
}

/** Options for {@link buildProfileCommand}. */
export interface BuildProfileCommandOptions {
  /** Column width of `--help`. @default 100 */
  readonly helpWidth?: number;
}

/** Builds a fresh `infermeter profile` command (a new one per call: commander commands keep parse state). */
export function buildProfileCommand(options: BuildProfileCommandOptions = {}): ProfileCommand {
  const program = new Command("infermeter");
  const command = program.command("profile")
    .description(
      "Benchmark an OpenAI-compatible inference server. Flags, aliases and YAML keys follow AIPerf's " +
        "'aiperf profile'; precedence is defaults < YAML (-f) < environment < flags.",
    )
    .helpOption("-h, --help", "Show this help and exit.")
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });

  const bindings = new Map<Option, OptionBinding>();
  const mainOptions = new Map<Option, OptionSpec>();
  const add = (option: Option, binding: OptionBinding): void => {
    command.addOption(option);
    bindings.set(option, binding);
  };

  for (const spec of OPTION_TABLE) {
    const arity = optionArity(spec);
    const visible = spec.type !== "unsupported" && spec.type !== "noEffect";
    const short = spec.short !== undefined && spec.short.length === 2 ? spec.short : undefined;
    const [first, ...aliases] = spec.flags;
    const main = new Option(`${short === undefined ? "" : `${short}, `}${first}${placeholder(arity)}`, spec.help);
    main.helpGroup(`${spec.group}:`);
    if (!visible) main.hideHelp();
    // Commander does not say which spelling of the main option was typed, so messages name both.
    add(main, { spec, flag: short === undefined ? first : `${short}/${first}`, negated: false });
    mainOptions.set(main, spec);
    for (const alias of aliases) {
      const option = new Option(`${alias}${placeholder(arity)}`).hideHelp().helpGroup(`${spec.group}:`);
      add(option, { spec, flag: alias, negated: false });
    }
    if (spec.type === "bool") {
      for (const flag of spec.flags) {
        const negated = `--no-${flag.slice(2)}`;
        add(new Option(negated).hideHelp().helpGroup(`${spec.group}:`), { spec, flag: negated, negated: true });
      }
    }
  }

  const reservedFlags = OPTION_TABLE
    .filter((spec) => spec.type === "unsupported" || spec.type === "noEffect")
    .map((spec) => optionFlagNames(spec).join("/"));

  const helpWidth = options.helpWidth ?? 100;
  command.configureHelp({
    helpWidth,
    sortOptions: false,
    // Terms with all their aliases are long, so each term gets its own line and the description is wrapped below.
    formatItem: (term: string, _termWidth: number, description: string, helper: Help): string => {
      if (description === "") return `  ${term}`;
      const body = helper.boxWrap(description, helpWidth - 8).split("\n").map((line) => `        ${line}`);
      return `  ${term}\n${body.join("\n")}`;
    },
    optionTerm: (option: Option): string => {
      const spec = mainOptions.get(option);
      return spec === undefined ? option.flags : optionTerm(spec);
    },
    optionDescription: (option: Option): string => {
      const spec = mainOptions.get(option);
      return spec === undefined ? option.description : optionDescription(spec);
    },
  });
  command.addHelpText(
    "after",
    `\n${
      wrap(
        "AIPerf options recognised but not supported yet (using them is an error, or a warning where they " +
          "would change nothing):",
        helpWidth,
      ).join("\n")
    }\n  ${wrap(reservedFlags.join(", "), helpWidth - 2).join("\n  ")}\n`,
  );
  return { command, bindings };
}

/** The `infermeter profile --help` text, grouped like AIPerf's. */
export function profileHelp(options: BuildProfileCommandOptions = {}): string {
  const { command } = buildProfileCommand(options);
  let text = "";
  command.configureOutput({ writeOut: (chunk: string) => (text += chunk), writeErr: () => {}, outputError: () => {} });
  command.outputHelp();
  return text;
}

/** Group headings in display order (for tests and docs). */
export function profileHelpGroups(): readonly string[] {
  return OPTION_GROUPS.filter((group) => OPTION_TABLE.some((spec) => spec.group === group && isVisible(spec)));
}

function isVisible(spec: OptionSpec): boolean {
  return spec.type !== "unsupported" && spec.type !== "noEffect";
}

/** Commander placeholder for a value-taking flag (the help term is rendered separately). */
function placeholder(arity: ValueArity): string {
  return arity === "required" ? " <value>" : arity === "optional" ? " [value]" : "";
}

/** `-m, --model-names, --model <names>`; booleans also list their `--no-` forms. */
function optionTerm(spec: OptionSpec): string {
  const names = [...optionFlagNames(spec)];
  if (spec.type === "bool") names.push(...spec.flags.map((flag) => `--no-${flag.slice(2)}`));
  const arity = optionArity(spec);
  const value = arity === "none" ? "" : ` ${spec.metavar ?? (arity === "optional" ? "[value]" : "<value>")}`;
  return `${names.join(", ")}${value}`;
}

/** Help sentence plus choices, default, environment variable and repeatability. */
function optionDescription(spec: OptionSpec): string {
  const extras: string[] = [];
  if (spec.type === "enum") extras.push(`choices: ${spec.choices.join(", ")}`);
  const defaultText = spec.defaultDescription ?? defaultValueText(spec);
  if (defaultText !== undefined) extras.push(`default: ${defaultText}`);
  if (spec.env !== undefined) extras.push(`env: ${spec.env}`);
  if (spec.repeatable) extras.push("repeatable");
  return extras.length === 0 ? spec.help : `${spec.help} (${extras.join("; ")})`;
}

function defaultValueText(spec: OptionSpec): string | undefined {
  switch (spec.type) {
    case "string":
    case "path":
    case "enum":
      return spec.default;
    case "int":
    case "float":
      return spec.default === undefined ? undefined : String(spec.default);
    case "bool":
      return spec.default ? "on" : undefined;
    case "list":
      return spec.default?.join(",");
    default:
      return undefined;
  }
}

/** Greedy word wrap at `width` columns on spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}
