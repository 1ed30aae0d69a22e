/**
 * When repeated runs have measured enough (AIPerf's `--convergence-mode`): after each run from the
 * {@link CONVERGENCE_MIN_RUNS}th on, the runs so far are judged and the rest are skipped once they agree.
 *
 * - `ci_width`: the Student-t interval of the runs' statistic, `2·t·s/√n`, is narrower than `threshold × |mean|`
 *   (s: sample standard deviation over runs);
 * - `cv`: `s / |mean|` is below `threshold`;
 * - `distribution`: a two-sample Kolmogorov–Smirnov test of the last run's per-request values against all earlier
 *   runs' finds no difference: p-value above `threshold`.
 */
import { studentTQuantile } from "./student_t.ts";

export type ConvergenceMode = "ci_width" | "cv" | "distribution";

/** AIPerf's per-mode default thresholds. */
export const CONVERGENCE_DEFAULT_THRESHOLD: Readonly<Record<ConvergenceMode, number>> = {
  ci_width: 0.10,
  cv: 0.05,
  distribution: 0.05,
};

/** Runs needed before the first check (AIPerf's `min_runs` default). */
export const CONVERGENCE_MIN_RUNS = 2;

function meanAndSampleStd(values: readonly number[]): { mean: number; std: number } {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const ss = values.reduce((a, v) => a + (v - mean) ** 2, 0);
  return { mean, std: n > 1 ? Math.sqrt(ss / (n - 1)) : 0 };
}

/** `ci_width`: false with fewer than {@link CONVERGENCE_MIN_RUNS} values or a zero mean. */
export function ciWidthConverged(values: readonly number[], level: number, threshold: number): boolean {
  const n = values.length;
  if (n < CONVERGENCE_MIN_RUNS) return false;
  const { mean, std } = meanAndSampleStd(values);
  if (mean === 0) return false;
  const half = studentTQuantile((1 + level) / 2, n - 1) * std / Math.sqrt(n);
  return (2 * half) / Math.abs(mean) < threshold;
}

/** `cv`: false with fewer than {@link CONVERGENCE_MIN_RUNS} values or a zero mean. */
export function cvConverged(values: readonly number[], threshold: number): boolean {
  if (values.length < CONVERGENCE_MIN_RUNS) return false;
  const { mean, std } = meanAndSampleStd(values);
  return mean !== 0 && std / Math.abs(mean) < threshold;
}

/** Kolmogorov's survival function `Q(λ) = 2 Σ_{k≥1} (−1)^{k−1} e^{−2k²λ²}`. */
function kolmogorovQ(lambda: number): number {
  if (lambda < 0.2) return 1;
  let sum = 0;
  for (let k = 1; k <= 100; k++) {
    const term = Math.exp(-2 * k * k * lambda * lambda);
    sum += (k % 2 === 1 ? 1 : -1) * term;
    if (term < 1e-12) break;
  }
  return Math.min(1, Math.max(0, 2 * sum));
}

/**
 * Two-sample Kolmogorov–Smirnov test: D = the largest gap between the two empirical CDFs, and its asymptotic p-value
 * with Stephens' small-sample correction, `Q((√nₑ + 0.12 + 0.11/√nₑ)·D)`, nₑ = n·m/(n+m).
 * @throws {RangeError} when a sample is empty.
 */
export function ksTwoSample(a: readonly number[], b: readonly number[]): { statistic: number; pValue: number } {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) throw new RangeError("the KS test needs two non-empty samples");
  const x = [...a].sort((p, q) => p - q);
  const y = [...b].sort((p, q) => p - q);
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < n && j < m) {
    const v = Math.min(x[i], y[j]);
    while (i < n && x[i] <= v) i++;
    while (j < m && y[j] <= v) j++;
    d = Math.max(d, Math.abs(i / n - j / m));
  }
  const en = Math.sqrt((n * m) / (n + m));
  return { statistic: d, pValue: kolmogorovQ((en + 0.12 + 0.11 / en) * d) };
}

/** `distribution`: false when either side has fewer than 2 values. */
export function distributionConverged(earlier: readonly number[], last: readonly number[], threshold: number): boolean {
  if (earlier.length < 2 || last.length < 2) return false;
  return ksTwoSample(earlier, last).pValue > threshold;
}
