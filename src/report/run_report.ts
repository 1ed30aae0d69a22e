/**
 * `report.html` of one run: its identity and command line (as exported, secrets already redacted), the metrics
 * table, the charts, the error summary, the console output, and the client-overhead footer. Built from the run's
 * exports only, so it can be written after any run, ours or AIPerf's, and again later by `plot`.
 */
import { singleRunCharts } from "./chart_specs.ts";
import { isConsoleMetric, metricLabel } from "./metric_names.ts";
import { exportView } from "./export_view.ts";
import { headlineLabel, type ResultView, rowsOfTier, type ViewRow } from "../metrics/result_view.ts";
import type { MetricTier } from "../metrics/metric_def.ts";
import { type HtmlSection, renderReportHtml, type ReportPage } from "./report_html.ts";
import { findRunExport, readRunExport, type RunExport } from "./run_export.ts";
import { readRunChartData, type RunChartData } from "./run_chart_data.ts";
import { ReportError } from "./report_error.ts";
import { consolePathOf, runManifest } from "./run_files.ts";
import { manifestPath } from "../export/run_manifest.ts";
import { formatGrouped } from "../export/number_format.ts";

/** The report's file name in an artifact directory. */
export const REPORT_FILE = "report.html";

const STAT_COLUMNS = ["avg", "min", "max", "p99", "p90", "p50", "std"] as const;

function cell(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? "-" : formatGrouped(x, 2);
}

/** `concurrency 4`, `request rate 10 req/s`, or undefined. */
export function loadLabel(run: RunExport): string | undefined {
  if (run.requestRate !== undefined) {
    return `request rate ${run.requestRate} req/s${
      run.concurrency !== undefined ? `, concurrency ${run.concurrency}` : ""
    }`;
  }
  return run.concurrency !== undefined ? `concurrency ${run.concurrency}` : undefined;
}

/** The identity lines of a run. */
export function runFacts(run: RunExport): [string, string][] {
  const facts: [string, string][] = [];
  const add = (k: string, v: string | number | boolean | undefined) => {
    if (v !== undefined && v !== "") facts.push([k, String(v)]);
  };
  add("Model", run.model);
  add(
    "Endpoint",
    run.endpointType === undefined ? undefined : `${run.endpointType}${run.streaming ? " (streaming)" : ""}`,
  );
  add("URL", run.url);
  add("Load", loadLabel(run));
  add("Started", run.startTime);
  add("Ended", run.endTime);
  add(
    "Duration",
    run.durationSec === undefined
      ? undefined
      : `${run.durationSec.toFixed(2)} s${run.cancelled ? " (cancelled early)" : ""}`,
  );
  add("Benchmark id", run.benchmarkId);
  add("Export", run.jsonPath);
  add("Produced by", run.producer);
  return facts;
}

/** The metrics tables, one per tier (the headline figures, the main table, the details), from the run's view. */
export function metricsTables(view: ResultView): HtmlSection[] {
  const table = (rows: readonly ViewRow[], caption: string): HtmlSection => ({
    kind: "table",
    table: {
      caption,
      header: ["Metric", ...STAT_COLUMNS],
      rows: rows.map((r) => [
        metricLabel(r.tag, r.unit),
        ...STAT_COLUMNS.map((s) => r.single && s !== "avg" ? "-" : cell(r.stats[s])),
      ]),
    },
  });
  const tiers: [MetricTier, string][] = [["headline", "Headline"], ["standard", "Main table"], ["detail", "Details"]];
  return tiers
    .map(([tier, caption]) =>
      [rowsOfTier(view, tier).filter((r) => r.tier !== "detail" || isConsoleMetric(r.tag)), caption] as const
    )
    .filter(([rows]) => rows.length > 0)
    .map(([rows, caption]) => table(rows, caption));
}

