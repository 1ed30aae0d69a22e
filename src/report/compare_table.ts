/**
 * The `compare` console output: a legend naming each run by a letter (A is the baseline), then one box table with a
 * line per metric statistic, each run's value, and each later run's change from A: absolute, its confidence
 * interval, then relative with the verdict (`≈ same` inside the noise, else `better`/`worse` by the metric's
 * direction). A verdict without an interval (no per-request records, min/max, counts) is marked `†` and explained
 * under the table.
 */
import { type BoxColumn, renderBoxTable } from "../export/box_table.ts";
import { formatGrouped } from "../export/number_format.ts";
import type { CompareRow, DifferenceVerdict } from "./compare_runs.ts";
import type { DifferenceInterval } from "../metrics/difference_interval.ts";

/** `A`, `B`, … `Z`, `AA`, …: short names for the runs in tables and messages. */
export function runLetter(i: number): string {
  return i < 26 ? String.fromCharCode(65 + i) : runLetter(Math.floor(i / 26) - 1) + runLetter(i % 26);
}

/** Marks a verdict drawn from the plain difference, without an interval. */
export const NO_INTERVAL_MARK = "†";

function value(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? "-" : formatGrouped(x, 2);
}

function signed(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return "-";
  return `${x > 0 ? "+" : x < 0 ? "" : "±"}${formatGrouped(x, 2)}`;
}

function signedPercent(r: number): string {
  return `${r > 0 ? "+" : r < 0 ? "" : "±"}${(r * 100).toFixed(1)}%`;
}

/** `[-1.90, +7.00]`, or `-` without an interval. */
export function intervalText(i: DifferenceInterval | undefined): string {
  return i === undefined ? "-" : `[${signed(i.low)}, ${signed(i.high)}]`;
}

/** `≈ same`, `worse`, `worse †`. */
export function verdictText(v: DifferenceVerdict | undefined): string {
  if (v === undefined) return "";
  const word = v.word === "same" ? "≈ same" : v.word;
  return v.noiseKnown ? word : `${word} ${NO_INTERVAL_MARK}`;
}

function relativeCell(row: CompareRow, i: number): string {
  const r = row.relatives[i];
  const verdict = verdictText(row.verdicts[i]);
  const text = r === undefined || !Number.isFinite(r) ? "" : signedPercent(r);
  return [text, verdict].filter((s) => s !== "").join(" ") || "-";
}

/** The legend lines: `A  artifacts/run-a (baseline)`. */
export function renderRunLegend(paths: readonly string[]): string {
  return paths.map((path, i) => `${runLetter(i)}  ${path}${i === 0 ? " (baseline)" : ""}`).join("\n");
}

/** The note under the table: what `†` means and why intervals are missing (empty when every verdict has one). */
export function renderNoiseNote(rows: readonly CompareRow[], level: number): string {
  const why = new Set<string>();
  for (const row of rows) {
    for (const v of row.verdicts) if (v !== undefined && !v.noiseKnown && v.unknownWhy) why.add(v.unknownWhy);
  }
  const ci = `${formatLevel(level)} CI`;
  const head =
    `${ci}: interval of the difference from the per-request records (bootstrap; throughputs: batch means); ` +
    "≈ same = the interval holds 0.";
  if (why.size === 0) return head;
  return `${head}\n${NO_INTERVAL_MARK} no interval (${[...why].join("; ")}): a plain difference, which may be noise.`;
}

/** `95%`, `99.9%`. */
export function formatLevel(level: number): string {
  return `${Number((level * 100).toPrecision(6))}%`;
}

/** The side-by-side table (empty string when there are no rows). */
export function renderCompareTable(
  rows: readonly CompareRow[],
  runCount: number,
  maxWidth = 160,
  level = 0.95,
): string {
  if (rows.length === 0) return "";
  const columns: BoxColumn[] = [
    { header: "Metric", justify: "right", wrap: true },
    { header: "Stat", justify: "left" },
    { header: "A" },
  ];
  for (let i = 1; i < runCount; i++) {
    const l = runLetter(i);
    // Too narrow a console loses the absolute changes first, then the intervals; values and verdicts stay.
    columns.push(
      { header: l },
      { header: `${l}−A`, dropOrder: 1 },
      { header: `${formatLevel(level)} CI`, wrap: true, dropOrder: 2 },
      { header: `${l} vs A`, wrap: true },
    );
  }
  let previous = "";
  const body = rows.map((row) => {
    const cells = [row.tag === previous ? "" : row.label, row.stat, value(row.values[0])];
    previous = row.tag;
    for (let i = 1; i < runCount; i++) {
      cells.push(value(row.values[i]), signed(row.deltas[i]), intervalText(row.intervals[i]), relativeCell(row, i));
    }
    return cells;
  });
  return renderBoxTable(columns, body, { title: "infermeter | Comparison", maxWidth });
}
