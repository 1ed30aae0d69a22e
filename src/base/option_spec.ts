/**
 * What an option of any command is, as data: its flags, value type, default, bounds, help, group and its relations
 * to other options. Every command declares its options as a list of these (`src/config/options/` and the load
 * strategies and dataset loaders for `profile`, `src/cli/*_command.ts` for the others);
 * parsing (`read_cli_args.ts`, `layer_option_values.ts`), help (`render_help.ts`) and the typed configuration
 * (`option_values.ts`) are all derived from such a list.
 *
 * `K` is the type of the configuration keys the options write, `G` the type of their `--help` groups: a table
 * declared `as const satisfies readonly OptionSpec<Keys, Groups>[]` keeps its literal keys, choices and defaults,
 * from which `OptionValues` derives the configuration type.
 */
import type { RegistryEntry } from "./registry.ts";
import type { GoodputSlo } from "./goodput_slo.ts";

/** Where a configuration value came from; later layers win: default < yaml < env < cli. */
export type ValueSource = "default" | "yaml" | "env" | "cli";

/**
 * A source of choices: any `Registry` from `src/base/registry.ts` (endpoint types, dataset loaders, …). Its names
 * are the choices, its unsupported names are rejected with "not supported yet", and `--help` shows each entry's
 * description, so choices are never copied by hand.
 */
export interface ChoiceRegistry {
  /** What the entries are, in messages ("endpoint type"). */
  readonly kind: string;
  names(): readonly string[];
  entries(): readonly RegistryEntry[];
  unsupported(): Readonly<Record<string, string>>;
}

/** Fields every option has. */
export interface OptionBase<G extends string = string> {
  /** Long flags: the main name first, then its aliases (for `profile`: AIPerf's long name, then AIPerf's aliases). */
  readonly flags: readonly string[];
  /**
   * Short flag (`-m`). A multi-letter short such as `-vv` is read only as a whole word; one-letter shorts may be
   * grouped (`-vm x`) or glued to their value (`-mname`).
   */
  readonly short?: string;
  readonly group: G;
  /** One or two sentences, our own words. */
  readonly help: string;
  /**
   * Structured YAML paths (snake_case, dot-separated, from the document root), after the loader's normalization
   * (`model:` → `benchmark.models.items`, `phases:` list → `benchmark.phases.profiling|warmup`, …). Flat keys (the
   * long flag names without dashes) are accepted for every option and need not be listed. Only `profile` reads YAML.
   */
  readonly yaml?: readonly string[];
  /** Environment variable read between the YAML layer and the flags. */
  readonly env?: string;
  /** Further environment variables read when `env` is unset (AIPerf's names), first set wins. */
  readonly envAliases?: readonly string[];
  /** The value is a credential: never logged, exported or shown. */
  readonly secret?: boolean;
  /** The flag may be given several times; values accumulate (lists append, key/value maps merge, later wins). */
  readonly repeatable?: boolean;
  /** Value placeholder shown in `--help` (`<value>` when absent). */
  readonly metavar?: string;
  /**
   * Shown as the default in `--help` when there is no constant default: what an unset option means, or the rule
   * that gives it a value.
   */
  readonly defaultDescription?: string;
  /** Only accepted on the command line (e.g. `-f/--config` itself). */
  readonly cliOnly?: boolean;
  /** Left out of `--help`: internal modes a command starts itself with. */
  readonly hidden?: boolean;
  /** Listed in the short `--help` (the options of a first run); every option is in `--help-all`. */
  readonly common?: boolean;
  /** Values that mean "off" for relations, like `false` (`--arrival-pattern concurrency_burst`: no open loop). */
  readonly offValues?: readonly string[];
}

/**
 * Another option (or several, any one of which will do) this option is related to, with the words that explain
 * why, completing the sentence "<this flag> <why>; …". A bare key uses the generic wording.
 */
