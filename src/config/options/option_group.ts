/**
 * One `--help` group of `profile` options, declared in its own file: the group is named once and given to each of
 * its options, whose literal types are kept (the configuration type is derived from them).
 */
import type { OptionSpec } from "../../base/option_spec.ts";

/** An option as written in a group file: everything but the group. */
export type GroupedOption = OptionSpec extends infer S ? S extends unknown ? Omit<S, "group"> : never : never;

/** `options`, each with `group` set. */
export function optionGroup<const G extends string, const T extends readonly GroupedOption[]>(
  group: G,
  options: T,
): { readonly [I in keyof T]: T[I] & { readonly group: G } } {
  return options.map((option) => ({ ...option, group })) as unknown as {
    readonly [I in keyof T]: T[I] & { readonly group: G };
  };
}

/** YAML root of the profiling phase's settings. */
export const PROFILING_PHASE = "benchmark.phases.profiling";
