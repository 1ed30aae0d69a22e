/** A run's artifacts cannot be read or a report option is wrong: the message names the file (and line) and why. */
export class ReportError extends Error {
  override readonly name = "ReportError";
}
