/**
 * `plot`'s work: the charts of one run, or of several runs (a sweep), written as SVG or PNG files, and the HTML
 * report beside them. One run: its charts and `report.html`. Several: the sweep charts, each run's own charts in a
 * folder named after the run, and `report.html` comparing them.
 */
import { type ChartSpec, multiRunCharts, singleRunCharts } from "./chart_specs.ts";
import { sweepAgainstLoad } from "./sweep_compare.ts";
import { runLetter } from "./compare_table.ts";
import { writeCompareReport } from "./compare_report.ts";
import { renderChartSvg, svgToPng } from "./render_chart.ts";
import { readRunExport, type RunExport } from "./run_export.ts";
import { readRunChartData } from "./run_chart_data.ts";
import { writeRunReport } from "./run_report.ts";

export type PlotFormat = "png" | "svg";

export interface PlotOptions {
  /** Folder the charts go to. @default the run's `plots/`, or `plots/` beside several runs */
  readonly output?: string;
  readonly format: PlotFormat;
  /** Called with each file written. */
  readonly onFile?: (path: string) => void;
}

/** Paths written. */
export interface PlotResult {
  readonly outputDir: string;
  readonly files: readonly string[];
  readonly report: string;
}

function dirName(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "." : i === 0 ? "/" : path.slice(0, i);
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** The deepest folder that holds every path. */
export function commonFolder(paths: readonly string[]): string {
  const split = paths.map((p) => p.split("/"));
  const out: string[] = [];
  for (let i = 0; split.every((parts) => i < parts.length - 1 && parts[i] === split[0][i]); i++) out.push(split[0][i]);
  return out.length === 0 ? "." : out.length === 1 && out[0] === "" ? "/" : out.join("/");
}

async function writeCharts(charts: readonly ChartSpec[], dir: string, options: PlotOptions): Promise<string[]> {
  await Deno.mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (const chart of charts) {
    const svg = await renderChartSvg(chart.option);
    const path = `${dir}/${chart.id}.${options.format}`;
    if (options.format === "svg") await Deno.writeTextFile(path, svg);
    else await Deno.writeFile(path, await svgToPng(svg));
    files.push(path);
    options.onFile?.(path);
  }
  return files;
}

/** Folder names for runs inside a sweep's output: each run's directory name, made unique with its letter. */
function runFolders(runs: readonly RunExport[]): string[] {
  const names = runs.map((run) => baseName(run.dir) || "run");
  return names.map((name, i) => (names.indexOf(name) === names.lastIndexOf(name) ? name : `${runLetter(i)}_${name}`));
}

/** Plots the runs whose summary exports are at `jsonPaths`. */
export async function plotRuns(jsonPaths: readonly string[], options: PlotOptions): Promise<PlotResult> {
  const runs = await Promise.all(jsonPaths.map(readRunExport));
  if (runs.length === 1) {
    const run = runs[0];
    const outputDir = options.output ?? `${run.dir}/plots`;
    await Deno.mkdir(outputDir, { recursive: true });
    const report = await writeRunReport(run.dir, { output: `${outputDir}/report.html`, jsonPath: run.jsonPath });
    options.onFile?.(report.path);
    const files = report.charts === undefined
      ? []
      : await writeCharts(singleRunCharts(run, report.charts), outputDir, options);
    return { outputDir, files, report: report.path };
  }
  const outputDir = options.output ?? `${commonFolder(runs.map((r) => dirName(r.jsonPath)))}/plots`;
  const labels = runs.map((_, i) => runLetter(i));
  const files = await writeCharts(multiRunCharts(runs, labels), outputDir, options);
  const folders = runFolders(runs);
  for (let i = 0; i < runs.length; i++) {
    const charts = await readRunChartData(runs[i].dir);
    if (charts !== undefined) {
      files.push(...await writeCharts(singleRunCharts(runs[i], charts), `${outputDir}/${folders[i]}`, options));
    }
  }
  const report = `${outputDir}/report.html`;
  // Several runs plotted together are points along a load (the charts' axis): each metric against it.
  const sweep = sweepAgainstLoad(runs, commonFolder(runs.map((r) => r.dir)), {});
  await writeCompareReport(report, runs, labels, sweep);
  options.onFile?.(report);
  return { outputDir, files, report };
}
