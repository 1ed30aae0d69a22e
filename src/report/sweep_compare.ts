/**
 * A sweep's points against the load they were run at: one row per point in load order (the swept concurrency or
 * request rate, as the sweep charts' axis), one column per metric statistic, each point's own figure from its
 * result view. Points of a sweep are different experiments, not a baseline and its variants, so there is no
 * "change from the first point" here: the figures are read along the load, as the charts draw them.
 */
import { type BoxColumn, renderBoxTable } from "../export/box_table.ts";
import { formatGrouped } from "../export/number_format.ts";
import { headlineLabel } from "../metrics/result_view.ts";
import { sweepAxis } from "./chart_specs.ts";
import { type CompareOptions, DEFAULT_COMPARE_STATS, rowsToCompare, statsOf } from "./compare_runs.ts";
import { runLetter } from "./compare_table.ts";
import { exportView } from "./export_view.ts";
import type { RunExport } from "./run_export.ts";

/** One column: a metric's statistic. */
export interface SweepColumn {
  readonly tag: string;
  /** `avg` for single-valued metrics. */
  readonly stat: string;
  readonly unit: string;
  /** `TTFT p99 (ms)`, `Output tok/s`. */
  readonly header: string;
  /** A single-valued metric (a throughput, a count). */
  readonly single: boolean;
}

export interface SweepPoint {
  /** The point's directory, relative to the sweep's. */
  readonly label: string;
  /** The load on the sweep's axis (concurrency, request rate), or the run letter when the points share one. */
  readonly load: number | string;
  /** One per column. */
  readonly values: readonly (number | undefined)[];
}

export interface SweepTable {
  /** `concurrency`, `request rate (req/s)`, or `run`. */
  readonly loadName: string;
  readonly columns: readonly SweepColumn[];
  /** In load order. */
  readonly points: readonly SweepPoint[];
}

function relativeTo(dir: string, path: string): string {
  const prefix = dir.endsWith("/") ? dir : `${dir}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) || "." : path;
}

/**
 * The columns: the headline figures (TTFT, ITL and latency p50/p99, output tok/s, req/s), or `options.metrics`
 * by `options.stats` (single-valued metrics by their value).
 */
function columnsOf(runs: readonly RunExport[], options: CompareOptions): SweepColumn[] {
  if (options.metrics === undefined) {
    const seen = new Map<string, SweepColumn>();
    for (const run of runs) {
      const view = exportView(run);
      for (const f of view.headline) {
        const key = `${f.tag}.${f.stat}`;
        const single = view.rows.find((r) => r.tag === f.tag)?.single ?? false;
        const header = single ? headlineLabel(f.tag) : `${f.label} ${f.stat} (${f.unit})`;
        if (!seen.has(key)) seen.set(key, { tag: f.tag, stat: f.stat, unit: f.unit, header, single });
      }
    }
    return [...seen.values()];
  }
  const stats = options.stats ?? DEFAULT_COMPARE_STATS;
  return rowsToCompare(runs, options).flatMap((row) =>
    statsOf(row, stats).map((stat) => ({
      tag: row.tag,
      stat,
      unit: row.unit,
      header: `${row.shortHeader}${row.single ? "" : ` ${stat}`} (${row.unit})`,
      single: row.single,
    }))
  );
}

/** The table of a sweep whose points are `runs`, found under `sweepDir`. */
export function sweepAgainstLoad(runs: readonly RunExport[], sweepDir: string, options: CompareOptions): SweepTable {
  const axis = sweepAxis(runs, runs.map((_, i) => runLetter(i)));
  const order = runs.map((_, i) => i);
  if (axis.numeric) order.sort((a, b) => (axis.values[a] as number) - (axis.values[b] as number));
  const columns = columnsOf(runs, options);
  return {
    loadName: axis.name,
    columns,
    points: order.map((i) => ({
      label: relativeTo(sweepDir, runs[i].dir),
      load: axis.values[i],
      values: columns.map((c) => runs[i].metrics.get(c.tag)?.stats[c.stat]),
    })),
  };
}

/** The sweep as a box table: Point, the load, then each column. */
export function renderSweepTable(table: SweepTable, maxWidth = 160): string {
  // Too narrow a console leaves out distribution statistics from the right first, throughputs last.
  const n = table.columns.length;
  const columns: BoxColumn[] = [
    { header: "Point", justify: "left", wrap: true },
    {
      header: table.loadName === "run" ? "Run" : table.loadName[0].toUpperCase() + table.loadName.slice(1),
      wrap: true,
    },
    ...table.columns.map((c, k): BoxColumn => ({ header: c.header, wrap: true, dropOrder: c.single ? n + k : n - k })),
  ];
  const body = table.points.map((p) => [
    p.label,
    String(p.load),
    ...p.values.map((v) => v === undefined || !Number.isFinite(v) ? "-" : formatGrouped(v, 2)),
  ]);
  return renderBoxTable(columns, body, { title: "infermeter | Sweep: each metric against the load", maxWidth });
}
