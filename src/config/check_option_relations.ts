/**
 * Checks the relations options declare (`requires`, `conflictsWith`, `needs` in `base/option_spec.ts`) on layered
 * values, generically: every broken relation is one sentence naming the option as the user wrote it, the other
 * option by its flag, and the fix. Relations whose level is `warning` are reported as warnings (the option then has
 * no effect) instead of problems.
 */
import {
  type FieldOptionSpec,
  isFieldOption,
  optionIsSet,
  optionName,
  type OptionRelation,
  type OptionSpec,
  type OptionValueNeed,
} from "../base/option_spec.ts";
import type { LayeredValue } from "./layer_option_values.ts";

/** Result of {@link checkOptionRelations}. */
export interface RelationReport {
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

/** Reads layered values the way relations see them. */
export class OptionValueView {
  readonly #specs = new Map<string, FieldOptionSpec>();
  readonly #values: ReadonlyMap<string, LayeredValue>;

  constructor(options: readonly OptionSpec[], values: ReadonlyMap<string, LayeredValue>) {
    for (const spec of options) if (isFieldOption(spec) && !this.#specs.has(spec.key)) this.#specs.set(spec.key, spec);
    this.#values = values;
  }

  /** The option that owns `key`. */
  spec(key: string): FieldOptionSpec | undefined {
    return this.#specs.get(key);
  }

  value(key: string): unknown {
    return this.#values.get(key)?.value;
  }

  /** Given in YAML, the environment or a flag (not left at its default). */
  given(key: string): boolean {
    return (this.#values.get(key)?.source ?? "default") !== "default";
  }

  /**
   * Set: a value other than `false` and other than an empty list or map; for an option with a constant default,
   * also given explicitly (a default never sets anything off).
   */
  isSet(key: string): boolean {
    return optionIsSet(this.spec(key), this.value(key), this.given(key));
  }

  /** The option as the user wrote it (`--isl`, `env X`, `file.yaml: path`), or its main flag. */
  named(key: string): string {
    const layered = this.#values.get(key);
    if (layered !== undefined && layered.source !== "default") return layered.origin;
    return this.flag(key);
  }

  /** The option's main flag. */
  flag(key: string): string {
    const spec = this.spec(key);
    return spec === undefined ? key : optionName(spec);
  }

  /** How to write the option when telling the user to add it: `--num-users <int>`, or the flag alone for a switch. */
  term(key: string): string {
    const spec = this.spec(key);
    if (spec === undefined) return key;
    return spec.type === "bool" ? optionName(spec) : `${optionName(spec)} ${spec.metavar ?? "<value>"}`;
  }
}

function keysOf(relation: OptionRelation): readonly string[] {
  if (typeof relation === "string") return [relation];
  return typeof relation.key === "string" ? [relation.key] : relation.key;
}

function whyOf(relation: OptionRelation): string | undefined {
  return typeof relation === "string" ? undefined : relation.why;
}

function levelOf(relation: OptionRelation): "error" | "warning" {
  return typeof relation === "string" ? "error" : relation.level ?? "error";
}

/** `a`, `a or b`, `a, b or c`. */
export function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

/** How to write `key` with `value` on the command line: `--streaming`, `--no-x`, `--arrival-pattern gamma`. */
function valueTerm(view: OptionValueView, key: string, value: unknown): string {
  const spec = view.spec(key);
  const flag = view.flag(key);
  if (spec?.type === "bool") return value === false ? `--no-${flag.slice(2)}` : flag;
  return `${flag} ${String(value)}`;
}

function needMet(need: OptionValueNeed, actual: unknown): boolean {
  const wanted = Array.isArray(need.value) ? need.value : [need.value];
  const normalize = (v: unknown) => typeof v === "string" ? v.toLowerCase().replaceAll("-", "_") : v;
  return wanted.some((w) => normalize(w) === normalize(actual));
}

/** Every broken `requires`, `conflictsWith` and `needs` of the options that are set. Never throws. */
export function checkOptionRelations(
  options: readonly OptionSpec[],
  values: ReadonlyMap<string, LayeredValue>,
  skip: ReadonlySet<string> = new Set(),
): RelationReport {
  const view = new OptionValueView(options, values);
  const problems: string[] = [];
  const warnings: string[] = [];
  const report = (level: "error" | "warning", message: string) => {
    const list = level === "error" ? problems : warnings;
    if (!list.includes(message)) list.push(message);
  };
  const conflictsSeen = new Set<string>();
  for (const spec of options) {
    if (!isFieldOption(spec) || skip.has(spec.key) || !view.isSet(spec.key)) continue;
    const self = view.named(spec.key);
    for (const relation of spec.requires ?? []) {
      const keys = keysOf(relation);
      if (keys.some((key) => view.isSet(key))) continue;
      const why = whyOf(relation);
      const terms = orList(keys.map((key) => view.term(key)));
      if (levelOf(relation) === "warning") {
        report(
          "warning",
          `${self} ${why ?? `has no effect without ${orList(keys.map((k) => view.flag(k)))}`}; add ${terms} to use it.`,
        );
      } else {
        report(
          "error",
          `${self} ${why ?? `needs ${orList(keys.map((k) => view.flag(k)))}`}; add ${terms} or remove ${self}.`,
        );
      }
    }
    for (const relation of spec.conflictsWith ?? []) {
      for (const key of keysOf(relation)) {
        const pair = [spec.key, key].sort().join("\n");
        if (!view.isSet(key) || conflictsSeen.has(pair)) continue;
        conflictsSeen.add(pair);
        const why = whyOf(relation) ?? "cannot be used together";
        report(levelOf(relation), `${self} and ${view.named(key)} ${why}; keep one of them.`);
      }
    }
    for (const need of spec.needs ?? []) {
      if (need.whenGiven === true && !view.given(need.key)) continue;
      const actual = view.value(need.key);
      if (needMet(need, actual)) continue;
      const wanted = Array.isArray(need.value) ? need.value : [need.value];
      const terms = orList(wanted.map((w) => valueTerm(view, need.key, w)));
      const why = need.why ?? `needs ${terms}`;
      const but = view.given(need.key) ? `, but ${view.named(need.key)} is '${String(actual)}'` : "";
      report("error", `${self} ${why}${but}; ${view.given(need.key) ? "use" : "add"} ${terms} or remove ${self}.`);
    }
  }
  return { problems, warnings };
}
