/**
 * AIPerf 0.13's "(error-adjusted)" distribution of a latency metric: the successful requests' values plus one
 * `+∞` per failed request, so the percentiles show the tail a user met when some requests never answered.
 * Percentiles use numpy's `nearest` method (the order statistic at `round((n − 1) · q / 100)`, ties to the
 * even index); `avg`, `sum` and `max` are `+∞`, `std` is undefined (NaN), `min` is the smallest success.
 */
import { PERCENTILES, type Samples, type Stats } from "./stats.ts";

/** numpy's `nearest` percentile rank of `n` values: `round((n − 1) · q / 100)`, ties to the even index. */
export function nearestRank(n: number, q: number): number {
  const virtual = (n - 1) * (q / 100);
  const lo = Math.floor(virtual);
  const frac = virtual - lo;
  return frac > 0.5 || (frac === 0.5 && lo % 2 === 1) ? lo + 1 : lo;
}

/** Statistics of `values` (successes) with `failures` infinite values appended. */
export function errorAdjustedStats(values: Samples, failures: number): Stats {
  const sorted = Float64Array.from(values).sort();
  return errorAdjustedFrom(sorted.length, failures, (rank) => sorted[rank]);
}

/** The ranks among `successes` sorted values that {@linkcode errorAdjustedFrom} reads: 0 (min) and each percentile's. */
export function errorAdjustedRanks(successes: number, failures: number): number[] {
  const ranks = new Set<number>(successes > 0 ? [0] : []);
  for (const [, q] of PERCENTILES) {
    const k = nearestRank(successes + failures, q);
    if (k < successes) ranks.add(k);
  }
  return [...ranks].sort((a, b) => a - b);
}

/**
 * The error-adjusted statistics of `successes` values and `failures` failures, given `orderStat(rank)`: the
 * value a full sort of the successes (−0 before +0) puts at each rank of {@linkcode errorAdjustedRanks}.
 */
export function errorAdjustedFrom(successes: number, failures: number, orderStat: (rank: number) => number): Stats {
  const n = successes + failures;
  const at = (q: number): number => {
    const k = nearestRank(n, q);
    return k < successes ? orderStat(k) : Infinity;
  };
  return {
    avg: Infinity,
    min: successes > 0 ? orderStat(0) : Infinity,
    max: Infinity,
    p1: at(1),
    p5: at(5),
    p10: at(10),
    p25: at(25),
    p50: at(50),
    p75: at(75),
    p90: at(90),
    p95: at(95),
    p99: at(99),
    std: NaN,
    count: n,
    sum: Infinity,
  };
}
