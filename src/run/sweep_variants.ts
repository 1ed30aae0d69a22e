/**
 * `--variant '[name:] key=value, key=value'` (also `--sweep-variant`), given twice or more: a scenario sweep, one
 * point per variant, as AIPerf 0.13 has it. A key is any `profile` option without its dashes, in kebab-case or
 * snake_case (`isl`, `request-rate`, `request_rate`); each point is the user's command line with those options set
 * (they win over the same options given on the line). A point is named by its name, else `v0`, `v1`, …; that name,
 * made safe for a path, is its directory. Values are read as AIPerf does: `true`/`false`, an integer, a number, else
 * text (quotes around it dropped).
 */
import { ConfigError } from "../config/config_error.ts";
import { type OptionKey, PROFILE_COMMAND } from "../config/option_table.ts";
import { withOptionValues } from "./option_args.ts";

const VARIANT_FLAGS = ["--variant", "--sweep-variant"];

export interface ParsedVariant {
  readonly name?: string;
  readonly pairs: readonly (readonly [string, string | number | boolean])[];
}

function coerce(text: string): string | number | boolean {
  if (text.toLowerCase() === "true") return true;
  if (text.toLowerCase() === "false") return false;
  if (/^[+-]?\d+$/.test(text)) return Number(text);
  if (text !== "" && Number.isFinite(Number(text)) && !/^0x/i.test(text)) return Number(text);
  if (text.length >= 2 && text[0] === text[text.length - 1] && (text[0] === "'" || text[0] === '"')) {
    return text.slice(1, -1);
  }
  return text;
}

/** Parses one `--variant` value. @throws {ConfigError} naming what is malformed. */
export function parseVariant(raw: string): ParsedVariant {
  const text = raw.trim();
  const bad = (why: string): never => {
    throw new ConfigError([`--variant '${raw}': ${why}; expected '[name:] key=value, key=value'.`]);
  };
  if (text === "") bad("empty");
  let name: string | undefined;
  let body = text;
  const colon = text.indexOf(":");
  if (colon >= 0 && !text.slice(0, colon).includes("=")) {
    name = text.slice(0, colon).trim();
    if (name === "") bad("empty name before ':'");
    body = text.slice(colon + 1).trim();
  }
  if (body === "") bad("no key=value pairs");
  const pairs: [string, string | number | boolean][] = [];
  for (const chunk of body.split(",").map((c) => c.trim()).filter((c) => c !== "")) {
    const eq = chunk.indexOf("=");
    if (eq < 0) bad(`'${chunk}' has no '='`);
    const key = chunk.slice(0, eq).trim();
    if (key === "") bad(`empty key in '${chunk}'`);
    if (pairs.some(([k]) => k === key)) bad(`key '${key}' given twice`);
    pairs.push([key, coerce(chunk.slice(eq + 1).trim())]);
  }
  if (pairs.length === 0) bad("no key=value pairs");
  return { name, pairs };
}

/** The plan of a scenario sweep (a `SweepPlan` of type `scenarios`). */
export interface VariantPlan {
  readonly type: "scenarios";
  readonly parameters: readonly { readonly name: string; readonly flag: string; readonly values: readonly number[] }[];
  readonly points: readonly {
    readonly label: string;
    readonly values: Record<string, number>;
    readonly args: string[];
  }[];
}

/** A point name made safe as one path segment. */
function dirSegment(label: string): string {
  const safe = label.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^\.+/, "_");
  return safe === "" ? "_" : safe;
}

/**
 * The scenario sweep of the `--variant` arguments, and the arguments without them; undefined without any.
 * @throws {ConfigError} for one variant alone, a malformed one, an unknown key, or two points of one name.
 */
export function planVariants(args: readonly string[]): { plan: VariantPlan; rest: string[] } | undefined {
  const raws: string[] = [];
  const rest: string[] = [];
  const end = args.indexOf("--");
  const head = end < 0 ? args : args.slice(0, end);
  for (let i = 0; i < head.length; i++) {
    const arg = head[i];
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (VARIANT_FLAGS.includes(flag)) {
      const value = eq > 0 ? arg.slice(eq + 1) : head[++i];
      if (value === undefined) throw new ConfigError([`${flag} needs a value, e.g. ${flag} 'short: isl=128, osl=64'.`]);
      raws.push(value);
      continue;
    }
    rest.push(arg);
  }
  if (end >= 0) rest.push(...args.slice(end));
  if (raws.length === 0) return undefined;
  if (raws.length === 1) {
    throw new ConfigError([
      "--variant: a single variant is not a sweep; give the options themselves (--isl, --osl, --concurrency) for " +
      "one run, or --variant at least twice.",
    ]);
  }
  const problems: string[] = [];
  const seen = new Map<string, number>();
  const numeric = new Map<string, Set<number>>();
  const points = raws.map((raw, index) => {
    const variant = parseVariant(raw);
    const label = dirSegment(variant.name ?? `v${index}`);
    if (seen.has(label)) {
      problems.push(`--variant: points ${seen.get(label)! + 1} and ${index + 1} are both named '${label}'.`);
    }
    seen.set(label, index);
    const set: { key: OptionKey; value: string }[] = [];
    const values: Record<string, number> = {};
    for (const [key, value] of variant.pairs) {
      const flag = `--${key.replaceAll("_", "-")}`;
      const spec = PROFILE_COMMAND.index.find(flag);
      if (spec === undefined || !("key" in spec) || VARIANT_FLAGS.includes(flag)) {
        problems.push(
          `--variant '${raw}': '${key}' is not a profile option (any option without its dashes, e.g. isl, osl, concurrency, request-rate).`,
        );
        continue;
      }
      set.push({ key: spec.key as OptionKey, value: String(value) });
      if (typeof value === "number") {
        values[key] = value;
        if (!numeric.has(key)) numeric.set(key, new Set());
        numeric.get(key)!.add(value);
      }
    }
    return { label, values, args: withOptionValues(rest, set, { inline: true }) };
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    plan: {
      type: "scenarios",
      parameters: [...numeric].map(([name, v]) => ({
        name,
        flag: `--${name.replaceAll("_", "-")}`,
        values: [...v].sort((a, b) => a - b),
      })),
      points,
    },
    rest,
  };
}
