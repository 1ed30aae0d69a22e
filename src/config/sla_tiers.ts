/**
 * `--search-sla-tier 'LABEL:FILTER[,FILTER…]'` (or `'FILTER[,FILTER…]'`, labelled tier_1, tier_2, …), given 2 to 10
 * times: SLO tiers, each a group of SLA filters that must all pass (with the --search-sla filters, which apply to
 * every tier). As AIPerf reads it, a label is present when the text before the first comma does not have exactly
 * three colons (a filter has three).
 */
import { ConfigError } from "./config_error.ts";
import { parseSlaFilter, type SlaFilter } from "./sla_filter.ts";

export interface SlaTier {
  readonly label: string;
  readonly filters: readonly SlaFilter[];
}

/** Parses one tier; `index` (0-based) names an unlabelled one. @throws {SyntaxError} naming the problem. */
export function parseSlaTier(value: string, index: number): SlaTier {
  if (value.trim() === "") throw new SyntaxError("--search-sla-tier: value must not be empty.");
  const first = value.split(",", 1)[0];
  let label = `tier_${index + 1}`;
  let rest = value;
  if ((first.match(/:/g) ?? []).length !== 3) {
    const colon = value.indexOf(":");
    label = colon < 0 ? value : value.slice(0, colon);
    rest = colon < 0 ? "" : value.slice(colon + 1);
    if (label.trim() === "") throw new SyntaxError(`--search-sla-tier '${value}': label before ':' must not be empty.`);
    label = label.trim();
  }
  const parts = rest.split(",").map((f) => f.trim()).filter((f) => f !== "");
  if (parts.length === 0) {
    throw new SyntaxError(
      `--search-sla-tier '${value}': tier '${label}' contains zero filters. Each tier must have at least one filter ` +
        "in 'metric_tag:stat:op:threshold' format.",
    );
  }
  const filters = parts.map((text) => {
    try {
      return parseSlaFilter(text);
    } catch (err) {
      throw new SyntaxError(
        `--search-sla-tier '${value}': error parsing filter '${text}' in tier '${label}': ${(err as Error).message}`,
      );
    }
  });
  return { label, filters };
}

/** Parses the tiers: 2 to 10, labels unique. @throws {ConfigError} with every problem. */
export function parseSlaTiers(values: readonly string[]): SlaTier[] {
  const problems: string[] = [];
  const tiers: SlaTier[] = [];
  values.forEach((v, i) => {
    try {
      tiers.push(parseSlaTier(v, i));
    } catch (err) {
      problems.push((err as Error).message);
    }
  });
  if (values.length < 2 || values.length > 10) {
    problems.push(`--search-sla-tier: expected between 2 and 10 tiers, got ${values.length}.`);
  }
  const seen = new Map<string, number>();
  tiers.forEach((t, i) => {
    if (seen.has(t.label)) {
      problems.push(
        `--search-sla-tier: duplicate label '${t.label}' (tiers ${seen.get(t.label)! + 1} and ${i + 1}). Each tier ` +
          "must have a unique label.",
      );
    }
    seen.set(t.label, i);
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return tiers;
}
