/**
 * `infermeter config init`: a YAML file with every `profile` option that a file may set, grouped and ordered as in
 * `profile --help`, each with its help as a comment and its default (or what an unset value means). Every option is
 * commented out except the model, which has no default; uncommenting a line gives a valid setting. Keys are the
 * flat ones (the main flag without dashes, snake_case), which the loader accepts alongside AIPerf's layout.
 */
import * as yaml from "js-yaml";
import { helpGroups } from "./render_help.ts";
import { enumChoices, isFieldOption, type OptionSpec } from "../base/option_spec.ts";
import { OPTION_TABLE, PROFILE_COMMAND } from "./option_table.ts";
import { toSnakeCase } from "./yaml_config.ts";

/** The flat YAML key of an option. */
export function yamlKeyOf(spec: OptionSpec): string {
  return toSnakeCase(spec.flags[0].slice(2));
}

/** A value as one line of YAML (lists and mappings in flow style). */
export function yamlValue(value: unknown): string {
  return yaml.dump(value, { flowLevel: 0, lineWidth: -1 }).trim();
}

function wrapComment(text: string, width = 100): string[] {
  const lines: string[] = [];
  let line = "#";
  for (const word of text.split(/\s+/)) {
    if (line.length + word.length + 1 > width && line !== "#") {
      lines.push(line);
      line = "#";
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

/** Options a file can set: value options that own a field, not hidden, not command-line only. */
export function fileOptions(): OptionSpec[] {
  return OPTION_TABLE.filter((spec) => isFieldOption(spec) && spec.hidden !== true && spec.cliOnly !== true);
}

/** The whole commented YAML text. */
export function configTemplate(): string {
  const out: string[] = [
    "# infermeter profile configuration: run it with `infermeter profile -f <this file>`.",
    "# Every option is listed, grouped as in `infermeter profile --help`; uncomment a line to set it.",
    "# Precedence: defaults < this file < environment variables < flags. `${VAR}` and `${VAR:default}` read the",
    "# environment. AIPerf's structured layout (`benchmark:` …) is accepted too; see the README.",
    "",
  ];
  const options = fileOptions();
  for (const group of helpGroups(PROFILE_COMMAND)) {
    const inGroup = options.filter((spec) => spec.group === group);
    if (inGroup.length === 0) continue;
    out.push(`# ── ${group} ${"─".repeat(Math.max(3, 96 - group.length))}`, "");
    for (const spec of inGroup) {
      const details: string[] = [spec.help];
      if (isFieldOption(spec) && spec.type === "enum") {
        details.push(`Choices: ${enumChoices(spec).join(", ")}.`);
      }
      if (spec.defaultDescription !== undefined) details.push(`Default: ${spec.defaultDescription}.`);
      if (spec.env !== undefined) details.push(`Environment: ${spec.env}.`);
      if (spec.secret) details.push("A credential: prefer the environment variable to writing it here.");
      out.push(...wrapComment(details.join(" ")));
      const def = isFieldOption(spec) ? spec.default : undefined;
      // `~` leaves an option unset, so uncommenting a line without a default changes nothing.
      const empty = def === undefined || (Array.isArray(def) && def.length === 0);
      const value = empty ? "~" : yamlValue(def);
      const key = yamlKeyOf(spec);
      if ("required" in spec && spec.required !== undefined) out.push(`${key}: my-model`);
      else out.push(`# ${key}: ${value}`);
      out.push("");
    }
  }
  return out.join("\n");
}
