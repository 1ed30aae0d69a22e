/**
 * Exact statistics of a column, however it holds its values: in memory they are selected in one buffer
 * (`computeStatsInPlace`); once segments went to the spill file they are read back a segment at a time, a few times,
 * never all at once (`chunked_stats.ts`). Both give the same numbers to the last bit.
 */
import { computeStatsChunked, errorAdjustedStatsChunked } from "./chunked_stats.ts";
import { errorAdjustedStats } from "./error_adjusted.ts";
import type { Float64Column } from "./float64_column.ts";
import { computeStatsInPlace, type Stats } from "./stats.ts";

/**
 * Statistics of every value in `column`. `inPlace`: an in-memory float column may be reordered (its values are
 * summarized again at no cost, but their arrival order is lost); otherwise it is left as it was.
 */
export function columnStats(column: Float64Column, inPlace = false): Stats | undefined {
  if (column.segments > 0) return computeStatsChunked(column);
  const values = column.view();
  return computeStatsInPlace(inPlace ? values : values.slice());
}

/** AIPerf's "(error-adjusted)" statistics of `column` with `failures` infinite values (`error_adjusted.ts`). */
export function columnErrorAdjustedStats(column: Float64Column, failures: number): Stats {
  return column.segments > 0
    ? errorAdjustedStatsChunked(column, failures)
    : errorAdjustedStats(column.view(), failures);
}
