/** Reading a benchmark row's columns the way AIPerf's Python does (`row[name]` fails, `row.get(name)` does not). */
import { DatasetError } from "../dataset_error.ts";
import type { HfRow } from "../hf_rows.ts";

/**
 * `row[name]`: the column's value.
 * @throws {DatasetError} (at `where`) when the row has no such column.
 */
export function column(row: HfRow, name: string, where: string): unknown {
  if (!(name in row)) {
    throw new DatasetError(where, undefined, `has a row without the column '${name}' (columns: ${Object.keys(row)})`);
  }
  return row[name];
}

/** `row[name]` as text: a string column, or a number as Python's `str()` writes an integer. */
export function textColumn(row: HfRow, name: string, where: string): string {
  const value = column(row, name, where);
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  throw new DatasetError(where, undefined, `has a row whose '${name}' is not text (${JSON.stringify(value)})`);
}

/** `row.get(name) or ""`: the column as text, empty when absent or empty. */
export function optionalText(row: HfRow, name: string): string {
  const value = row[name];
  if (value === null || value === undefined || value === false) return "";
  return typeof value === "string" ? value : String(value);
}

/** `row[name]` as a list of texts (`choices`, `endings`, `options`). */
export function textList(row: HfRow, name: string, where: string): string[] {
  const value = column(row, name, where);
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw new DatasetError(where, undefined, `has a row whose '${name}' is not a list of texts`);
  }
  return value as string[];
}
