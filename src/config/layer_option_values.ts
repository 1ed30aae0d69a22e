/**
 * Layers an option table's defaults and raw option assignments from YAML, environment and flags (in that order of
 * precedence, lowest first) into one typed value per configuration field. Within one layer a repeatable option
 * accumulates (lists append, key/value maps merge); across layers the later layer replaces the value, except
 * key/value maps (extra inputs, headers), which merge so a flag can add one header to those of the YAML file.
 *
 * Defaults are read from the table here and nowhere else: what a command does with its configuration never
 * restates them.
 */
import { coerceOptionValue } from "./coerce_option_value.ts";
import { isFieldOption, optionName, type OptionSpec, type ValueSource } from "../base/option_spec.ts";

/** One raw value for one option, before typing. */
export interface OptionAssignment {
  readonly spec: OptionSpec;
  /** Command-line/env string, or a YAML scalar, list or mapping; undefined for a flag without a value. */
  readonly raw: unknown;
  /** How the value is named in problems: the flag as typed, `env NAME`, or `file.yaml: dotted.path`. */
  readonly origin: string;
  readonly source: Exclude<ValueSource, "default">;
  /** `--no-x` form of a boolean flag. */
  readonly negated?: boolean;
}

/** The winning typed value of one field. */
export interface LayeredValue {
  readonly value: unknown;
  readonly source: ValueSource;
  /** Origin of the last assignment that contributed. */
  readonly origin: string;
}

/** Result of {@link layerOptionValues}. */
export interface LayeredValues {
  /** Every field that has a value: given somewhere, or defaulted by the table (source `default`). */
  readonly values: ReadonlyMap<string, LayeredValue>;
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

const RANK: Readonly<Record<Exclude<ValueSource, "default">, number>> = { yaml: 1, env: 2, cli: 3 };

/**
 * Starts from the defaults of `options`, applies `assignments` in precedence order and reports each required option
 * that got no value; every problem is collected, none thrown.
 */
export function layerOptionValues(
  options: readonly OptionSpec[],
  assignments: readonly OptionAssignment[],
): LayeredValues {
  const ordered = assignments.map((assignment, index) => ({ assignment, index }))
    .sort((a, b) => RANK[a.assignment.source] - RANK[b.assignment.source] || a.index - b.index)
    .map(({ assignment }) => assignment);
  const values = new Map<string, LayeredValue>();
  const problems: string[] = [];
  const warnings: string[] = [];
  for (const spec of options) {
    if (!isFieldOption(spec) || spec.default === undefined || values.has(spec.key)) continue;
    values.set(spec.key, { value: spec.default, source: "default", origin: optionName(spec) });
  }

  for (const assignment of ordered) {
    const spec = assignment.spec;
    if (spec.type === "unsupported") {
      const problem = spec.pending !== undefined
        ? `${assignment.origin} is not built yet in infermeter (it belongs to ${spec.pending}); remove it.`
        : `${assignment.origin} is not supported yet by infermeter; remove it (the run would not do what AIPerf ` +
          "does with it).";
      if (!problems.includes(problem)) problems.push(problem);
      continue;
    }
    if (spec.type === "noEffect") {
      const warning = `${assignment.origin} has no effect: ${spec.reason}.`;
      if (!warnings.includes(warning)) warnings.push(warning);
      continue;
    }
    const current = values.get(spec.key);
    const merges = spec.type === "keyValue" || spec.type === "headers";
    const accumulates = spec.repeatable === true && current?.source === assignment.source;
    const previous = current !== undefined && (merges || accumulates) ? current.value : undefined;
    const result = coerceOptionValue(spec, assignment.raw, {
      origin: assignment.origin,
      negated: assignment.negated,
      previous,
      secret: spec.secret,
    });
    if (!result.ok) {
      problems.push(result.problem);
      continue;
    }
    if (result.skip === true) continue;
    values.set(spec.key, { value: result.value, source: assignment.source, origin: assignment.origin });
  }
  for (const spec of options) {
    if (isFieldOption(spec) && spec.required !== undefined && !values.has(spec.key)) problems.push(spec.required);
  }
  return { values, problems, warnings };
}

/** Which layer each field of `options` came from (`default` also for fields left unset). */
export function valueSources(
  options: readonly OptionSpec[],
  values: ReadonlyMap<string, LayeredValue>,
): Record<string, ValueSource> {
  const sources: Record<string, ValueSource> = {};
  for (const spec of options) if (isFieldOption(spec)) sources[spec.key] = values.get(spec.key)?.source ?? "default";
  return sources;
}
