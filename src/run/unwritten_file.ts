/**
 * A result file that could not be written in full (a full disk, a removed or read-only directory): the console
 * footer and the log say which and why, the exit code says results are incomplete, and whatever was written
 * before the failure is kept.
 */
export interface UnwrittenFile {
  /** As in the console footer ("JSONL Export"). */
  readonly label: string;
  readonly path: string;
  /** The operating system's words ("No space left on device (os error 28)"). */
  readonly reason: string;
  /** Per-record files: lines that reached the file before the failure. */
  readonly linesWritten?: number;
  /** Per-record files: lines lost from the failure on. */
  readonly linesDropped?: number;
  /** Per-record files: the file could not be cut back to its last whole line and ends in part of one. */
  readonly partialLastLine?: boolean;
}

/** One line for the log and the console: what was lost and what was kept. */
export function describeUnwritten(file: UnwrittenFile): string {
  const kept = file.linesDropped === undefined
    ? ""
    : ` (${file.linesWritten ?? 0} records kept, ${file.linesDropped} lost${
      file.partialLastLine ? "; the file ends in part of a line, which is not one of the kept records" : ""
    })`;
  return `could not write ${file.path}: ${file.reason}${kept}`;
}

/** What a per-record file's writer knows of its lines. */
export interface LineCounts {
  readonly linesWritten: number;
  readonly linesDropped: number;
  readonly endsInPartialLine: boolean;
}

/** A per-record file that could not be written in full, or undefined when nothing failed. */
export function unwrittenLines(
  label: string,
  path: string,
  failure: unknown,
  lines: LineCounts,
): UnwrittenFile | undefined {
  if (failure === undefined) return undefined;
  return {
    label,
    path,
    reason: errorReason(failure),
    linesWritten: lines.linesWritten,
    linesDropped: lines.linesDropped,
    partialLastLine: lines.endsInPartialLine || undefined,
  };
}

export function errorReason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
