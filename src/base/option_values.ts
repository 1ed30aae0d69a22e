/**
 * The configuration type of a command, derived from its option table at the type level, so that adding an option
 * is one table entry: each option that owns a field (`key`) gives one readonly field whose type follows the
 * option's type — text and paths `string`, numbers `number`, booleans `boolean`, lists `readonly string[]`,
 * key/value maps a record, headers name/value pairs, goodput SLOs — and an enum's type is the union of its choices
 * when they are literals (`string` when they come from a registry). A field is optional unless the option has a
 * constant default, is required, or is resolved by a rule.
 *
 * The table must keep its literal types: declare it `as const satisfies readonly OptionSpec<…>[]`.
 */
import type { GoodputSlo } from "./goodput_slo.ts";
import type { OptionSpec } from "./option_spec.ts";

/** The options of `T` that own a configuration field. */
export type FieldSpecsOf<T extends readonly OptionSpec[]> = Exclude<
  Extract<T[number], { readonly key: string }>,
  { readonly type: "switch" }
>;

/** The configuration keys of a table. */
export type OptionKeyOf<T extends readonly OptionSpec[]> = FieldSpecsOf<T>["key"];

/** A literal choice list gives the union of its values; a registry or a `string[]` gives `string`. */
type ChoiceValue<C> = C extends readonly (infer E extends string)[] ? (string extends E ? string : E) : string;

/** The value type of one option. */
export type OptionValueOf<S> = S extends { readonly type: "string" | "path" } ? string
  : S extends { readonly type: "int" | "float" } ? number
  : S extends { readonly type: "bool" } ? boolean
  : S extends { readonly type: "enum"; readonly choices: infer C } ? ChoiceValue<C>
  : S extends { readonly type: "list" } ? readonly string[]
  : S extends { readonly type: "keyValue" } ? Readonly<Record<string, unknown>>
  : S extends { readonly type: "headers" } ? ReadonlyArray<readonly [string, string]>
  : S extends { readonly type: "goodput" } ? readonly GoodputSlo[]
  : never;

/**
 * Whether the option's field is always present: after layering (`Stage` "layered") when it has a default or is
 * required, and once the command's rules ran ("resolved") also when a rule fills it.
 */
type AlwaysSet<S, Stage> = S extends { readonly default: unknown } ? true
  : S extends { readonly required: string } ? true
  : Stage extends "resolved" ? (S extends { readonly resolvedByRule: true } ? true : false)
  : false;

/** Fields of `T`'s options, each required or optional as `AlwaysSet` says. */
type ValuesAt<T extends readonly OptionSpec[], Stage> =
  & { readonly [S in FieldSpecsOf<T> as AlwaysSet<S, Stage> extends true ? S["key"] : never]: OptionValueOf<S> }
  & { readonly [S in FieldSpecsOf<T> as AlwaysSet<S, Stage> extends true ? never : S["key"]]?: OptionValueOf<S> };

/** The typed, resolved configuration of a command whose option table is `T`. */
export type OptionValues<T extends readonly OptionSpec[]> = ValuesAt<T, "resolved">;

/** The values layered from `T`'s defaults, YAML, environment and flags, before the command's rules fill the rest. */
export type LayeredOptionValues<T extends readonly OptionSpec[]> = ValuesAt<T, "layered">;
