/**
 * `report.html` of a sweep: one row per point with its headline figures (from each point's result view), the charts
 * of each metric against the swept load (latency percentiles, throughput, the throughput–latency curve), and each
 * point's identity. Points are compared against the load, never as "% better" than the first.
 */
import { multiRunCharts, type SloLine } from "./chart_specs.ts";
import { formatGrouped } from "../export/number_format.ts";
import { type HtmlSection, renderReportHtml, type ReportPage } from "./report_html.ts";
import type { RunExport } from "./run_export.ts";
import { exportView } from "./export_view.ts";
import { HEADLINE_STATS, headlineLabel } from "../metrics/result_view.ts";
import { clientFooter, echartsBrowserScript, runFacts } from "./run_report.ts";

export interface SweepReportPoint {
  readonly label: string;
  /** The point's export, or why it has none (the point failed). */
  readonly run?: RunExport;
  readonly failure?: string;
}

/** What a sweep page adds to the points: the answer of a search (first on the page) and its SLOs (on the charts). */
export interface SweepPageOptions {
  /** The page's title. @default "infermeter sweep — N points" */
  readonly title?: string;
  readonly answer?: string;
  readonly slos?: readonly SloLine[];
}

/** The page of a sweep whose points are in `points` (in sweep order). */
export function sweepPage(points: readonly SweepReportPoint[], options: SweepPageOptions = {}): ReportPage {
  const columns = Object.entries(HEADLINE_STATS).flatMap(([tag, stats]) => stats.map((stat) => ({ tag, stat })));
  const rows = points.map((p) => {
    if (p.run === undefined) return [p.label, p.failure ?? "failed", ...columns.map(() => "-")];
    const view = exportView(p.run);
    const figure = (tag: string, stat: string) => view.headline.find((f) => f.tag === tag && f.stat === stat);
    const status = view.requests.errors === 0 ? "ok" : `${view.requests.errors} failed`;
    return [
      p.label,
      status,
      ...columns.map(({ tag, stat }) => {
        const f = figure(tag, stat);
        return f === undefined ? "-" : formatGrouped(f.value, 2);
      }),
    ];
  });
  const header = [
    "Point",
    "Status",
    ...columns.map(({ tag, stat }) => stat === "avg" ? headlineLabel(tag) : `${headlineLabel(tag)} ${stat}`),
  ];
  const done = points.filter((p) => p.run !== undefined);
  const runs = done.map((p) => p.run!);
  const sections: HtmlSection[] = [];
  if (options.answer !== undefined) sections.push({ kind: "note", text: options.answer });
  if (options.slos !== undefined && options.slos.length > 0) {
    sections.push({ kind: "note", text: `SLO: ${options.slos.map((s) => s.label).join(", ")} (dashed on the charts)` });
  }
  sections.push(
    { kind: "heading", text: "Points" },
    { kind: "table", table: { header, rows, leftColumns: [0, 1] } },
  );
  if (runs.length > 0) {
    sections.push({ kind: "heading", text: "Against the load" }, {
      kind: "charts",
      charts: multiRunCharts(runs, done.map((p) => p.label), { slos: options.slos }),
    });
  }
  for (const p of done) {
    sections.push({ kind: "heading", text: `Point ${p.label}` }, { kind: "facts", facts: runFacts(p.run!) });
  }
  return {
    title: options.title ?? `infermeter sweep — ${points.length} points`,
    subtitle: runs[0]?.model,
    sections,
    footer: done.flatMap((p) => clientFooter(p.run!).map((line) => `${p.label}: ${line}`)),
  };
}

/** The sweep page's HTML. */
export async function renderSweepReport(
  points: readonly SweepReportPoint[],
  options: SweepPageOptions = {},
): Promise<string> {
  return renderReportHtml(sweepPage(points, options), await echartsBrowserScript());
}
