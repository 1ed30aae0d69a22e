import { InputError } from "../base/input_error.ts";
import { printable } from "../base/printable.ts";

/**
 * A problem with a dataset file, located by file and (when known) 1-based line:
 * `inputs.jsonl:3: expected a JSON object with "text" or "texts" (got an array)`.
 */
export class DatasetError extends InputError {
  override readonly name = "DatasetError";
  /** The file as the user named it. */
  readonly file: string;
  /** 1-based line number, or undefined when the problem is the whole file. */
  readonly line: number | undefined;
  /** The message without the `file:line: ` prefix. */
  readonly reason: string;

  /** `reason` may quote the file's text: its control characters are escaped (`printable`). */
  constructor(file: string, line: number | undefined, reason: string, options?: ErrorOptions) {
    const safe = printable(reason);
    super(`${printable(file)}${line === undefined ? "" : `:${line}`}: ${safe}`, options);
    this.file = file;
    this.line = line;
    this.reason = safe;
  }
}