/** The headline as cards and the verdicts as ✓/✗ lines (what the console's first lines say). */
export function headlineCards(view: ResultView): HtmlSection {
  const { ok, errors } = view.requests;
  const cards: { label: string; value: string; sub?: string }[] = [
    { label: "Requests", value: `${ok} ok`, sub: `${errors} failed` },
  ];
  const byTag = new Map<string, string[]>();
  for (const f of view.headline) {
    const text = `${f.stat === "avg" ? "" : `${f.stat} `}${formatGrouped(f.value, 2)} ${f.unit}`;
    byTag.set(f.tag, [...(byTag.get(f.tag) ?? []), text]);
  }
  for (const [tag, [value, ...rest]] of byTag) {
    cards.push(
      rest.length === 0 ? { label: headlineLabel(tag), value } : {
        label: headlineLabel(tag),
        value,
        sub: rest.join(" · "),
      },
    );
  }
  return {
    kind: "cards",
    cards,
    verdicts: view.verdicts.map((v) => ({ ok: v.ok, text: `${v.label}: ${v.detail}` })),
  };
}

/** The error summary section (a sentence when nothing failed). */
export function errorSections(run: RunExport): HtmlSection[] {
  if (run.errors.length === 0) return [{ kind: "note", text: "No request failed." }];
  return [{
    kind: "table",
    table: {
      header: ["Code", "Type", "Message", "Count"],
      rows: run.errors.map((
        e,
      ) => [e.code === undefined ? "N/A" : String(e.code), e.type || "N/A", e.message, String(e.count)]),
      leftColumns: [1, 2],
    },
  }];
}

/** The footer: what the client itself cost while measuring, and what produced the files. */
export function clientFooter(run: RunExport): string[] {
  const c = run.client;
  const lines: string[] = [];
  if (c?.percentOfCore !== undefined) {
    const threads = c.engineThreads === undefined
      ? ""
      : ` (${c.engineThreads} engine thread${c.engineThreads === 1 ? "" : "s"})`;
    const over = c.overThresholdPercent === undefined
      ? ""
      : ` — over ${c.overThresholdPercent}% per engine thread: timestamps may lag`;
    lines.push(`Client CPU: ${c.percentOfCore.toFixed(0)}% of one core${threads}${over}`);
  }
  if (c?.dispatchP50Ms !== undefined) {
    lines.push(
      `Client dispatch overhead: p50 ${c.dispatchP50Ms.toFixed(3)} ms, p99 ${(c.dispatchP99Ms ?? NaN).toFixed(3)} ms`,
    );
  }
  if (c?.scheduleLatenessP50Ms !== undefined) {
    lines.push(
      `Schedule lateness: p50 ${c.scheduleLatenessP50Ms.toFixed(3)} ms, p99 ${
        (c.scheduleLatenessP99Ms ?? NaN).toFixed(3)
      } ms`,
    );
  }
  if (c?.peakRssBytes !== undefined) lines.push(`Client peak memory: ${(c.peakRssBytes / 2 ** 20).toFixed(0)} MiB`);
  if (lines.length === 0) lines.push("The client's own cost is not in this export (infermeter exports record it).");
  lines.push(`Results by ${run.producer}; report by infermeter.`);
  return lines;
}

/** The page of one run. */
export function runReportPage(
  run: RunExport,
  charts: RunChartData | undefined,
  consoleText?: string,
): ReportPage {
  const view = exportView(run);
  const sections: HtmlSection[] = [headlineCards(view), { kind: "heading", text: "Run" }, {
    kind: "facts",
    facts: runFacts(run),
  }];
  if (run.cliCommand !== undefined) {
    sections.push({ kind: "pre", title: "Command line", text: run.cliCommand, open: true, wrap: true });
  }
  sections.push({ kind: "heading", text: "Metrics" }, ...metricsTables(view));
  sections.push({ kind: "heading", text: "Charts" });
  if (charts === undefined) {
    sections.push({ kind: "note", text: "No per-request records (profile_export.jsonl): only the tables are shown." });
  } else {
    sections.push({ kind: "charts", charts: singleRunCharts(run, charts) });
  }
  sections.push({ kind: "heading", text: "Errors" }, ...errorSections(run));
  if (consoleText !== undefined) sections.push({ kind: "pre", title: "Console output", text: consoleText });
  const load = loadLabel(run);
  return {
    title: `infermeter report — ${run.model ?? "unknown model"}`,
    subtitle: [run.endpointType, load, run.startTime].filter((x) => x !== undefined).join(" · "),
    sections,
    footer: clientFooter(run),
  };
}

