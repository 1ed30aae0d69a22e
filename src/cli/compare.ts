/**
 * `infermeter compare <run> <run>…`: the runs' statistics side by side with each run's change from the first, the
 * change's confidence interval from the per-request records and a verdict (`≈ same` inside the noise), and
 * `--fail-on` conditions for CI (exit 5 when one is met beyond the noise). A sweep directory alone shows each metric
 * against the swept load. Reads only the exports; sends nothing.
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
import { compareNeeds, type CompareOptions, type CompareRow, compareRuns } from "../report/compare_runs.ts";
import { type CompareNoise, compareNoise } from "../report/compare_noise.ts";
import { readRecordSamples, type RecordSamples } from "../report/record_samples.ts";
import { renderCompareTable, renderNoiseNote, renderRunLegend, runLetter } from "../report/compare_table.ts";
import { renderSweepTable, sweepAgainstLoad, type SweepTable } from "../report/sweep_compare.ts";
import {
  checkThresholds,
  type FailOnThreshold,
  parseFailOn,
  type ThresholdCheck,
} from "../report/fail_on_threshold.ts";
import { metricAliases, resolveMetricName } from "../report/metric_names.ts";
import { tableWidth, terminalWidth } from "./table_width.ts";
import { BundleOperands } from "./bundle_operands.ts";
import { wrapText } from "../export/box_table.ts";
/** Where the command writes; tests pass their own. */
export interface CompareIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Widest a table may be: the terminal's width when stdout is one. */
  readonly width?: number;
}

const DEFAULT_IO: CompareIo = {
  stdout: (text) => console.log(text.replace(/\n$/, "")),
  stderr: (text) => console.error(text.replace(/\n$/, "")),
  get width() {
    return terminalWidth();
  },
};

/** A tag no run has, with a hint at the names that exist. */
function unknownMetric(name: string, runs: readonly RunExport[]): string | undefined {
  const tag = resolveMetricName(name);
  if (runs.some((run) => run.metrics.has(tag))) return undefined;
  const known = [...new Set(runs.flatMap((run) => [...run.metrics.keys()]))];
  return `'${name}' is no metric of these runs;${didYouMeanHint(name, [...known, ...metricAliases()]) || " "}` +
    ` (metrics: ${known.join(", ")}).`;
}

/** What was read and decided before anything is printed. */
interface Plan {
  readonly runs: RunExport[];
  readonly paths: string[];
  readonly thresholds: FailOnThreshold[];
  readonly options: CompareOptions;
  readonly level: number;
  readonly json: boolean;
  readonly html?: string;
  readonly width: number;
  /** The directory, when the only operand was a sweep (its points are compared against the load). */
  readonly sweepDir?: string;
}

