/**
 * Batched, asynchronous writer of text lines to one file: lines are buffered and written with one `write` per
 * batch (every `flushEveryLines` lines or `flushIntervalMs`), never a synchronous write per line on the
 * engine's thread. `close()` flushes everything, so partial results survive Ctrl-C.
 */
import { writeAll } from "../runtime/write_all.ts";

export interface LineFileWriterOptions {
  /** Flush after this many buffered lines. @default 500 */
  readonly flushEveryLines?: number;
  /** Flush buffered lines at least this often, in ms. @default 1000 */
  readonly flushIntervalMs?: number;
}

export class LineFileWriter {
  readonly #file: Deno.FsFile;
  readonly #encoder = new TextEncoder();
  readonly #flushEvery: number;
  readonly #flushIntervalMs: number;
  #lines: string[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> = Promise.resolve();
  #failure: unknown = undefined;
  #closed = false;
  #written = 0;

  private constructor(file: Deno.FsFile, options: LineFileWriterOptions) {
    this.#file = file;
    this.#flushEvery = Math.max(1, options.flushEveryLines ?? 500);
    this.#flushIntervalMs = Math.max(1, options.flushIntervalMs ?? 1000);
  }

  /** Creates (truncates) `path` and returns a writer for it. */
  static async open(path: string, options: LineFileWriterOptions = {}): Promise<LineFileWriter> {
    const file = await Deno.open(path, { write: true, create: true, truncate: true });
    return new LineFileWriter(file, options);
  }

  /** Lines handed to the file so far (buffered ones not included). */
  get linesWritten(): number {
    return this.#written;
  }

  /** Buffers one line (without its newline); never blocks. */
  writeLine(line: string): void {
    if (this.#closed) throw new TypeError("the line writer is closed; open a new one to write more lines.");
    this.#lines.push(line);
    if (this.#lines.length >= this.#flushEvery) {
      this.#flushBuffered();
    } else if (this.#timer === undefined) {
      const timer = setTimeout(() => {
        this.#timer = undefined;
        this.#flushBuffered();
      }, this.#flushIntervalMs);
      Deno.unrefTimer(timer);
      this.#timer = timer;
    }
  }

  /** Hands buffered lines to the file; resolves when everything written so far is on disk. */
  async flush(): Promise<void> {
    this.#flushBuffered();
    await this.#writing;
    if (this.#failure !== undefined) throw this.#failure;
  }

  /** Flushes and closes the file. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.flush();
    } finally {
      this.#closed = true;
      this.#file.close();
    }
  }

  #flushBuffered(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#lines.length === 0) return;
    const count = this.#lines.length;
    const bytes = this.#encoder.encode(this.#lines.join("\n") + "\n");
    this.#lines = [];
    this.#writing = this.#writing.then(async () => {
      if (this.#failure !== undefined) return;
      try {
        await writeAll(this.#file, bytes);
        this.#written += count;
      } catch (error) {
        this.#failure = error;
      }
    });
  }
}
