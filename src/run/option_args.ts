/** Command lines with options put in: the probes of a search and the points of a sweep are the user's own arguments. */
import { type OptionKey, PROFILE_COMMAND } from "../config/option_table.ts";

/** The flags of an option (its main name first). */
export function flagsOf(key: OptionKey): readonly string[] {
  return PROFILE_COMMAND.index.forKey(key)?.flags ?? [];
}

/**
 * The arguments with each key's option set to the given value: every occurrence of the option (`--flag value` or
 * `--flag=value`, before any `--`) is removed and `--flag value` appended (`--flag=value` with `inline`), so the value
 * wins over the command line and the YAML alike. Used for the probes of a search and the points of `--variant`.
 */
export function withOptionValues(
  args: readonly string[],
  values: readonly { readonly key: OptionKey; readonly value: string }[],
  o: { readonly inline?: boolean } = {},
): string[] {
  const out: string[] = [];
  const end = args.indexOf("--");
  const head = end < 0 ? args : args.slice(0, end);
  const flags = values.map((v) => flagsOf(v.key));
  for (let i = 0; i < head.length; i++) {
    const arg = head[i];
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (flags.some((f) => f.includes(flag))) {
      if (eq < 0) i++;
      continue;
    }
    out.push(arg);
  }
  values.forEach((v, j) => o.inline ? out.push(`${flags[j][0]}=${v.value}`) : out.push(flags[j][0], v.value));
  return end < 0 ? out : [...out, ...args.slice(end)];
}
