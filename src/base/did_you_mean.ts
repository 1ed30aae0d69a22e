/**
 * "Did you mean …?" suggestions for unknown flags, YAML keys and enum values: Damerau-Levenshtein (optimal string
 * alignment) distance over the known names, plus prefix matches for truncated names.
 */

/** Options for {@link didYouMean}. */
export interface DidYouMeanOptions {
  /** Most suggestions returned. @default 3 */
  readonly limit?: number;
  /** Largest edit distance accepted. @default max(2, floor(input length / 4)) */
  readonly maxDistance?: number;
}

/** Edit distance where insertion, deletion, substitution and swapping two neighbours each cost 1. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => i === 0 ? j : i));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2][j - 2] + 1);
      d[i][j] = best;
    }
  }
  return d[a.length][b.length];
}

/** The known names closest to `input`, best first; empty when nothing is close. Comparison ignores case. */
export function didYouMean(
  input: string,
  candidates: Iterable<string>,
  options: DidYouMeanOptions = {},
): readonly string[] {
  const limit = options.limit ?? 3;
  const needle = input.toLowerCase();
  const maxDistance = options.maxDistance ?? Math.max(2, Math.floor(needle.length / 4));
  const scored = new Map<string, number>();
  for (const candidate of candidates) {
    const hay = candidate.toLowerCase();
    if (hay === needle) continue;
    let score = editDistance(needle, hay);
    if (score > maxDistance && needle.length >= 4 && hay.startsWith(needle)) score = maxDistance;
    if (score <= maxDistance && (scored.get(candidate) ?? Infinity) > score) scored.set(candidate, score);
  }
  const ranked = [...scored.entries()]
    .sort((x, y) => x[1] - y[1] || x[0].length - y[0].length || x[0].localeCompare(y[0]));
  // Only the closest names: a near miss should not drown in merely similar ones.
  const best = ranked[0]?.[1];
  return ranked.filter(([, score]) => score === best).slice(0, limit).map(([name]) => name);
}

/** ` did you mean 'a' or 'b'?` (with a leading space), or an empty string when there is no suggestion. */
export function didYouMeanHint(input: string, candidates: Iterable<string>, options: DidYouMeanOptions = {}): string {
  const found = didYouMean(input, candidates, options);
  if (found.length === 0) return "";
  const quoted = found.map((name) => `'${name}'`);
  const list = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
  return ` did you mean ${list}?`;
}
