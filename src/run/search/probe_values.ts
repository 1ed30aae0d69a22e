import { formatGrouped } from "../../export/number_format.ts";

/**
 * What one probe sets, by parameter name: `concurrency`, `isl` and `osl` for the recipes, any dimension of a
 * `--search-space` search (`rate`, `requests`, …; `config/search_space.ts` maps each to its option).
 */
export type ProbeValues = Readonly<Record<string, number>>;

/** `ISL 256, concurrency 1`: what a probe set, in the order a reader expects (other dimensions after). */
export function describeValues(v: ProbeValues): string {
  const parts: string[] = [];
  if (v.isl !== undefined) parts.push(`ISL ${v.isl}`);
  if (v.osl !== undefined) parts.push(`OSL ${v.osl}`);
  if (v.concurrency !== undefined) parts.push(`concurrency ${v.concurrency}`);
  for (const [name, value] of Object.entries(v)) {
    if (name !== "isl" && name !== "osl" && name !== "concurrency") {
      parts.push(`${name.replaceAll("_", " ")} ${Number.isInteger(value) ? value : formatGrouped(value, 3)}`);
    }
  }
  return parts.join(", ");
}
