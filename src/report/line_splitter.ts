/**
 * Splits decoded text, arriving in chunks of any size, into lines without ever joining more than one line: a file of
 * any size is read in constant memory, and a line with no end is stopped at a cap with its file and line number
 * instead of growing until the process runs out of memory (or past the engine's largest string).
 */
import { LineError } from "./report_error.ts";

/** The longest line read by default: 64 Mi characters (a record with a million streamed chunks is ~20 MB). */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

/** Called with each line (without `\n` or `\r\n`) and its 1-based number. Blank lines are passed too. */
export type LineVisitor = (text: string, lineNumber: number) => void;

export class LineSplitter {
  #parts: string[] = [];
  #pending = 0;
  #line = 0;

  /**
   * @param name The file's name, for errors.
   * @param maxLineChars Longest line accepted.
   */
  constructor(readonly name: string, readonly maxLineChars = MAX_LINE_CHARS) {}

  /** Lines completed so far. */
  get lines(): number {
    return this.#line;
  }

  /** Feeds the next piece of text; each line it completes goes to `visit`. */
  push(text: string, visit: LineVisitor): void {
    let start = 0;
    // The search starts in the new text only: the pending parts hold no newline, so each character is looked at once.
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
      let line = text.slice(start, nl);
      if (this.#parts.length > 0) {
        this.#checkLength(this.#pending + line.length);
        this.#parts.push(line);
        line = this.#parts.join("");
        this.#parts = [];
        this.#pending = 0;
      } else {
        this.#checkLength(line.length);
      }
      visit(line.endsWith("\r") ? line.slice(0, -1) : line, ++this.#line);
      start = nl + 1;
    }
    if (start < text.length) {
      const rest = start === 0 ? text : text.slice(start);
      this.#checkLength(this.#pending + rest.length);
      this.#parts.push(rest);
      this.#pending += rest.length;
    }
  }

  /** Ends the text: a last line without a newline goes to `visit`. */
  end(visit: LineVisitor): void {
    if (this.#parts.length === 0) return;
    const line = this.#parts.join("");
    this.#parts = [];
    this.#pending = 0;
    visit(line.endsWith("\r") ? line.slice(0, -1) : line, ++this.#line);
  }

  #checkLength(chars: number): void {
    if (chars > this.maxLineChars) {
      throw new LineError(
        this.name,
        this.#line + 1,
        `the line is longer than ${this.maxLineChars} characters ` +
          `(a per-request JSONL has one record per line; is this the right file?).`,
      );
    }
  }
}
