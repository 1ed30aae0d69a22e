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
} from "./option_spec.ts";

/** Options for {@link renderHelp}. */
export interface RenderHelpOptions {
  /** Column width the text is wrapped to (the epilogue excepted: it is written as declared). @default 100 */
  readonly width?: number;
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

  const listed = listedOptions(command);
  for (const group of helpGroups(command)) {
    const items = listed.filter((spec) => spec.group === group)
      .map((spec) => ({ term: optionTerm(spec), description: (w: number) => optionDescription(spec, w) }));
    if (group === HELP_GROUP) items.push(HELP_ENTRY);
    if (items.length === 0) continue;
    const lines = items.flatMap(({ term, description }) => [
      `${TERM_INDENT}${term}`,
      ...description(width - DESCRIPTION_INDENT.length).map((line) => `${DESCRIPTION_INDENT}${line}`),
    ]);
    blocks.push([`${group}:`, ...lines].join("\n"));
  }

  const reserved = command.options.filter((spec) => !isValueOption(spec) && spec.hidden !== true);
  if (reserved.length > 0) {
    const heading = command.unsupportedHeading ?? "Recognised but not supported yet:";
    const list = reserved.map((spec) => optionFlagNames(spec).join("/")).join(", ");
    blocks.push([...wrap(heading, width), ...wrap(list, width - 2).map((line) => `  ${line}`)].join("\n"));
  }
  const text = `${blocks.join("\n\n")}\n`;
  return command.epilogue === undefined ? text : `${text}\n${command.epilogue.replace(/^\n+/, "")}`;
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
function optionDescription(spec: OptionSpec, width: number): string[] {
  const extras: string[] = [];
  if (spec.type === "enum") extras.push(`choices: ${enumChoices(spec).join(", ")}`);
  const defaultText = spec.defaultDescription ?? defaultValueText(spec);
  if (defaultText !== undefined) extras.push(`default: ${defaultText}`);
  if (spec.env !== undefined) extras.push(`env: ${spec.env}`);
  if (spec.repeatable) extras.push("repeatable");
  const lines = wrap(extras.length === 0 ? spec.help : `${spec.help} (${extras.join("; ")})`, width);
  if (spec.type === "enum") {
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
