/**
 * Python's `str.format(**row)` for the plain `{name}` fields AIPerf's dataset templates use (`{{` and `}}` are
 * literal braces).
 */
import { DatasetError } from "./dataset_error.ts";

/** @throws {DatasetError} (located at `where`) when the template names a column the row lacks, or is malformed. */
export function pythonFormat(template: string, row: Readonly<Record<string, unknown>>, where: string): string {
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}|[{}]/g, (m, name: string | undefined) => {
    if (m === "{{") return "{";
    if (m === "}}") return "}";
    if (name === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new DatasetError(where, undefined, `its prompt template has an unsupported field '${m}'`);
    }
    if (!(name in row)) {
      throw new DatasetError(
        where,
        undefined,
        `has no column '${name}' for its prompt template (columns: ${Object.keys(row).join(", ")})`,
      );
    }
    const v = row[name];
    return v === null || v === undefined ? "None" : String(v);
  });
}
