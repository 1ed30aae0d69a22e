/**
 * The HTML form of several runs: a legend, the sweep charts (latency percentiles and throughput against the load,
 * the throughput–latency curve), then either the side-by-side table of `compare` (each run's change from the
 * first, its confidence interval and verdict) or, for a sweep's points, each metric against the load; and each
 * run's identity.
 */
import { multiRunCharts } from "./chart_specs.ts";
import type { CompareRow } from "./compare_runs.ts";
import { intervalText, verdictText } from "./compare_table.ts";
import type { SweepTable } from "./sweep_compare.ts";
import { formatGrouped } from "../export/number_format.ts";
import { type HtmlSection, renderReportHtml, type ReportPage } from "./report_html.ts";
import type { RunExport } from "./run_export.ts";
import { clientFooter, echartsBrowserScript, loadLabel, runFacts } from "./run_report.ts";

function cell(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? "-" : formatGrouped(x, 2);
}

function percent(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? "-" : `${x > 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;
}

/** The side-by-side table: each run's value, then each later run's change, its interval and verdict. */
function sideBySide(runs: readonly RunExport[], labels: readonly string[], rows: readonly CompareRow[]): HtmlSection {
  const header = ["Metric", "Stat", labels[0]];
  for (let i = 1; i < runs.length; i++) {
    header.push(labels[i], `${labels[i]} vs ${labels[0]}`, "Interval", "Verdict");
  }
  const body = rows.map((row) => {
    const cells = [row.label, row.stat, cell(row.values[0])];
    for (let i = 1; i < runs.length; i++) {
      cells.push(
        cell(row.values[i]),
        percent(row.relatives[i]),
        intervalText(row.intervals[i]),
        verdictText(row.verdicts[i]) || "-",
      );
    }
    return cells;
  });
  return { kind: "table", table: { header, rows: body, leftColumns: [0, 1] } };
}

/** A sweep's points against the load. */
function againstLoad(sweep: SweepTable): HtmlSection {
  return {
    kind: "table",
    table: {
      header: ["Point", sweep.loadName, ...sweep.columns.map((c) => c.header)],
      rows: sweep.points.map((p) => [p.label, String(p.load), ...p.values.map(cell)]),
      leftColumns: [0],
    },
  };
}

/** The page comparing `runs` (the first is the baseline), or a sweep's points against the load. */
export function comparePage(
  runs: readonly RunExport[],
  labels: readonly string[],
  rows: readonly CompareRow[] | SweepTable,
): ReportPage {
  const sweep = "points" in rows ? rows : undefined;
  const sections: HtmlSection[] = [
    { kind: "heading", text: "Runs" },
    {
      kind: "table",
      table: {
        header: ["Run", "Load", "Model", "Started", "Export"],
        rows: runs.map((run, i) => [
          `${labels[i]}${i === 0 ? " (baseline)" : ""}`,
          loadLabel(run) ?? "-",
          run.model ?? "-",
          run.startTime ?? "-",
          run.jsonPath,
        ]),
        leftColumns: [0, 1, 2, 3, 4],
      },
    },
    { kind: "heading", text: "Charts" },
    { kind: "charts", charts: multiRunCharts(runs, labels) },
    ...(sweep !== undefined
      ? [{ kind: "heading", text: "Against the load" } as const, againstLoad(sweep)]
      : [{ kind: "heading", text: "Side by side" } as const, sideBySide(runs, labels, rows as readonly CompareRow[])]),
  ];
  runs.forEach((run, i) => {
    sections.push({ kind: "heading", text: `Run ${labels[i]}` }, { kind: "facts", facts: runFacts(run) });
    if (run.cliCommand !== undefined) {
      sections.push({ kind: "pre", title: "Command line", text: run.cliCommand, wrap: true });
    }
  });
  return {
    title: sweep !== undefined
      ? `infermeter sweep — ${runs.length} points`
      : `infermeter comparison — ${runs.length} runs`,
    subtitle: sweep !== undefined
      ? `each metric against ${sweep.loadName}`
      : `baseline ${labels[0]}: ${runs[0].jsonPath}`,
    sections,
    footer: runs.flatMap((run, i) => clientFooter(run).map((line) => `${labels[i]}: ${line}`)),
  };
}

/** Writes the comparison page to `path`. */
export async function writeCompareReport(
  path: string,
  runs: readonly RunExport[],
  labels: readonly string[],
  rows: readonly CompareRow[] | SweepTable,
): Promise<void> {
  await Deno.writeTextFile(path, renderReportHtml(comparePage(runs, labels, rows), await echartsBrowserScript()));
}
