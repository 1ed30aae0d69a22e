/**
 * The options of `infermeter config init|validate|expand`, declared once. `validate` and `expand` take `profile`'s
 * options after the action (`-f FILE` among them), so they check and show exactly what a run would use.
 */
import { type Command, defineCommand } from "../config/command_spec.ts";
import type { OptionSpec } from "../base/option_spec.ts";

const CONFIG_INIT_OPTIONS = [
  {
    key: "output",
    type: "path",
    flags: ["--output"],
    short: "-o",
    group: "Options",
    metavar: "<file>",
    defaultDescription: "standard output",
    help: "Write the template to this file (never overwritten: remove it first).",
  },
] as const satisfies readonly OptionSpec[];

/** `infermeter config init`. */
export const CONFIG_INIT_COMMAND: Command<typeof CONFIG_INIT_OPTIONS> = defineCommand({
  name: "config init",
  description: "Write a YAML configuration with every profile option, grouped as in 'profile --help', each with " +
    "its help and default as comments.",
  options: CONFIG_INIT_OPTIONS,
});

/** The `config` help, listing its actions. */
export const CONFIG_HELP = `Usage: infermeter config <action> [options]

Work with profile configuration files (YAML, read by 'infermeter profile -f FILE').

Actions:
  init [-o FILE]                  Write a commented YAML with every option and its default.
  validate FILE [profile options] Report every problem of FILE (with line numbers) and of the options given
                                  with it; exit 2 when there is one. Sends nothing.
  expand [profile options]        Print the configuration a run would use: defaults, -f FILE, environment and
                                  flags resolved, each value's source noted, secrets redacted.
`;