export type OptionRelation = string | {
  /** The other option's key; with several keys any one satisfies `requires`, and each one conflicts. */
  readonly key: string | readonly string[];
  /** What this option does that makes the relation hold ("ramps a request rate"). */
  readonly why?: string;
  /** `warning`: the run goes on (the option has no effect) and the user is told. @default "error" */
  readonly level?: "error" | "warning";
};

/** A value another option must have when this one is set (`--prefill-concurrency` needs `--streaming`). */
export interface OptionValueNeed {
  readonly key: string;
  /** The value it must have (one of these, for a list). */
  readonly value: string | number | boolean | readonly (string | number)[];
  /** What this option does that needs the value ("shapes gamma arrivals"). */
  readonly why?: string;
  /** Checked only when the other option was set explicitly (its default is then replaced by a rule). */
  readonly whenGiven?: boolean;
}

/** Fields of an option that writes a configuration value under `key`. */
export interface KeyedOptionBase<K extends string, G extends string> extends OptionBase<G> {
  readonly key: K;
  /**
   * The option must be set somewhere: when it is not, this sentence (naming the fix) is reported. Its field is then
   * never absent from the configuration.
   */
  readonly required?: string;
  /**
   * The option has no constant default, but a rule of the command always gives it a value (described by
   * `defaultDescription`): its field is never absent from the configuration.
   */
  readonly resolvedByRule?: true;
  /**
   * Options that must be set too when this one is (checked generically, every problem reported at once): "set"
   * means given a value other than `false`, or, for an option with a default, given explicitly.
   */
  readonly requires?: readonly OptionRelation[];
  /** Options that must not be set together with this one. */
  readonly conflictsWith?: readonly OptionRelation[];
  /** Values other options must have when this one is set. */
  readonly needs?: readonly OptionValueNeed[];
}

/** Free text or a file path. */
export interface StringOptionSpec<K extends string = string, G extends string = string> extends KeyedOptionBase<K, G> {
  readonly type: "string" | "path";
  readonly default?: string;
  /** The value may span lines (a prompt); otherwise line breaks and NUL are refused. @default false */
  readonly multiline?: boolean;
  /** The value must match this (an HTTP header name, …); `patternHelp` says what is expected, with an example. */
  readonly pattern?: RegExp;
  readonly patternHelp?: string;
}

/** Whole number with inclusive bounds. */
export interface IntOptionSpec<K extends string = string, G extends string = string> extends KeyedOptionBase<K, G> {
  readonly type: "int";
  readonly default?: number;
  readonly min?: number;
  readonly max?: number;
  /** The word `auto` is accepted and leaves the value unset (chosen at run time, as when not given). */
  readonly allowAuto?: boolean;
}

/** Real number; `exclusiveMin` makes `min` a strict bound; `allowInfinity` accepts `inf`. */
export interface FloatOptionSpec<K extends string = string, G extends string = string> extends KeyedOptionBase<K, G> {
  readonly type: "float";
  readonly default?: number;
  readonly min?: number;
  readonly exclusiveMin?: boolean;
  readonly max?: number;
  readonly allowInfinity?: boolean;
}

/** `--x` / `--no-x` / `--x=true|false`. */
export interface BoolOptionSpec<K extends string = string, G extends string = string> extends KeyedOptionBase<K, G> {
  readonly type: "bool";
  readonly default: boolean;
  /** `false` for a flag that is itself a negation (`--no-server-metrics`): no `--no-` form is added. @default true */
  readonly negatable?: boolean;
  /** The negative spellings when they are not `--no-<flag>` (AIPerf's `--accuracy-no-enable-cot`). */
  readonly negatedFlags?: readonly string[];
}

/** One of a set of values; matching ignores case and treats `-` and `_` alike. */
export interface EnumOptionSpec<K extends string = string, G extends string = string> extends KeyedOptionBase<K, G> {
  readonly type: "enum";
  /** A fixed list of values, or the registry whose names are the values. */
  readonly choices: readonly string[] | ChoiceRegistry;
  /**
   * Values AIPerf accepts that infermeter does not support yet: rejected with a "not supported yet" error. With
   * registry choices, the registry's unsupported names are added.
   */
  readonly unsupportedChoices?: readonly string[];
  readonly default?: string;
}

