/** A run's artifacts cannot be read or a report option is wrong: the message names the file (and line) and why. */
export class ReportError extends Error {
  override readonly name = "ReportError";
}

/** A line of a file is not what it should be: `file:line: reason`. */
export class LineError extends ReportError {
  constructor(readonly file: string, readonly line: number, readonly reason: string) {
    super(`${file}:${line}: ${reason}`);
  }
}
