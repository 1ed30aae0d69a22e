/**
 * The noise of a comparison: for each run after the first, the confidence interval of its difference from the
 * baseline in each metric statistic, from the runs' per-request records (`difference_interval.ts` says how:
 * a seeded percentile bootstrap for distributions, batch means for throughputs). Where an interval cannot be had
 * — a run without a per-request file, min and max, a metric with no per-request form (goodput, counts) — it is
 * unknown and says why, and the comparison falls back to the plain difference.
 */
import { SeededRandom } from "../base/seeded_random.ts";
import { bootstrappable, type BootstrapResult, bootstrapStatistics } from "../metrics/bootstrap_stats.ts";
import {
  bootstrapDifference,
  type DifferenceInterval,
  rateDifference,
  type RateNoise,
  rateWindows,
  windowsNoise,
} from "../metrics/difference_interval.ts";
import type { RecordSamples } from "./record_samples.ts";
import type { CompletionAmount } from "./completion_windows.ts";

/** The confidence level when none is given (AIPerf's `--confidence-level` default). */
export const DEFAULT_CONFIDENCE_LEVEL = 0.95;
/** Replicates per run; fewer for very large runs (see {@linkcode resamplesFor}). */
export const BOOTSTRAP_RESAMPLES = 1000;
const MIN_RESAMPLES = 200;
/** About how many values one run's replicates may visit (records × metrics × replicates): a few seconds. */
const WORK_BUDGET = 4e8;
/** Fixed, so the same runs always get the same intervals. */
const SEED = 0x6e01_5e;

/** What a throughput counts per successful request. */
const RATE_AMOUNTS: Readonly<Record<string, CompletionAmount>> = {
  request_throughput: "requests",
  output_token_throughput: "output",
  input_token_throughput: "input",
  total_token_throughput: "total",
};

/** A statistic whose interval is wanted. */
export interface NoiseNeed {
  readonly tag: string;
  /** `avg` for single-valued metrics. */
  readonly stat: string;
  readonly single: boolean;
}

export interface CompareNoise {
  readonly level: number;
  /** Per run: the per-request file read, or undefined when the run has none. */
  readonly recordFiles: readonly (string | undefined)[];
  /**
   * The interval of run `i`'s difference `delta` from the baseline value `base`, or why there is none.
   */
  interval(need: NoiseNeed, i: number, delta: number, base: number): DifferenceInterval | string;
}

/** Replicates for a run of `records` records and `metrics` metrics: 1000, fewer (at least 200) for huge runs. */
export function resamplesFor(records: number, metrics: number): number {
  const affordable = Math.floor(WORK_BUDGET / Math.max(1, records * (metrics + 1)));
  return Math.max(MIN_RESAMPLES, Math.min(BOOTSTRAP_RESAMPLES, affordable));
}

/**
 * The noise model of runs with these samples (undefined: the run has no per-request file), computing every
 * replicate `needs` asks for up front, one bootstrap per run.
 */
export function compareNoise(
  samples: readonly (RecordSamples | undefined)[],
  needs: readonly NoiseNeed[],
  level = DEFAULT_CONFIDENCE_LEVEL,
): CompareNoise {
  const tags = [...new Set(needs.filter((n) => !n.single).map((n) => n.tag))];
  const stats = [...new Set(needs.filter((n) => !n.single).map((n) => n.stat))];
  // One resample count for all runs, so replicates pair up.
  const largest = Math.max(0, ...samples.map((s) => s?.size ?? 0));
  const resamples = resamplesFor(largest, tags.length);
  const root = new SeededRandom(SEED);
  const boots: (BootstrapResult | undefined)[] = samples.map((s, i) =>
    s === undefined ? undefined : toPopulation(
      bootstrapStatistics(s, tags, stats, resamples, root.derive(`run ${i}`)),
      s.size,
      s.population,
    )
  );
  const rates = new Map<string, (RateNoise | undefined)[]>();
  const rateOf = (tag: string, i: number): RateNoise | undefined => {
    let perRun = rates.get(tag);
    if (perRun === undefined) {
      const amount = RATE_AMOUNTS[tag];
      perRun = samples.map((s) => {
        if (s === undefined || amount === undefined) return undefined;
        const c = s.completions;
        const k = rateWindows(c.count);
        return k === undefined ? undefined : windowsNoise(c.windowSums(k, amount), c.spanMs);
      });
      rates.set(tag, perRun);
    }
    return perRun[i];
  };
  const missing = (i: number) => `${i === 0 ? "the baseline" : "this run"} has no per-request records`;

  return {
    level,
    recordFiles: samples.map((s) => s?.path),
    interval(need, i, delta, base) {
      if (samples[0] === undefined) return missing(0);
      if (samples[i] === undefined) return missing(i);
      if (need.single) {
        if (RATE_AMOUNTS[need.tag] === undefined) return "no per-request form";
        const a = rateOf(need.tag, 0);
        const b = rateOf(need.tag, i);
        if (a === undefined || b === undefined) return "too few requests for its noise";
        return rateDifference(a, b, delta, base, level);
      }
      if (!bootstrappable(need.stat)) return `${need.stat} cannot be bootstrapped`;
      const a = statOf(boots[0], need);
      const b = statOf(boots[i], need);
      if (a === undefined || b === undefined) return "not in the per-request records";
      return bootstrapDifference(a, b, delta, base, level) ?? "too few requests for its noise";
    },
  };
}

/**
 * The replicates of a sample of `size` of a run's `population` records, spread as those of the whole run would be:
 * each replicate's distance from the sample's own statistic shrunk by √(size / population). The mean, the standard
 * deviation and the percentiles of a continuous distribution all vary as 1/√n with the number of requests, so the
 * bootstrap of a uniform sample, rescaled so, stands for the bootstrap of the whole (an m-out-of-n bootstrap). The
 * interval stays centred on the exported difference (`bootstrapDifference`).
 */
function toPopulation(boot: BootstrapResult, size: number, population: number): BootstrapResult {
  if (population <= size || size === 0) return boot;
  const shrink = Math.sqrt(size / population);
  for (const [tag, byStat] of boot.replicates) {
    for (const [stat, reps] of byStat) {
      const observed = boot.observed.get(tag)?.get(stat);
      if (observed === undefined || !Number.isFinite(observed)) continue;
      for (let b = 0; b < reps.length; b++) reps[b] = observed + (reps[b] - observed) * shrink;
    }
  }
  return boot;
}

function statOf(
  boot: BootstrapResult | undefined,
  need: NoiseNeed,
): { observed: number; replicates: Float64Array } | undefined {
  const observed = boot?.observed.get(need.tag)?.get(need.stat);
  const replicates = boot?.replicates.get(need.tag)?.get(need.stat);
  return observed === undefined || replicates === undefined ? undefined : { observed, replicates };
}
