/**
 * AIPerf 0.13's "(error-adjusted)" distribution of a latency metric: the successful requests' values plus one
 * `+∞` per failed request, so the percentiles show the tail a user met when some requests never answered.
 * Percentiles use numpy's `nearest` method (the order statistic at `round((n − 1) · q / 100)`, ties to the
 * even index); `avg`, `sum` and `max` are `+∞`, `std` is undefined (NaN), `min` is the smallest success.
 */
import type { Samples, Stats } from "./stats.ts";

/** Statistics of `values` (successes) with `failures` infinite values appended. */
export function errorAdjustedStats(values: Samples, failures: number): Stats {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length + failures;
  const at = (q: number): number => {
    const virtual = (n - 1) * (q / 100);
    const lo = Math.floor(virtual);
    const frac = virtual - lo;
    const k = frac > 0.5 || (frac === 0.5 && lo % 2 === 1) ? lo + 1 : lo;
    return k < sorted.length ? sorted[k] : Infinity;
  };
  return {
    avg: Infinity,
    min: sorted.length > 0 ? sorted[0] : Infinity,
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
