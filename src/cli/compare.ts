/**
 * `infermeter compare <run> <run>…`: the runs' statistics side by side with each run's change from the first, and
 * `--fail-on` conditions for CI (exit 5 when one is met). Reads only the summary exports; sends nothing.
 */
import { ConfigError } from "../config/config_error.ts";
import { parseCommandArgs } from "../config/parse_command_args.ts";
import { isHelpRequest } from "../config/read_cli_args.ts";
import { renderHelp } from "../config/render_help.ts";
import { didYouMeanHint } from "../base/did_you_mean.ts";
import { EXIT } from "./exit_codes.ts";
import { COMPARE_COMMAND } from "./compare_command.ts";
import { ReportError } from "../report/report_error.ts";
import { findRunPaths, readRunExport, type RunExport } from "../report/run_export.ts";
import { compareRuns } from "../report/compare_runs.ts";
import { renderCompareTable, renderRunLegend, runLetter } from "../report/compare_table.ts";
import { checkThresholds, type FailOnThreshold, parseFailOn } from "../report/fail_on_threshold.ts";
import { metricAliases, resolveMetricName } from "../report/metric_names.ts";

/** Where the command writes; tests pass their own. */
export interface CompareIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const DEFAULT_IO: CompareIo = {
  stdout: (text) => console.log(text.replace(/\n$/, "")),
  stderr: (text) => console.error(text.replace(/\n$/, "")),
};

/** A tag no run has, with a hint at the names that exist. */
function unknownMetric(name: string, runs: readonly RunExport[]): string | undefined {
  const tag = resolveMetricName(name);
  if (runs.some((run) => run.metrics.has(tag))) return undefined;
  const known = [...new Set(runs.flatMap((run) => [...run.metrics.keys()]))];
  return `'${name}' is no metric of these runs;${didYouMeanHint(name, [...known, ...metricAliases()]) || " "}` +
    ` (metrics: ${known.join(", ")}).`;
}

export async function runCompare(args: string[], io: CompareIo = DEFAULT_IO): Promise<number> {
  if (isHelpRequest(args)) {
    io.stdout(renderHelp(COMPARE_COMMAND));
    return EXIT.OK;
  }
  let runs: RunExport[];
  let thresholds: FailOnThreshold[];
  let options;
  let paths: string[];
  try {
    const parsed = parseCommandArgs(COMPARE_COMMAND, args);
    options = parsed.values;
    if (parsed.operands.length === 0) {
      throw new ConfigError(["give the runs to compare: infermeter compare <run> <run>… (the first is the baseline)"]);
    }
    thresholds = (options.failOn ?? []).map(parseFailOn);
    paths = await findRunPaths(parsed.operands);
    runs = await Promise.all(paths.map(readRunExport));
    const problems = [
      ...(options.metrics ?? []).map((name) => unknownMetric(name, runs)),
      ...thresholds.map((t) => unknownMetric(t.tag, runs)),
    ].filter((p) => p !== undefined);
    if (problems.length > 0) throw new ConfigError(problems);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof ReportError) {
      io.stderr(`error: ${e.message}\n`);
      return EXIT.USAGE;
    }
    throw e;
  }

  const labels = runs.map((_, i) => runLetter(i));
  const rows = compareRuns(runs, {
    stats: options.stats.map((s) => s.toLowerCase()),
    metrics: options.metrics?.map(resolveMetricName),
  });
  let breaches;
  try {
    breaches = checkThresholds(runs, labels, thresholds);
  } catch (e) {
    if (!(e instanceof ReportError)) throw e;
    io.stderr(`error: ${e.message}\n`);
    return EXIT.USAGE;
  }

  if (options.json) {
    io.stdout(
      JSON.stringify(
        {
          runs: runs.map((run, i) => ({ label: labels[i], path: run.jsonPath, benchmark_id: run.benchmarkId ?? null })),
          rows: rows.map((row) => ({
            metric: row.tag,
            unit: row.unit,
            stat: row.stat,
            values: row.values.map((v) => v ?? null),
            deltas: row.deltas.map((v) => v ?? null),
            relative: row.relatives.map((v) => v ?? null),
          })),
          fail_on: thresholds.map((t) => t.text),
          breaches: breaches.map((b) => ({ condition: b.threshold.text, run: labels[b.run], message: b.message })),
        },
        null,
        2,
      ) + "\n",
    );
  } else {
    io.stdout(`${renderRunLegend(paths)}\n\n${renderCompareTable(rows, runs.length)}\n`);
  }
  if (options.html !== undefined) {
    const { writeCompareReport } = await import("../report/compare_report.ts");
    await writeCompareReport(options.html, runs, labels, rows);
    io.stderr(`HTML comparison: ${options.html}\n`);
  }
  if (thresholds.length > 0) {
    for (const b of breaches) io.stderr(`FAIL ${b.message}\n`);
    if (breaches.length === 0) io.stderr(`All ${thresholds.length} --fail-on conditions passed.\n`);
  }
  return breaches.length > 0 ? EXIT.THRESHOLD_CROSSED : EXIT.OK;
}
