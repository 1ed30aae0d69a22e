/** Split `total` into `parts` integers that differ by at most one, larger ones first. */
export function splitEvenly(total: number, parts: number): number[] {
  const base = Math.floor(total / parts);
  const extra = total - base * parts;
  return Array.from({ length: parts }, (_, i) => base + (i < extra ? 1 : 0));
}

/** Shard `index` of `parts`'s share of an optional concurrency cap: at least 1, undefined when there is no cap. */
export function splitCap(cap: number | undefined, index: number, parts: number): number | undefined {
  return cap === undefined ? undefined : Math.max(1, splitEvenly(cap, parts)[index]);
}
