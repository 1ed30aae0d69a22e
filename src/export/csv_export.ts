/**
 * `profile_export_aiperf.csv` exactly as AIPerf writes it (§3.4, its `MetricsCsvExporter`):
 *
 * - section 1, metrics with a distribution: `Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std`;
 * - a blank line (only when both sections exist);
 * - section 2, single values: `Metric,Value`.
 *
 * Rows are sorted by tag; the name is `Header (unit)`, without the unit for `requests` and `count`; numbers are Python's
 * `f"{x:.2f}"`, empty when absent. Lines end in CRLF, Python's `csv.writer` default; fields containing a
 * comma, quote or line break are quoted. Bookkeeping metrics flagged `jsonOnly` are left out.
 */
import type { MetricResult, RunSummary } from "../metrics/run_summary.ts";
import type { StatKey } from "../metrics/stats.ts";
import { formatFixed } from "./number_format.ts";
import { STAT_KEYS } from "../metrics/confidence_aggregate.ts";

const CRLF = "\r\n";

/** The distribution columns of AIPerf 0.13's CSV, in order: the statistics AIPerf aggregates. */
export const CSV_STAT_COLUMNS: readonly (StatKey | "sum")[] = STAT_KEYS;

/** A CSV field, quoted like Python's `csv.QUOTE_MINIMAL`. */
function field(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function row(fields: readonly string[]): string {
  return fields.map(field).join(",") + CRLF;
}

/** `Header (unit)`; AIPerf omits the unit `requests` (and `count`). */
export function csvMetricName(result: Pick<MetricResult, "header" | "unit">): string {
  const unit = result.unit;
  return unit && unit !== "requests" && unit !== "count" ? `${result.header} (${unit})` : result.header;
}

function num(x: number | undefined): string {
  // A statistic a metric does not have (NaN) is an empty field, and so is an infinite one (the "(error-adjusted)"
  // rows' avg, max, sum and upper percentiles), as AIPerf leaves them.
  return x === undefined || !Number.isFinite(x) ? "" : formatFixed(x, 2);
}

/** A single-value row of another source than the metrics (an accuracy run's `accuracy.*`), written with an empty
 * value as AIPerf writes them. */
export interface CsvExtraRow {
  readonly tag: string;
  /** The whole metric name, unit included. */
  readonly name: string;
}

/** The CSV text of a run summary; `extraRows` join the single values, sorted by tag with them. */
export function renderSummaryCsv(summary: RunSummary, extraRows: readonly CsvExtraRow[] = []): string {
  const exported = summary.metrics.filter((m) => !m.flags.jsonOnly).sort((a, b) => (a.tag < b.tag ? -1 : 1));
  const distributions = exported.filter((m) => m.stats !== undefined);
  const scalars: { tag: string; name: string; value: number | undefined }[] = [
    ...exported.filter((m) => m.stats === undefined).map((m) => ({
      tag: m.tag,
      name: csvMetricName(m),
      value: m.value,
    })),
    ...extraRows.map((r) => ({ tag: r.tag, name: r.name, value: undefined })),
  ].sort((a, b) => (a.tag < b.tag ? -1 : 1));
  let out = "";
  if (distributions.length > 0) {
    out += row(["Metric", ...CSV_STAT_COLUMNS]);
    for (const m of distributions) {
      out += row([csvMetricName(m), ...CSV_STAT_COLUMNS.map((k) => num(m.stats?.[k]))]);
    }
    if (scalars.length > 0) out += CRLF;
  }
  if (scalars.length > 0) {
    out += row(["Metric", "Value"]);
    for (const m of scalars) out += row([m.name, num(m.value)]);
  }
  return out;
}

/** Writes the summary CSV to `path` (directory must exist). */
export async function writeSummaryCsv(path: string, summary: RunSummary): Promise<void> {
  await Deno.writeTextFile(path, renderSummaryCsv(summary));
}
