/**
 * Fields a dataset line carries that its format does not know (`output_lenght`): silently ignored, a typo changes a
 * benchmark without a word. Each unknown field is said once, with the file:line where it first appears and the
 * closest known field; with `--strict-dataset` the first one is a located error instead (exit 2).
 */
import { didYouMeanHint } from "../base/did_you_mean.ts";
import { DatasetError } from "./dataset_error.ts";

export interface UnknownFieldOptions {
  /** `--strict-dataset`: an unknown field is an error. */
  readonly strict?: boolean;
  /** Where the notices go (the run's log); none when absent. */
  readonly warn?: (message: string) => void;
}

/** Longest field name quoted or compared in full. */
const SHOWN_CHARS = 60;

export class UnknownFields {
  readonly #format: string;
  readonly #known: ReadonlySet<string>;
  readonly #o: UnknownFieldOptions;
  readonly #said = new Set<string>();

  constructor(format: string, known: readonly string[], options: UnknownFieldOptions = {}) {
    this.#format = format;
    this.#known = new Set(known);
    this.#o = options;
  }

  /**
   * Says (once per field name) or, when strict, throws for each field of `record` its format does not know.
   * `where` places a nested object in the line (`"turns"[2]`).
   * @throws {DatasetError} naming file:line when strict.
   */
  check(record: Readonly<Record<string, unknown>>, file: string, line: number, where = ""): void {
    for (const key of Object.keys(record)) {
      if (this.#known.has(key)) continue;
      if (!this.#o.strict && (this.#o.warn === undefined || this.#said.has(key))) continue;
      const shown = JSON.stringify(key.length > SHOWN_CHARS ? key.slice(0, SHOWN_CHARS) + "…" : key);
      const close = key.length > SHOWN_CHARS ? "" : didYouMeanHint(key, this.#known).trim();
      const hint = close === "" ? "" : ` (${close})`;
      const at = where === "" ? "" : ` in ${where}`;
      if (this.#o.strict) {
        throw new DatasetError(
          file,
          line,
          `unknown field ${shown}${at}: ${this.#format} has no such field${hint}; fix or remove it ` +
            "(--strict-dataset refuses unknown fields)",
        );
      }
      this.#said.add(key);
      this.#o.warn!(
        new DatasetError(
          file,
          line,
          `unknown field ${shown}${at} is ignored: ${this.#format} has no such field${hint}; said once per field`,
        ).message,
      );
    }
  }
}
