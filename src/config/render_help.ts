/**
 * `--help` of any command, rendered from its declaration (`CommandSpec`): the usage line, the description, the
 * options by group in the table's order — each with all its spellings (aliases, short flag, `--no-` forms), its
 * value placeholder, help sentence, choices (with each registry entry's description), default, environment
 * variable and repeatability — then the flags recognised but not supported yet, and the command's epilogue.
 * Hidden options are left out. The layout is AIPerf's grouped one: each option's spellings on one line, its
 * description wrapped below.
 */
import type { Command } from "./command_spec.ts";
import {
  declaredDefault,
  enumChoices,
  enumEntries,
  isValueOption,
  negatedFlagNames,
  optionArity,
  optionFlagNames,
  type OptionSpec,
} from "../base/option_spec.ts";

/** Options for {@link renderHelp}. */
export interface RenderHelpOptions {
  /** Column width the text is wrapped to (the epilogue excepted: it is written as declared). @default 100 */
  readonly width?: number;
  /**
   * `short`: the options marked `common` (all of them when none is), the examples, and how to see the rest; `all`:
   * every option. @default "all"
   */
  readonly scope?: "short" | "all";
  /** Only the options whose flags, help, group or choices contain this word (case-insensitive). */
  readonly filter?: string;
}

/** The group every command's `-h, --help` is listed in. */
const HELP_GROUP = "Options";
const HELP_ENTRY = { term: "-h, --help", description: (width: number) => wrap("Show this help and exit.", width) };
/** Indentation of an option's spellings, and of its description below them. */
const TERM_INDENT = "  ";
const DESCRIPTION_INDENT = "        ";

/** The whole `infermeter <command> --help` text, ending with a newline. */
export function renderHelp(command: Command, options: RenderHelpOptions = {}): string {
  const width = options.width ?? 100;
  const blocks: string[] = [`Usage: infermeter ${command.name} ${command.usage ?? "[options]"}`];
  blocks.push(command.description.split("\n").map((paragraph) => wrap(paragraph, width).join("\n")).join("\n"));

  const all = listedOptions(command);
  const hasCommon = all.some((spec) => spec.common === true);
  const short = options.scope === "short" && hasCommon && options.filter === undefined;
  const filter = options.filter?.toLowerCase();
  const listed = filter !== undefined
    ? all.filter((spec) => optionText(spec).includes(filter))
    : short
    ? all.filter((spec) => spec.common === true)
    : all;
  if (short) blocks.push("Options for a first run:");
  if (filter !== undefined) {
    blocks.push(
      listed.length === 0
        ? `No option matches '${options.filter}'.`
        : `Options matching '${options.filter}' (${listed.length} of ${all.length}):`,
    );
  }
  for (const group of helpGroups(command)) {
    const items = listed.filter((spec) => spec.group === group)
      .map((spec) => ({ term: optionTerm(spec), description: (w: number) => optionDescription(spec, w, short) }));
    if (group === HELP_GROUP && filter === undefined) items.push(...helpEntries(command, hasCommon));
    if (items.length === 0) continue;
    const lines = items.flatMap(({ term, description }) => [
      `${TERM_INDENT}${term}`,
      ...description(width - DESCRIPTION_INDENT.length).map((line) => `${DESCRIPTION_INDENT}${line}`),
    ]);
    blocks.push([`${group}:`, ...lines].join("\n"));
  }

  if (short || filter !== undefined) {
    if (short) blocks.push(examplesBlock(command, width, true));
    blocks.push(
      wrap(
        `All ${all.length} options: infermeter ${command.name} --help-all. Options about a word: infermeter ` +
          `${command.name} --help <word> (e.g. --help rate).`,
        width,
      ).join("\n"),
    );
    return `${blocks.filter((block) => block !== "").join("\n\n")}\n`;
  }
  if ((command.examples ?? []).length > 0) blocks.push(examplesBlock(command, width, false));

  const reserved = command.options.filter((spec) => !isValueOption(spec) && spec.hidden !== true);
  if (reserved.length > 0) {
    const heading = command.unsupportedHeading ?? "Recognised but not supported yet:";
    const list = reserved.map((spec) => optionFlagNames(spec).join("/")).join(", ");
    blocks.push([...wrap(heading, width), ...wrap(list, width - 2).map((line) => `  ${line}`)].join("\n"));
  }
  const text = `${blocks.join("\n\n")}\n`;
  return command.epilogue === undefined ? text : `${text}\n${command.epilogue.replace(/^\n+/, "")}`;
}

