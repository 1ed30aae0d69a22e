/**
 * The statistics each peer tool applies to its samples, each as that tool computes it:
 * numpy's (`np.mean`, `np.median`, `np.percentile` linear, `np.std` population) for vLLM, SGLang and genai-perf,
 * pandas' (`Series.quantile` linear, `Series.std` with one degree of freedom) for LLMPerf, and GuideLLM's weighted
 * distribution (probabilities from weights, a percentile is the first value whose cumulative probability reaches
 * it, no interpolation).
 */
import { percentileSorted } from "../../metrics/stats.ts";

function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Arithmetic mean; undefined for no samples. */
export function mean(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** numpy `percentile(values, q)` (linear interpolation between closest ranks); undefined for no samples. */
export function percentile(values: readonly number[], q: number): number | undefined {
  return values.length === 0 ? undefined : percentileSorted(sorted(values), q);
}

/** Standard deviation with `ddof` degrees of freedom (numpy's default 0, pandas' 1); undefined when too few. */
export function std(values: readonly number[], ddof: 0 | 1 = 0): number | undefined {
  const m = mean(values);
  if (m === undefined || values.length - ddof <= 0) return undefined;
  let ss = 0;
  for (const v of values) ss += (v - m) * (v - m);
  return Math.sqrt(ss / (values.length - ddof));
}

/** numpy's reductions over `values or 0`: vLLM and SGLang report 0, not "no value", for an empty list. */
export function orZero(x: number | undefined): number {
  return x ?? 0;
}

/** GuideLLM's summary of weighted values. */
export interface WeightedSummary {
  readonly mean: number;
  readonly median: number;
  readonly p95: number;
  readonly p99: number;
  readonly std: number;
  readonly min: number;
  readonly max: number;
  /** Σ weights, rounded (GuideLLM's `count`). */
  readonly count: number;
}

/**
 * GuideLLM's `DistributionSummary.from_values` over `(value, weight)` pairs: equal values merge their weights,
 * zero-weight values drop out (all weights zero: every value weighs one), probabilities are the weights over their
 * sum, the mean and variance are probability-weighted, and percentile p is the value at the first cumulative
 * probability ≥ p. All zeros for no samples, as GuideLLM reports.
 */
export function weightedSummary(pairs: readonly (readonly [number, number])[]): WeightedSummary {
  if (pairs.length === 0) return { mean: 0, median: 0, p95: 0, p99: 0, std: 0, min: 0, max: 0, count: 0 };
  let totalCount = 0;
  for (const [, w] of pairs) totalCount += w;
  const byValue = new Map<number, number>();
  for (const [v, w] of [...pairs].sort((a, b) => a[0] - b[0])) byValue.set(v, (byValue.get(v) ?? 0) + w);
  let values = [...byValue.keys()].filter((v) => (byValue.get(v) ?? 0) > 0);
  let weights = values.map((v) => byValue.get(v) ?? 0);
  let total = weights.reduce((a, b) => a + b, 0);
  if (total <= 1e-6) {
    values = [...byValue.keys()];
    weights = values.map(() => 1);
    total = values.length;
  }
  const probabilities = weights.map((w) => w / total);
  const cdf: number[] = [];
  let acc = 0;
  for (const p of probabilities) cdf.push(acc += p);
  const at = (p: number): number => {
    // numpy searchsorted(cdf, p, side="left"): the first index whose cumulative probability is ≥ p.
    let i = 0;
    while (i < cdf.length - 1 && cdf[i] < p) i++;
    return values[i];
  };
  let m = 0;
  for (let i = 0; i < values.length; i++) m += values[i] * probabilities[i];
  let variance = 0;
  for (let i = 0; i < values.length; i++) variance += (values[i] - m) ** 2 * probabilities[i];
  return {
    mean: m,
    median: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    std: Math.sqrt(variance),
    min: values[0],
    max: values[values.length - 1],
    count: Math.round(totalCount),
  };
}