async function plan(args: string[], io: CompareIo, bundles: BundleOperands): Promise<Plan> {
  const parsed = parseCommandArgs(COMPARE_COMMAND, args);
  const o = parsed.values;
  if (parsed.operands.length === 0) {
    throw new ConfigError(["give the runs to compare: infermeter compare <run> <run>… (the first is the baseline)"]);
  }
  const thresholds = (o.failOn ?? []).map(parseFailOn);
  const paths = await findRunPaths(await bundles.unpack(parsed.operands));
  const runs = await Promise.all(paths.map(readRunExport));
  const all = o.metrics?.length === 1 && o.metrics[0].toLowerCase() === "all";
  const named = all ? [] : o.metrics ?? [];
  const problems = [
    ...named.map((name) => unknownMetric(name, runs)),
    ...thresholds.map((t) => unknownMetric(t.tag, runs)),
  ].filter((p) => p !== undefined);
  const sweepDir = parsed.operands.length === 1 && runs.length > 1 ? parsed.operands[0].replace(/\/+$/, "") : undefined;
  if (sweepDir !== undefined) {
    for (const t of thresholds.filter((t) => t.kind !== "value")) {
      problems.push(
        `--fail-on '${t.text}' compares with a baseline, and a sweep's points are not variants of its first point; ` +
          "give two runs (e.g. the same point of two sweeps), or a value limit such as 'ttft.p99>500'.",
      );
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    runs,
    paths: paths.map((path) => bundles.shown(path)),
    thresholds,
    options: {
      stats: o.stats.map((s) => s.toLowerCase()),
      metrics: all ? "all" : o.metrics?.map(resolveMetricName),
    },
    level: o.confidenceLevel,
    json: o.json,
    html: o.html,
    width: tableWidth(o.consoleWidth, io.width),
    sweepDir,
  };
}

export async function runCompare(args: string[], io: CompareIo = DEFAULT_IO): Promise<number> {
  if (isHelpRequest(args)) {
    io.stdout(renderHelp(COMPARE_COMMAND));
    return EXIT.OK;
  }
  // A bundle operand is unpacked into a temporary run directory, removed on the way out.
  await using bundles = new BundleOperands();
  let p: Plan;
  try {
    p = await plan(args, io, bundles);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof ReportError) {
      io.stderr(`error: ${e.message}\n`);
      return EXIT.USAGE;
    }
    throw e;
  }
  const labels = p.runs.map((_, i) => runLetter(i));
  let check: ThresholdCheck;
  let rows: CompareRow[] = [];
  let sweep: SweepTable | undefined;
  let noise: CompareNoise | undefined;
  try {
    if (p.sweepDir !== undefined) {
      sweep = sweepAgainstLoad(p.runs, p.sweepDir, p.options);
      // Value limits only (checked in plan): each point on its own.
      const per = p.runs.map((run, i) => checkThresholds([run], [labels[i]], p.thresholds));
      check = { breaches: per.flatMap((c) => c.breaches), withinNoise: [] };
    } else {
      if (p.runs.length > 1) {
        const needs = [
          ...compareNeeds(p.runs, p.options),
          ...p.thresholds.map((t) => ({
            tag: t.tag,
            stat: t.stat,
            single: Object.keys(p.runs[0].metrics.get(t.tag)?.stats ?? {}).every((k) => k === "avg"),
          })),
        ];
        // Only the distributions' metrics are read; a run given twice is read once.
        const tags = [...new Set(needs.filter((n) => !n.single).map((n) => n.tag))];
        const reads = new Map<string, Promise<RecordSamples | undefined>>();
        const samples = await Promise.all(p.runs.map((run) => {
          if (!reads.has(run.dir)) reads.set(run.dir, readRecordSamples(run.dir, tags));
          return reads.get(run.dir)!;
        }));
        noise = compareNoise(samples, needs, p.level);
      }
      rows = compareRuns(p.runs, p.options, noise);
      check = checkThresholds(p.runs, labels, p.thresholds, noise);
    }
  } catch (e) {
    if (!(e instanceof ReportError)) throw e;
    io.stderr(`error: ${e.message}\n`);
    return EXIT.USAGE;
  }

  if (p.json) io.stdout(JSON.stringify(jsonReport(p, labels, rows, sweep, noise, check), null, 2) + "\n");
  else if (sweep !== undefined) {
    io.stdout(`Sweep: ${p.sweepDir} (${p.runs.length} points)\n\n${renderSweepTable(sweep, p.width)}\n`);
  } else {
    const note = p.runs.length > 1 ? `\n${wrapText(renderNoiseNote(rows, p.level), p.width).join("\n")}` : "";
    io.stdout(`${renderRunLegend(p.paths)}\n\n${renderCompareTable(rows, p.runs.length, p.width, p.level)}${note}\n`);
  }
  if (p.html !== undefined) {
    const { writeCompareReport } = await import("../report/compare_report.ts");
    await writeCompareReport(p.html, p.runs, labels, sweep ?? rows);
    io.stderr(`HTML comparison: ${p.html}\n`);
  }
  if (p.thresholds.length > 0) {
    for (const b of check.withinNoise) io.stderr(`NOISE ${b.message}\n`);
    for (const b of check.breaches) io.stderr(`FAIL ${b.message}\n`);
    if (check.breaches.length === 0) io.stderr(`All ${p.thresholds.length} --fail-on conditions passed.\n`);
  }
  return check.breaches.length > 0 ? EXIT.THRESHOLD_CROSSED : EXIT.OK;
}

function jsonInterval(i: CompareRow["intervals"][number]) {
  return i === undefined ? null : {
    low: i.low,
    high: i.high,
    relative_low: i.relativeLow ?? null,
    relative_high: i.relativeHigh ?? null,
    method: i.method,
  };
}

function jsonReport(
  p: Plan,
  labels: readonly string[],
  rows: readonly CompareRow[],
  sweep: SweepTable | undefined,
  noise: CompareNoise | undefined,
  check: ThresholdCheck,
) {
  const runs = p.runs.map((run, i) => ({
    label: labels[i],
    path: run.jsonPath,
    benchmark_id: run.benchmarkId ?? null,
    records: noise?.recordFiles[i] ?? null,
  }));
  const thresholds = {
    fail_on: p.thresholds.map((t) => t.text),
    breaches: check.breaches.map((b) => ({ condition: b.threshold.text, run: labels[b.run], message: b.message })),
    within_noise: check.withinNoise.map((b) => ({
      condition: b.threshold.text,
      run: labels[b.run],
      message: b.message,
    })),
  };
  if (sweep !== undefined) {
    return {
      sweep: {
        dir: p.sweepDir,
        load: sweep.loadName,
        columns: sweep.columns.map((c) => ({ metric: c.tag, stat: c.stat, unit: c.unit, header: c.header })),
        points: sweep.points.map((pt) => ({ label: pt.label, load: pt.load, values: pt.values.map((v) => v ?? null) })),
      },
      runs,
      ...thresholds,
    };
  }
  return {
    confidence_level: p.level,
    runs,
    rows: rows.map((row) => ({
      metric: row.tag,
      unit: row.unit,
      stat: row.stat,
      values: row.values.map((v) => v ?? null),
      deltas: row.deltas.map((v) => v ?? null),
      relative: row.relatives.map((v) => v ?? null),
      intervals: row.intervals.map(jsonInterval),
      verdicts: row.verdicts.map((v) => v?.word ?? null),
      noise_known: row.verdicts.map((v) => v === undefined ? null : v.noiseKnown),
    })),
    ...thresholds,
  };
}