/** The ECharts browser build, inlined into every report. */
export async function echartsBrowserScript(): Promise<string> {
  return (await import("./echarts_browser.ts")).ECHARTS_BROWSER_JS;
}

async function readOptionalText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

/** `extra` after the errors, before the console output (the last section when there is one). */
function insertBeforeConsole(sections: readonly HtmlSection[], extra: readonly HtmlSection[]): HtmlSection[] {
  const last = sections.at(-1);
  return last?.kind === "pre" && last.title === "Console output"
    ? [...sections.slice(0, -1), ...extra, last]
    : [...sections, ...extra];
}

/** Where {@link writeRunReport} writes, and what it read. */
export interface RunReportResult {
  readonly path: string;
  readonly run: RunExport;
  /** What the charts were drawn from (undefined without per-request records). */
  readonly charts: RunChartData | undefined;
}

/** Which files a report is drawn from; each is found in the run directory (manifest, else AIPerf's names) when absent. */
export interface RunReportSources {
  /** The summary export. */
  readonly jsonPath?: string;
  /** The per-request JSONL (a missing file, or null, means no charts). */
  readonly recordsPath?: string | null;
  /** The console text itself (a run writing its report before its console file). */
  readonly consoleText?: string;
  /** Further sections after the errors (a run's peers' metrics, its server timing split). */
  readonly extraSections?: readonly HtmlSection[];
  /** The run's files, listed in the footer (a run passes what it wrote; else the manifest's). */
  readonly files?: readonly { readonly label: string; readonly path: string }[];
  /** Workers reading the per-request JSONL (1: in this thread). @default one per core for a large file */
  readonly readWorkers?: number;
}

/**
 * `report.html` of the run in `artifactDir`, drawn from its exports: call it once the summary JSON (and the
 * per-request JSONL, when written) are complete.
 * @throws {ReportError} when the directory holds no readable summary export.
 */
export async function renderRunReport(
  artifactDir: string,
  sources: RunReportSources = {},
): Promise<{ html: string; run: RunExport; charts: RunChartData | undefined }> {
  const manifest = await runManifest(artifactDir);
  const jsonPath = sources.jsonPath ?? (manifest && manifestPath(artifactDir, manifest, "summary_json")) ??
    await findRunExport(artifactDir);
  if (jsonPath === undefined) throw new ReportError(`${artifactDir}: no profile export to report on.`);
  const run = await readRunExport(jsonPath);
  // Streamed in one pass (never the whole file in memory): a run of any length gets its charts.
  const charts = sources.recordsPath === null
    ? undefined
    : await readRunChartData(run.dir, sources.recordsPath, sources.readWorkers);
  const consoleText = sources.consoleText ?? await readOptionalText(await consolePathOf(run.dir));
  const listed = sources.files ??
    (manifest?.files.map((f) => ({ label: f.label, path: `${artifactDir}/${f.path}` })) ?? []);
  const base = runReportPage(run, charts, consoleText);
  const page = listed.length === 0
    ? base
    : { ...base, footer: [...base.footer, ...listed.map((f) => `${f.label}: ${f.path}`)] };
  const extra = sources.extraSections ?? [];
  const html = renderReportHtml(
    extra.length === 0 ? page : { ...page, sections: insertBeforeConsole(page.sections, extra) },
    await echartsBrowserScript(),
  );
  return { html, run, charts };
}

/** Writes {@linkcode renderRunReport}'s page into the run's directory (or to `options.output`). */
export async function writeRunReport(
  artifactDir: string,
  options: RunReportSources & { readonly output?: string } = {},
): Promise<RunReportResult> {
  const { html, run, charts } = await renderRunReport(artifactDir, options);
  const path = options.output ?? `${artifactDir}/${REPORT_FILE}`;
  await Deno.writeTextFile(path, html);
  return { path, run, charts };
}
