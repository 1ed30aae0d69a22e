/**
 * Runs side by side: for each metric and statistic, every run's value and each later run's difference from the
 * first (the baseline), absolute and relative.
 *
 * `delta = value − baseline`; `relative = delta / |baseline|` (undefined when the baseline is 0 or either value is
 * missing), so +0.10 means "10 % higher than the baseline" whatever the metric's direction.
 */
import type { RunExport } from "./run_export.ts";
import { betterDirection, displayOrder, isConsoleMetric, metricLabel } from "./metric_names.ts";

/** Statistics shown by default for distributions; single-valued metrics show `avg` as their value. */
export const DEFAULT_COMPARE_STATS: readonly string[] = ["avg", "p50", "p90", "p99"];

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
  /** +1 larger is better, -1 smaller is better, 0 neither. */
  readonly better: 1 | -1 | 0;
}

export interface CompareOptions {
  /** Statistics of distributions to show. @default DEFAULT_COMPARE_STATS */
  readonly stats?: readonly string[];
  /** Tags to show, in this order. @default the console metrics any run has, in display order */
  readonly metrics?: readonly string[];
}

/** Whether a metric is single-valued (only `avg`, as AIPerf exports throughputs and counts). */
function isSingleValued(stats: Readonly<Record<string, number>>): boolean {
  return Object.keys(stats).every((key) => key === "avg");
}

/** The tags to compare: `options.metrics`, or every console metric of any run, in display order. */
function tagsToCompare(runs: readonly RunExport[], options: CompareOptions): string[] {
  if (options.metrics !== undefined) return [...options.metrics];
  const seen = new Set<string>();
  for (const run of runs) for (const tag of run.metrics.keys()) if (isConsoleMetric(tag)) seen.add(tag);
  return [...seen].sort((a, b) => displayOrder(a) - displayOrder(b));
}

/** Compares `runs` (the first is the baseline). */
export function compareRuns(runs: readonly RunExport[], options: CompareOptions = {}): CompareRow[] {
  const stats = options.stats ?? DEFAULT_COMPARE_STATS;
  const rows: CompareRow[] = [];
  for (const tag of tagsToCompare(runs, options)) {
    const first = runs.map((run) => run.metrics.get(tag)).find((m) => m !== undefined);
    if (first === undefined) continue;
    const single = isSingleValued(first.stats);
    for (const stat of single ? ["avg"] : stats) {
      const values = runs.map((run) => run.metrics.get(tag)?.stats[stat]);
      if (values.every((v) => v === undefined)) continue;
      const base = values[0];
      const deltas = values.map((v, i) => i === 0 || v === undefined || base === undefined ? undefined : v - base);
      const relatives = deltas.map((d) =>
        d === undefined || base === undefined || base === 0 ? undefined : d / Math.abs(base)
      );
      rows.push({
        tag,
        label: metricLabel(tag, first.unit),
        unit: first.unit,
        stat: single ? "value" : stat,
        values,
        deltas,
        relatives,
        better: betterDirection(tag, first.unit),
      });
    }
  }
  return rows;
}