/** `-h, --help` (and, for a command with a short help, `--help-all` and `--help <word>`). */
function helpEntries(command: Command, hasCommon: boolean): { term: string; description: (w: number) => string[] }[] {
  if (!hasCommon) return [HELP_ENTRY];
  return [
    { term: "-h, --help", description: (w) => wrap("Show the options of a first run and examples, and exit.", w) },
    { term: "--help-all", description: (w) => wrap("Show every option and exit.", w) },
    {
      term: "--help <word>",
      description: (w) =>
        wrap(`Show the options whose names or help mention <word> (e.g. 'infermeter ${command.name} --help ramp').`, w),
    },
  ];
}

/** The examples, each title then its command indented. */
function examplesBlock(command: Command, width: number, short: boolean): string {
  const lines = ["Examples:"];
  for (const example of command.examples ?? []) {
    if (short && example.allOnly === true) continue;
    lines.push(...wrap(example.title, width - 2).map((line) => `  ${line}`));
    lines.push(
      ...wrapCommand(example.command, width - DESCRIPTION_INDENT.length).map((l) => `${DESCRIPTION_INDENT}${l}`),
    );
  }
  return lines.length === 1 ? "" : lines.join("\n");
}

/** Everything a `--help <word>` search looks in, lower-cased. */
function optionText(spec: OptionSpec): string {
  const choices = spec.type === "enum" ? enumChoices(spec).join(" ") : "";
  return [...optionFlagNames(spec), ...negatedFlagNames(spec), spec.help, spec.group, choices].join(" ").toLowerCase();
}

/** The options `--help` lists under groups: value options that are not hidden. */
function listedOptions(command: Command): OptionSpec[] {
  return command.options.filter((spec) => isValueOption(spec) && spec.hidden !== true);
}

/** The group headings of `command`'s help, in display order (the help option's group last unless declared). */
export function helpGroups(command: Command): readonly string[] {
  const used = new Set([...listedOptions(command).map((spec) => spec.group), HELP_GROUP]);
  const order = [...(command.groups ?? []), ...listedOptions(command).map((spec) => spec.group), HELP_GROUP];
  return order.filter((group, i) => used.has(group) && order.indexOf(group) === i);
}

/** `-m, --model-names, --model <names>`; booleans also list their `--no-` forms. */
function optionTerm(spec: OptionSpec): string {
  const names = [...optionFlagNames(spec), ...negatedFlagNames(spec)];
  const arity = optionArity(spec);
  const value = arity === "none" ? "" : ` ${spec.metavar ?? (arity === "optional" ? "[value]" : "<value>")}`;
  return `${names.join(", ")}${value}`;
}

/**
 * The help sentence plus choices, default, environment variable and repeatability, wrapped to `width`; then each
 * registry entry behind the choices, indented.
 */
function optionDescription(spec: OptionSpec, width: number, brief = false): string[] {
  const extras: string[] = [];
  if (spec.type === "enum") extras.push(`choices: ${enumChoices(spec).join(", ")}`);
  const defaultText = spec.defaultDescription ?? defaultValueText(spec);
  if (defaultText !== undefined) extras.push(`default: ${defaultText}`);
  if (spec.env !== undefined) extras.push(`env: ${spec.env}`);
  if (spec.repeatable) extras.push("repeatable");
  const lines = wrap(extras.length === 0 ? spec.help : `${spec.help} (${extras.join("; ")})`, width);
  if (spec.type === "enum" && !brief) {
    for (const entry of enumEntries(spec) ?? []) {
      const [first, ...rest] = wrap(`${entry.name}: ${entry.description}`, width - 4);
      lines.push(`  ${first}`, ...rest.map((line) => `    ${line}`));
    }
  }
  return lines;
}

/** A constant default as shown in help; nothing for `false` and for empty lists and maps. */
function defaultValueText(spec: OptionSpec): string | undefined {
  const value = declaredDefault(spec);
  if (value === undefined || value === false) return undefined;
  if (value === true) return "on";
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.join(",");
  if (typeof value === "object") return undefined;
  return String(value);
}

/**
 * A shell command wrapped at `width` with ` \\` line continuations, never inside a quoted word; continuation lines
 * are indented two more columns.
 */
function wrapCommand(command: string, width: number): string[] {
  const tokens = command.match(/(?:'[^']*'|"[^"]*"|\S)+/g) ?? [];
  // A flag and its value stay on one line.
  const words: string[] = [];
  for (const token of tokens) {
    const last = words[words.length - 1];
    if (last !== undefined && /^-\S+$/.test(last) && !token.startsWith("-")) {
      words[words.length - 1] = `${last} ${token}`;
    } else words.push(token);
  }
  const lines: string[] = [];
  let line = "";
  for (const word of words) {
    const indent = lines.length === 0 ? 0 : 2;
    if (line !== "" && indent + line.length + 1 + word.length + 2 > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines.map((l, i) => `${i === 0 ? "" : "  "}${l}${i < lines.length - 1 ? " \\" : ""}`);
}

/** Greedy word wrap at `width` columns on spaces; a word longer than the width gets a line of its own. */
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
