/**
 * Reading dataset records: JSON lines streamed one at a time, and the small checks every format's validation shares
 * (object test, null-as-absent fields, a value's kind in words, a short excerpt of the offending line).
 */
import { DatasetError } from "./dataset_error.ts";
import { readLines, type ReadLinesOptions } from "./read_lines.ts";
import { InterruptedError } from "../base/interrupted_error.ts";

/** Characters of a line quoted in an error message. */
const EXCERPT_CHARS = 80;

/** A line, shortened for an error message. */
export function excerpt(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > EXCERPT_CHARS ? trimmed.slice(0, EXCERPT_CHARS) + "…" : trimmed;
}

/** A JSON value's kind in words, for error messages. */
export function describeJson(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value)}`;
    case "number":
      return `the number ${value}`;
    case "boolean":
      return `${value}`;
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Field value with JSON null treated as absent. */
export function field(record: Record<string, unknown>, name: string): unknown {
  const value = record[name];
  return value === null ? undefined : value;
}

/**
 * Parse one JSONL line; undefined for a blank line.
 *
 * @throws {DatasetError} when the line is not valid JSON, quoting the line.
 */
export function parseJsonLine(text: string, file: string, line: number): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new DatasetError(
      file,
      line,
      `invalid JSON (${reason}); each line must hold one JSON object — the line reads: ${excerpt(text)}`,
      { cause: error },
    );
  }
}

/** One non-empty line of a JSONL file, parsed. */
export interface JsonRecord {
  readonly line: number;
  /** The line as written (without its terminator), for verbatim replay and excerpts. */
  readonly text: string;
  readonly record: unknown;
}

/**
 * The records of a JSONL file, streamed: blank lines are skipped, a malformed line stops with its line number, and
 * file-system failures become a {@link DatasetError} naming the file.
 */
export async function* readJsonRecords(path: string, options: ReadLinesOptions = {}): AsyncGenerator<JsonRecord> {
  let lines: AsyncGenerator<{ number: number; text: string }>;
  try {
    lines = readLines(path, options);
  } catch (error) {
    throw unreadable(path, error);
  }
  while (true) {
    let next: IteratorResult<{ number: number; text: string }>;
    try {
      next = await lines.next();
    } catch (error) {
      throw unreadable(path, error);
    }
    if (next.done) return;
    const { number, text } = next.value;
    const record = parseJsonLine(text, path, number);
    if (record !== undefined) yield { line: number, text, record };
  }
}

/** The first record of a JSONL file, or undefined when it has none. */
export async function firstJsonRecord(path: string): Promise<JsonRecord | undefined> {
  for await (const record of readJsonRecords(path)) return record;
  return undefined;
}

/** A file-system failure as a {@link DatasetError} naming the file; dataset errors and interruptions pass unchanged. */
export function unreadable(path: string, error: unknown): DatasetError | InterruptedError {
  if (error instanceof DatasetError || error instanceof InterruptedError) return error;
  const reason = error instanceof Deno.errors.NotFound
    ? "no such file"
    : error instanceof Error
    ? error.message
    : String(error);
  return new DatasetError(path, undefined, `cannot be read (${reason}); check the --input-file path`, {
    cause: error,
  });
}

/** A failure at one record: file, line, what was expected, and the line itself. */
export function recordError(path: string, at: JsonRecord, reason: string): DatasetError {
  return new DatasetError(path, at.line, `${reason} — the line reads: ${excerpt(at.text)}`);
}
