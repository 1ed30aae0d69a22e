/**
 * Runs side by side, rendered from each run's result view (`export_view.ts`): for each metric and statistic, every
 * run's value and each later run's difference from the first (the baseline), absolute and relative, with its
 * confidence interval from the per-request records (`compare_noise.ts`) and a verdict.
 *
 * `delta = value − baseline`; `relative = delta / |baseline|` (undefined when the baseline is 0 or either value is
 * missing), so +0.10 means "10 % higher than the baseline" whatever the metric's direction.
 *
 * Verdict: a difference whose interval holds 0 is `same` (within the noise); one beyond it is `better` or `worse`
 * by the metric's better direction (`higher`/`lower` for metrics with none). Without an interval the verdict is
 * from the plain difference (a change under 1 % is `same`) and is marked as such (`noiseKnown: false`); equal
 * values are `same` either way.
 */
import type { DifferenceInterval } from "../metrics/difference_interval.ts";
import { withinNoise } from "../metrics/difference_interval.ts";
import type { ViewRow } from "../metrics/result_view.ts";
import type { CompareNoise, NoiseNeed } from "./compare_noise.ts";
import { exportView } from "./export_view.ts";
import { metricLabel } from "./metric_names.ts";
import type { RunExport } from "./run_export.ts";

/** Statistics shown by default for distributions; single-valued metrics show `avg` as their value. */
export const DEFAULT_COMPARE_STATS: readonly string[] = ["avg", "p50", "p90", "p99"];

/** The smallest relative change a plain difference (no interval) calls better or worse. */
export const NOTICEABLE = 0.01;

export type VerdictWord = "same" | "better" | "worse" | "higher" | "lower";

/** What a run's difference from the baseline amounts to. */
export interface DifferenceVerdict {
  readonly word: VerdictWord;
  /** False when there is no interval and the word comes from the plain difference. */
  readonly noiseKnown: boolean;
  /** Why there is no interval (when `noiseKnown` is false). */
  readonly unknownWhy?: string;
}

/** One line of the comparison: one statistic of one metric across the runs. */
export interface CompareRow {
  readonly tag: string;
  /** `Time to First Token (ms)`. */
  readonly label: string;
  readonly unit: string;
  /** `avg`, `p99`, …; `value` for a single-valued metric. */
  readonly stat: string;
  /** One per run, in the order given; undefined where a run lacks the metric or statistic. */
  readonly values: readonly (number | undefined)[];
  /** One per run: the difference from the first run (undefined for the first run itself). */
  readonly deltas: readonly (number | undefined)[];
  /** One per run: `delta / |baseline|`. */
  readonly relatives: readonly (number | undefined)[];
  /** One per run: the confidence interval of the difference, where there is one. */
  readonly intervals: readonly (DifferenceInterval | undefined)[];
  /** One per run: the verdict on the difference (undefined for the baseline and missing values). */
  readonly verdicts: readonly (DifferenceVerdict | undefined)[];
  /** +1 larger is better, -1 smaller is better, 0 neither. */
  readonly better: 1 | -1 | 0;
}

export interface CompareOptions {
  /** Statistics of distributions to show. @default DEFAULT_COMPARE_STATS */
  readonly stats?: readonly string[];
  /** Tags to show, in this order. @default the main-table metrics (headline and standard tiers) any run has */
  readonly metrics?: readonly string[] | "all";
}

/** The view rows of the metrics to compare, per tag (the first run that has it), in order. */
export function rowsToCompare(runs: readonly RunExport[], options: CompareOptions): ViewRow[] {
  const byTag = new Map<string, ViewRow>();
  for (const run of runs) for (const row of exportView(run).rows) if (!byTag.has(row.tag)) byTag.set(row.tag, row);
  if (Array.isArray(options.metrics)) {
    return options.metrics.map((tag) => byTag.get(tag)).filter((r) => r !== undefined);
  }
  const rows = [...byTag.values()].sort((a, b) => a.displayOrder - b.displayOrder);
  return options.metrics === "all" ? rows : rows.filter((r) => r.tier !== "detail");
}

/** The statistics a view row is compared by. */
export function statsOf(row: ViewRow, stats: readonly string[]): string[] {
  return row.single ? ["avg"] : [...stats];
}

/** Every statistic the comparison will show, as noise needs. */
export function compareNeeds(runs: readonly RunExport[], options: CompareOptions): NoiseNeed[] {
  const stats = options.stats ?? DEFAULT_COMPARE_STATS;
  return rowsToCompare(runs, options).flatMap((row) =>
    statsOf(row, stats).map((stat) => ({ tag: row.tag, stat, single: row.single }))
  );
}

function direction(row: ViewRow): 1 | -1 | 0 {
  return row.better === "higher" ? 1 : row.better === "lower" ? -1 : 0;
}

/** The word for a change of sign `sign` on a metric whose better direction is `better`. */
function wordFor(sign: number, better: 1 | -1 | 0): VerdictWord {
  if (sign === 0) return "same";
  if (better === 0) return sign > 0 ? "higher" : "lower";
  return sign === better ? "better" : "worse";
}

/** The verdict on one difference, with its interval or the reason it has none. */
export function judgeDifference(
  delta: number,
  relative: number | undefined,
  interval: DifferenceInterval | string,
  better: 1 | -1 | 0,
): DifferenceVerdict {
  if (delta === 0) return { word: "same", noiseKnown: true };
  if (typeof interval !== "string") {
    return { word: withinNoise(interval) ? "same" : wordFor(Math.sign(delta), better), noiseKnown: true };
  }
  const small = relative !== undefined && Math.abs(relative) < NOTICEABLE;
  return { word: small ? "same" : wordFor(Math.sign(delta), better), noiseKnown: false, unknownWhy: interval };
}

/** Compares `runs` (the first is the baseline); `noise` gives the intervals (none: every difference is plain). */
export function compareRuns(
  runs: readonly RunExport[],
  options: CompareOptions = {},
  noise?: CompareNoise,
): CompareRow[] {
  const stats = options.stats ?? DEFAULT_COMPARE_STATS;
  const out: CompareRow[] = [];
  for (const row of rowsToCompare(runs, options)) {
    for (const stat of statsOf(row, stats)) {
      const values = runs.map((run) => run.metrics.get(row.tag)?.stats[stat]);
      if (values.every((v) => v === undefined)) continue;
      const base = values[0];
      const deltas = values.map((v, i) => i === 0 || v === undefined || base === undefined ? undefined : v - base);
      const relatives = deltas.map((d) =>
        d === undefined || base === undefined || base === 0 ? undefined : d / Math.abs(base)
      );
      const need: NoiseNeed = { tag: row.tag, stat, single: row.single };
      const better = direction(row);
      const intervals: (DifferenceInterval | undefined)[] = [];
      const verdicts: (DifferenceVerdict | undefined)[] = [];
      deltas.forEach((d, i) => {
        if (d === undefined || base === undefined) {
          intervals.push(undefined);
          verdicts.push(undefined);
          return;
        }
        const interval = noise?.interval(need, i, d, base) ?? "no per-request records were read";
        intervals.push(typeof interval === "string" ? undefined : interval);
        verdicts.push(judgeDifference(d, relatives[i], interval, better));
      });
      out.push({
        tag: row.tag,
        label: metricLabel(row.tag, row.unit),
        unit: row.unit,
        stat: row.single ? "value" : stat,
        values,
        deltas,
        relatives,
        intervals,
        verdicts,
        better,
      });
    }
  }
  return out;
}
