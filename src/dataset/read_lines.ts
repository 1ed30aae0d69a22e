/**
 * Stream a text file line by line, so that loaders never hold a huge dataset file in one string.
 */
import { DatasetError } from "./dataset_error.ts";
import { InterruptCheck } from "../runtime/interrupt_check.ts";

/** One line of a file, without its terminator. */
export interface Line {
  /** 1-based line number. */
  readonly number: number;
  readonly text: string;
}

/**
 * Longest line accepted, in characters: one dataset record, base64 media included, is far smaller, and a file without
 * line breaks (or `/dev/zero`, were it a regular file) must end in a clear error rather than fill memory.
 */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

export interface ReadLinesOptions {
  /** Stops the reading (Ctrl-C): checked between chunks, `InterruptedError` thrown. */
  readonly signal?: AbortSignal;
  /** @default {MAX_LINE_CHARS} */
  readonly maxLineChars?: number;
}

/**
 * The lines of the UTF-8 file at `path`, gunzipped when its name ends in `.gz` (`\n` or `\r\n` terminated; a UTF-8 byte order mark is dropped; invalid
 * bytes become U+FFFD). Stopping early (`break`) closes the file. Linear in the file's size: a line that spans many
 * chunks is kept as its parts and joined once, when its end is found.
 *
 * @throws {DatasetError} when `path` is not a regular file (a device, a FIFO: they may never end) or a line is longer
 *   than `maxLineChars`; {@linkcode InterruptedError} when `signal` aborts; {@linkcode Deno.errors.NotFound} and the
 *   other file-system errors of `Deno.open`.
 */
export async function* readLines(path: string, options: ReadLinesOptions = {}): AsyncGenerator<Line> {
  const max = options.maxLineChars ?? MAX_LINE_CHARS;
  const file = await Deno.open(path, { read: true });
  try {
    const info = await file.stat();
    if (!info.isFile) {
      throw new DatasetError(
        path,
        undefined,
        "is not a regular file (a device, a FIFO or a socket, which may never end); give a dataset file",
      );
    }
  } catch (error) {
    file.close();
    throw error;
  }
  const interrupt = new InterruptCheck(options.signal, `reading ${path}`);
  // A `.gz` file (a gzipped corpus, as TraceLab ships) is read through gunzip.
  const bytes = path.endsWith(".gz") ? file.readable.pipeThrough(new DecompressionStream("gzip")) : file.readable;
  const stream = bytes.pipeThrough(new TextDecoderStream());
  let number = 0;
  /** The line begun in earlier chunks (no newline yet), as its parts. */
  let parts: string[] = [];
  let partsLength = 0;
  for await (const chunk of gunzipChecked(stream, path)) {
    const pause = interrupt.check();
    if (pause !== undefined) await pause;
    let start = 0;
    for (let nl = chunk.indexOf("\n"); nl >= 0; nl = chunk.indexOf("\n", start)) {
      let text = chunk.slice(start, nl);
      if (partsLength > 0) {
        parts.push(text);
        text = parts.join("");
        parts = [];
        partsLength = 0;
      }
      if (text.length > max) throw tooLong(path, number + 1, max);
      yield { number: ++number, text: text.endsWith("\r") ? text.slice(0, -1) : text };
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.slice(start);
      parts.push(rest);
      partsLength += rest.length;
      if (partsLength > max) throw tooLong(path, number + 1, max);
    }
  }
  if (partsLength > 0) {
    const rest = parts.join("");
    yield { number: ++number, text: rest.endsWith("\r") ? rest.slice(0, -1) : rest };
  }
}

/** The stream, with a corrupt gzip file's decoding failure turned into an error naming the file. */
async function* gunzipChecked(stream: ReadableStream<string>, path: string): AsyncGenerator<string> {
  try {
    yield* stream;
  } catch (error) {
    if (path.endsWith(".gz") && error instanceof TypeError) {
      throw new DatasetError(path, undefined, `is not a readable gzip file (${error.message})`, { cause: error });
    }
    throw error;
  }
}

function tooLong(path: string, line: number, max: number): DatasetError {
  return new DatasetError(
    path,
    line,
    `the line is longer than ${max} characters without a line break; a dataset line holds one record (JSON lines: ` +
      "one object per line)",
  );
}