/**
 * Comma-separated list; repeated flags append. `url` items get `http://` when they have no scheme; `whole` items are
 * one per flag, never split (values that hold commas themselves, like `--search-space concurrency:1,64:int`).
 */
export interface ListOptionSpec<K extends string = string, G extends string = string> extends KeyedOptionBase<K, G> {
  readonly type: "list";
  readonly items: "text" | "url" | "whole";
  readonly default?: readonly string[];
  /** The flag may be given without a value (`--server-metrics` alone: on, no extra items). @default false */
  readonly optionalValue?: boolean;
}

/** `key:value` pairs (value JSON-parsed when possible) or a JSON object; merged, later wins. */
export interface KeyValueOptionSpec<K extends string = string, G extends string = string>
  extends KeyedOptionBase<K, G> {
  readonly type: "keyValue";
  readonly default?: Readonly<Record<string, unknown>>;
}

/** HTTP headers: `Name:Value` or a JSON object; merged by case-insensitive name, later wins. */
export interface HeadersOptionSpec<K extends string = string, G extends string = string> extends KeyedOptionBase<K, G> {
  readonly type: "headers";
  readonly default?: ReadonlyArray<readonly [string, string]>;
}

/** Space-separated `metric_tag:value` SLOs (or a YAML mapping). */
export interface GoodputOptionSpec<K extends string = string, G extends string = string> extends KeyedOptionBase<K, G> {
  readonly type: "goodput";
  readonly default?: readonly GoodputSlo[];
}

/** A flag without a value that sets `key` to a fixed value (`-v` → `logLevel: DEBUG`); another option owns `key`. */
export interface SwitchOptionSpec<K extends string = string, G extends string = string> extends OptionBase<G> {
  readonly type: "switch";
  readonly key: K;
  readonly value: string;
}

/** How a flag that we do not implement consumes the command line. */
export type ValueArity = "none" | "required" | "optional";

/** A flag infermeter recognises but does not support yet: using it is an error, never ignored. */
export interface UnsupportedOptionSpec<G extends string = string> extends OptionBase<G> {
  readonly type: "unsupported";
  readonly arity: ValueArity;
  /** The feature, not built yet, that the flag belongs to (named in the error). */
  readonly pending?: string;
}

/** A flag that asks for something infermeter already does (or never does): accepted with a warning. */
export interface NoEffectOptionSpec<G extends string = string> extends OptionBase<G> {
  readonly type: "noEffect";
  readonly arity: ValueArity;
  /** Why the flag changes nothing (one sentence, used in the warning). */
  readonly reason: string;
}

/** An option that writes a configuration field. */
export type ValueOptionSpec<K extends string = string, G extends string = string> =
  | StringOptionSpec<K, G>
  | IntOptionSpec<K, G>
  | FloatOptionSpec<K, G>
  | BoolOptionSpec<K, G>
  | EnumOptionSpec<K, G>
  | ListOptionSpec<K, G>
  | KeyValueOptionSpec<K, G>
  | HeadersOptionSpec<K, G>
  | GoodputOptionSpec<K, G>
  | SwitchOptionSpec<K, G>;

/** An option that owns a configuration field (every value option except switches, which set another's field). */
export type FieldOptionSpec<K extends string = string, G extends string = string> = Exclude<
  ValueOptionSpec<K, G>,
  SwitchOptionSpec<K, G>
>;

export type OptionSpec<K extends string = string, G extends string = string> =
  | ValueOptionSpec<K, G>
  | UnsupportedOptionSpec<G>
  | NoEffectOptionSpec<G>;

/** True for options that write a configuration field. */
export function isValueOption<K extends string, G extends string>(
  spec: OptionSpec<K, G>,
): spec is ValueOptionSpec<K, G> {
  return spec.type !== "unsupported" && spec.type !== "noEffect";
}

