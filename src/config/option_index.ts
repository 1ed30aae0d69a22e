/**
 * The lookups a command's option table needs when reading a command line, built once per table: which option a
 * spelling (`--isl`, `-m`, `--no-streaming`) stands for, every accepted spelling (for "did you mean" hints) and the
 * option that owns each configuration key.
 */
import {
  isFieldOption,
  negatedFlagNames,
  optionArity,
  optionFlagNames,
  type OptionSpec,
  type ValueArity,
} from "../base/option_spec.ts";

/** What one flag spelling stands for. */
export interface FlagBinding {
  readonly spec: OptionSpec;
  /** The spelling(s) reported in occurrences and messages (`--isl`, `-m/--model-names`, `--no-streaming`). */
  readonly flag: string;
  readonly negated: boolean;
  readonly arity: ValueArity;
}

export class OptionIndex {
  /**
   * Every spelling read as a whole word: each option's one-letter short flag and first long flag (reported together
   * as `-m/--model-names`, since the two are one option), each alias, and the `--no-` form of each boolean flag.
   * Multi-letter shorts (`-vv`) are in {@link multiLetterShorts}.
   */
  readonly bindings: ReadonlyMap<string, FlagBinding>;
  /** Multi-letter short flags (`-vv`) → the option's first long flag. */
  readonly multiLetterShorts: ReadonlyMap<string, string>;
  /** Every spelling accepted on the command line, including `--no-x` for booleans, in table order. */
  readonly flagNames: readonly string[];
  readonly #byFlag: ReadonlyMap<string, OptionSpec>;
  readonly #byKey: ReadonlyMap<string, OptionSpec>;

  /** @throws {RangeError} when two options share a spelling (a table bug). */
  constructor(options: readonly OptionSpec[]) {
    const bindings = new Map<string, FlagBinding>();
    const multi = new Map<string, string>();
    const byFlag = new Map<string, OptionSpec>();
    const byKey = new Map<string, OptionSpec>();
    const flagNames: string[] = [];
    for (const spec of options) {
      const arity = optionArity(spec);
      for (const flag of [...optionFlagNames(spec), ...negatedFlagNames(spec)]) {
        if (byFlag.has(flag)) throw new RangeError(`${flag} is declared twice in one option table`);
        byFlag.set(flag, spec);
        flagNames.push(flag);
      }
      if (isFieldOption(spec) && !byKey.has(spec.key)) byKey.set(spec.key, spec);
      const short = spec.short !== undefined && spec.short.length === 2 ? spec.short : undefined;
      if (spec.short !== undefined && short === undefined) multi.set(spec.short, spec.flags[0]);
      const [first, ...aliases] = spec.flags;
      const main: FlagBinding = {
        spec,
        flag: short === undefined ? first : `${short}/${first}`,
        negated: false,
        arity,
      };
      if (short !== undefined) bindings.set(short, main);
      bindings.set(first, main);
      for (const alias of aliases) bindings.set(alias, { spec, flag: alias, negated: false, arity });
      for (const negated of negatedFlagNames(spec)) {
        bindings.set(negated, { spec, flag: negated, negated: true, arity: "none" });
      }
    }
    this.bindings = bindings;
    this.multiLetterShorts = multi;
    this.flagNames = Object.freeze(flagNames);
    this.#byFlag = byFlag;
    this.#byKey = byKey;
  }

  /** The option a spelling (`--isl`, `-m`, `-vv`, `--no-streaming`) belongs to, or undefined. */
  find(flag: string): OptionSpec | undefined {
    return this.#byFlag.get(flag);
  }

  /** The option that owns configuration key `key` (not a switch that also sets it), or undefined. */
  forKey(key: string): OptionSpec | undefined {
    return this.#byKey.get(key);
  }
}
