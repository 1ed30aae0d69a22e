/**
 * `infermeter demo` takes `profile`'s options: its table is `profile`'s, with the settings the demo runs with shown as
 * their defaults. The demo passes its settings to `profile` first and the user's options after them, so a single
 * value given by the user replaces the demo's, and a list option (`--model`, `--url`, `-H`, `--extra-inputs`) adds
 * to it.
 */
import { type Command, defineCommand } from "../config/command_spec.ts";
import { OPTION_GROUPS, OPTION_TABLE, PROFILE_COMMAND } from "../config/option_table.ts";
import type { OptionSpec } from "../base/option_spec.ts";
import { readCliArgs } from "../config/read_cli_args.ts";

/** The `profile` options of the demo run; `url` is the simulated server's address. */
export function demoProfileArgs(url: string): string[] {
  // deno-fmt-ignore
  return [
    "--model", "sim-model", "--endpoint-type", "chat", "--streaming", "--url", url,
    "--synthetic-input-tokens-mean", "100", "--output-tokens-mean", "64", "--extra-inputs", "ignore_eos:true",
    "--concurrency", "4", "--request-count", "40", "--random-seed", "42",
  ];
}

const SIM_URL = "the simulated server's address";

/** `profile`'s table with each option the demo sets showing the demo's value as its default. */
function demoOptions(): readonly OptionSpec[] {
  const demoValues = new Map<OptionSpec, string>();
  for (const { spec, raw } of readCliArgs(demoProfileArgs(SIM_URL), PROFILE_COMMAND).occurrences) {
    demoValues.set(spec, raw ?? "on");
  }
  return OPTION_TABLE.map((spec) => {
    const value = demoValues.get(spec);
    return value === undefined ? spec : { ...spec, defaultDescription: `${value} in the demo` };
  });
}

/** `infermeter demo`. */
export const DEMO_COMMAND: Command = defineCommand({
  name: "demo",
  usage: "[profile options]",
  description: "Starts the simulated server, profiles it and stops it. Extra options are passed to 'profile' " +
    "after the demo's own: a single value replaces the demo's, a list option (such as --model, --url, -H or " +
    "--extra-inputs) adds to it.",
  options: demoOptions(),
  groups: OPTION_GROUPS,
  unsupportedHeading: PROFILE_COMMAND.unsupportedHeading,
});
