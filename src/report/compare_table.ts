/**
 * The `compare` console output: a legend naming each run by a letter (A is the baseline), then one box table with a
 * line per metric statistic, each run's value, and each later run's change from A (absolute, then relative). A
 * change in the metric's better direction is marked `better`, the other way `worse`, when it is at least 1 %.
 */
import { type BoxColumn, renderBoxTable } from "../export/box_table.ts";
import { formatGrouped } from "../export/number_format.ts";
import type { CompareRow } from "./compare_runs.ts";

/** `A`, `B`, … `Z`, `AA`, …: short names for the runs in tables and messages. */
export function runLetter(i: number): string {
  return i < 26 ? String.fromCharCode(65 + i) : runLetter(Math.floor(i / 26) - 1) + runLetter(i % 26);
}

/** The smallest relative change called better or worse. */
const NOTICEABLE = 0.01;

function value(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? "-" : formatGrouped(x, 2);
}

function signed(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return "-";
  return `${x > 0 ? "+" : x < 0 ? "" : "±"}${formatGrouped(x, 2)}`;
}

function percent(row: CompareRow, i: number): string {
  const r = row.relatives[i];
  if (r === undefined || !Number.isFinite(r)) return "-";
  const text = `${r > 0 ? "+" : r < 0 ? "" : "±"}${(r * 100).toFixed(1)}%`;
  if (row.better === 0 || Math.abs(r) < NOTICEABLE) return text;
  return `${text} ${Math.sign(r) === row.better ? "better" : "worse"}`;
}

/** The legend lines: `A  artifacts/run-a (baseline)`. */
export function renderRunLegend(paths: readonly string[]): string {
  return paths.map((path, i) => `${runLetter(i)}  ${path}${i === 0 ? " (baseline)" : ""}`).join("\n");
}

/** The side-by-side table (empty string when there are no rows). */
export function renderCompareTable(rows: readonly CompareRow[], runCount: number, maxWidth = 160): string {
  if (rows.length === 0) return "";
  const columns: BoxColumn[] = [
    { header: "Metric", justify: "right", wrap: true },
    { header: "Stat", justify: "left" },
    { header: "A" },
  ];
  for (let i = 1; i < runCount; i++) {
    const l = runLetter(i);
    columns.push({ header: l }, { header: `${l}−A` }, { header: `${l} vs A` });
  }
  let previous = "";
  const body = rows.map((row) => {
    const cells = [row.tag === previous ? "" : row.label, row.stat, value(row.values[0])];
    previous = row.tag;
    for (let i = 1; i < runCount; i++) cells.push(value(row.values[i]), signed(row.deltas[i]), percent(row, i));
    return cells;
  });
  return renderBoxTable(columns, body, { title: "infermeter | Comparison", maxWidth });
}
