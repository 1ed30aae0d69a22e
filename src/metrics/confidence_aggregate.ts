/**
 * Statistics across repeated profile runs (AIPerf's "confidence" aggregation): for every metric statistic that a
 * run reported (`<tag>_<stat>`, e.g. `request_latency_p99`; aggregate metrics as `<tag>_avg`), the runs' values
 * give
 * - `mean` = Σx/n; `std` = √(Σ(x − mean)²/(n − 1)) (sample, ddof = 1); `min`, `max`;
 * - `cv` = std/mean (∞ when the mean is 0); `se` = std/√n;
 * - `t_critical` = t quantile at 1 − (1 − level)/2 with n − 1 degrees of freedom (student_t.ts);
 * - `ci_low`, `ci_high` = mean ∓ t_critical·se.
 * One successful run: std, cv and se are 0, the interval collapses to the mean and t_critical is NaN (AIPerf's
 * single-run mode). Values that are missing or not finite in a run are left out of that statistic.
 */
import type { RunSummary } from "./run_summary.ts";
import { studentTQuantile } from "./student_t.ts";
import { STAT_KEYS as SUMMARY_STAT_KEYS, type StatKey } from "./stats.ts";

/** AIPerf `STAT_KEYS`, the statistics aggregated (and exported), in order: a summary's, with the sum after the max. */
export const STAT_KEYS: readonly (StatKey | "sum")[] = [
  ...SUMMARY_STAT_KEYS.slice(0, 3),
  "sum",
  ...SUMMARY_STAT_KEYS.slice(3),
];

export interface ConfidenceStats {
  readonly mean: number;
  readonly std: number;
  readonly min: number;
  readonly max: number;
  readonly cv: number;
  readonly se: number;
  readonly ciLow: number;
  readonly ciHigh: number;
  readonly tCritical: number;
  readonly unit: string;
  /** Runs that had this statistic. */
  readonly n: number;
}

/** The confidence statistics of `values` (each run's value of one statistic) at `level` (0 < level < 1). */
export function confidenceStats(values: readonly number[], level: number, unit = ""): ConfidenceStats {
  const xs = values.filter((x) => Number.isFinite(x));
  const n = xs.length;
  if (n === 0) {
    return {
      mean: NaN,
      std: NaN,
      min: NaN,
      max: NaN,
      cv: NaN,
      se: NaN,
      ciLow: NaN,
      ciHigh: NaN,
      tCritical: NaN,
      unit,
      n,
    };
  }
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const min = Math.min(...xs);
  const max = Math.max(...xs);
  if (n === 1) {
    return { mean, std: 0, min, max, cv: 0, se: 0, ciLow: mean, ciHigh: mean, tCritical: NaN, unit, n };
  }
  const std = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
  const se = std / Math.sqrt(n);
  const tCritical = studentTQuantile(1 - (1 - level) / 2, n - 1);
  const margin = tCritical * se;
  return {
    mean,
    std,
    min,
    max,
    cv: mean !== 0 ? std / mean : Infinity,
    se,
    ciLow: mean - margin,
    ciHigh: mean + margin,
    tCritical,
    unit,
    n,
  };
}

/** One run's outcome for aggregation: its summary when it succeeded, else why it failed. */
export interface RunResult {
  readonly label: string;
  readonly summary?: RunSummary;
  readonly error?: string;
}

export interface ConfidenceAggregate {
  readonly numRuns: number;
  readonly successfulLabels: readonly string[];
  readonly failedRuns: readonly { readonly label: string; readonly error: string }[];
  readonly confidenceLevel: number;
  /** `<tag>_<stat>` → statistics, in the first run's metric order then stat order. */
  readonly metrics: ReadonlyMap<string, ConfidenceStats>;
}

/** Aggregates the successful runs' metric statistics; failed runs are listed apart. */
export function aggregateRuns(runs: readonly RunResult[], level: number): ConfidenceAggregate {
  const ok = runs.filter((r) => r.summary !== undefined);
  const series = new Map<string, { unit: string; values: number[] }>();
  for (const run of ok) {
    for (const m of run.summary!.metrics) {
      for (const stat of STAT_KEYS) {
        const value = m.stats !== undefined ? m.stats[stat] : stat === "avg" ? m.value : undefined;
        if (value === undefined || !Number.isFinite(value)) continue;
        const key = `${m.tag}_${stat}`;
        let s = series.get(key);
        if (s === undefined) series.set(key, s = { unit: m.unit, values: [] });
        s.values.push(value);
      }
    }
  }
  const metrics = new Map<string, ConfidenceStats>();
  for (const [key, s] of series) metrics.set(key, confidenceStats(s.values, level, s.unit));
  return {
    numRuns: runs.length,
    successfulLabels: ok.map((r) => r.label),
    failedRuns: runs.filter((r) => r.summary === undefined).map((r) => ({
      label: r.label,
      error: r.error ?? "failed",
    })),
    confidenceLevel: level,
    metrics,
  };
}
