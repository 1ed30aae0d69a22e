/**
 * The load-mode rules every strategy gets without writing them: at most one mode asked for (`selectedBy`), no
 * option of another mode set beside the one asked, and each mode's own checks (`validate`) — those of the mode
 * asked, or, when none is, of the modes a run may fall back to.
 */
import type { OptionReader } from "../base/option_spec.ts";
import type { Registry } from "../base/registry.ts";
import type { LoadStrategyEntry } from "../timing/load_strategy.ts";

/** Result of {@link checkLoadModes}. */
export interface LoadModeReport {
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
  /** Keys already reported (their own relations need not be reported again). */
  readonly reported: ReadonlySet<string>;
}

function keyOf(spec: { readonly flags: readonly string[] }): string | undefined {
  return "key" in spec ? (spec as { readonly key: string }).key : undefined;
}

/**
 * The modes asked for and the options set for another mode, on the layered values.
 * @param resolved the values after the command's rules (what `validate` checks)
 */
export function checkLoadModes(
  layered: OptionReader,
  resolved: OptionReader,
  strategies: Registry<LoadStrategyEntry>,
): LoadModeReport {
  const problems: string[] = [];
  const warnings: string[] = [];
  const reported = new Set<string>();
  const entries = strategies.entries();
  const asked = entries.filter((entry) => entry.selectedBy.some((key) => layered.isSet(key)));
  const selector = (entry: LoadStrategyEntry) => entry.selectedBy.find((key) => layered.isSet(key))!;
  if (asked.length > 1) {
    const names = asked.map((entry) => layered.named(selector(entry)));
    problems.push(
      `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]} each choose how requests are sent (the ` +
        `${asked.map((e) => e.name).join(", ")} load modes); keep one of them.`,
    );
    for (const entry of asked) reported.add(selector(entry));
  }
  if (asked.length === 1) {
    const mode = asked[0];
    const own = new Set([...mode.options.map(keyOf), ...(mode.reads ?? [])]);
    for (const entry of entries) {
      if (entry === mode) continue;
      for (const spec of entry.options) {
        const key = keyOf(spec);
        if (key === undefined || own.has(key) || !layered.isSet(key)) continue;
        reported.add(key);
        problems.push(
          `${layered.named(key)} applies to the ${entry.name} load mode, but ${layered.named(selector(mode))} ` +
            `selects ${mode.name}; remove one of them.`,
        );
      }
    }
  }
  const checked = asked.length > 0 ? asked : entries.filter((entry) => entry.fallback !== undefined);
  for (const entry of checked) {
    const found = entry.validate?.(resolved) ?? {};
    problems.push(...found.problems ?? []);
    warnings.push(...found.warnings ?? []);
  }
  return { problems, warnings, reported };
}