/** True for options that own a configuration field (and may have a default). */
export function isFieldOption<K extends string, G extends string>(
  spec: OptionSpec<K, G>,
): spec is FieldOptionSpec<K, G> {
  return isValueOption(spec) && spec.type !== "switch";
}

/** Does the option consume a value on the command line (`--x <value>`)? */
export function optionArity(spec: OptionSpec): ValueArity {
  switch (spec.type) {
    case "bool":
    case "switch":
      return "none";
    case "unsupported":
    case "noEffect":
      return spec.arity;
    case "list":
      return spec.optionalValue === true ? "optional" : "required";
    default:
      return "required";
  }
}

/** The preferred way to name an option in messages: its first long flag. */
export function optionName(spec: OptionSpec): string {
  return spec.flags[0];
}

/** Every flag spelling of an option: short first, then the long flags. */
export function optionFlagNames(spec: OptionSpec): readonly string[] {
  return spec.short === undefined ? spec.flags : [spec.short, ...spec.flags];
}

/** The `--no-x` spellings of a boolean option (none for other types). */
export function negatedFlagNames(spec: OptionSpec): readonly string[] {
  if (spec.type !== "bool" || spec.negatable === false) return [];
  return spec.negatedFlags ?? spec.flags.map((flag) => `--no-${flag.slice(2)}`);
}

function isRegistry(choices: EnumOptionSpec["choices"]): choices is ChoiceRegistry {
  return !Array.isArray(choices);
}

/** The values an enum option accepts, in declaration order. */
export function enumChoices(spec: EnumOptionSpec): readonly string[] {
  return isRegistry(spec.choices) ? spec.choices.names() : spec.choices as readonly string[];
}

/** Values recognised but not supported yet (rejected with a message saying so). */
export function enumUnsupportedChoices(spec: EnumOptionSpec): readonly string[] {
  const fromRegistry = isRegistry(spec.choices) ? Object.keys(spec.choices.unsupported()) : [];
  return [...fromRegistry, ...(spec.unsupportedChoices ?? [])];
}

/** Why a recognised choice is not supported, where its registry says so. */
export function enumUnsupportedReason(spec: EnumOptionSpec, choice: string): string | undefined {
  return isRegistry(spec.choices) ? spec.choices.unsupported()[choice] : undefined;
}

/** The registry entries behind an enum option's choices, or undefined for a fixed list (used for `--help`). */
export function enumEntries(spec: EnumOptionSpec): readonly RegistryEntry[] | undefined {
  return isRegistry(spec.choices) ? spec.choices.entries() : undefined;
}

/** The constant default of an option as declared, or undefined. */
export function declaredDefault(spec: OptionSpec): unknown {
  return isFieldOption(spec) ? spec.default : undefined;
}

/**
 * Read access to a command's option values, for declarations below the configuration layer (load strategies,
 * dataset loaders) that check or use their own options.
 */
export interface OptionReader {
  /** The value of `key` (undefined when unset). */
  value(key: string): unknown;
  /** Given in YAML, the environment or a flag, not left at its default. */
  given(key: string): boolean;
  /** Set: a value other than `false`; for an option with a default, also given explicitly. */
  isSet(key: string): boolean;
  /** The option as the user wrote it (`--isl`, `env X`), for messages. */
  named(key: string): string;
  /** The option's main flag. */
  flag(key: string): string;
}

/**
 * Whether an option counts as set for relations and mode selection: a value other than `false`, an empty list or
 * map, or one of its `offValues`; for an option with a constant default, also given explicitly (a default never
 * sets anything off).
 */
export function optionIsSet(spec: OptionSpec | undefined, value: unknown, given: boolean): boolean {
  if (value === undefined || value === false) return false;
  if (Array.isArray(value) && value.length === 0) return false;
  if (typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0) {
    return false;
  }
  if (typeof value === "string" && spec?.offValues?.includes(value) === true) return false;
  return spec === undefined || declaredDefault(spec) === undefined || given;
}
