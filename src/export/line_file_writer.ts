/**
 * Batched, asynchronous writer of text lines to one file: lines are buffered and written with one `write` per
 * batch (every `flushEveryLines` lines or `flushIntervalMs`), never a synchronous write per line on the
 * engine's thread. `close()` flushes everything, so partial results survive Ctrl-C.
 *
 * Lines are UTF-8 encoded into byte chunks as they arrive rather than kept as strings: a second of buffered
 * JSONL lines is ~1 MB of young strings that every scavenge would copy (and then promote) while streams are
 * running, which showed up as multi-millisecond pauses in the request-latency error (`infermeter calibrate`).
 * Chunk bytes live outside the JS heap, so the garbage collector never touches them.
 *
 * A write that fails part-way (a disk that fills up) leaves the file holding only whole lines: the complete lines of
 * the batch that reached the file are counted as written, and the file is cut back to the end of the last one, so
 * `linesWritten` is exactly the number of lines in the file and no reader meets a truncated last line.
 */

export interface LineFileWriterOptions {
  /** Flush after this many buffered lines. @default 500 */
  readonly flushEveryLines?: number;
  /** Flush buffered lines at least this often, in ms. @default 1000 */
  readonly flushIntervalMs?: number;
  /**
   * Called once when a write fails (a full disk, a removed directory); lines from then on are dropped rather
   * than buffered without bound, and `flush`/`close` reject with that error. @default undefined
   */
  readonly onFailure?: (error: unknown) => void;
}

export class LineFileWriter {
  readonly #file: Deno.FsFile;
  readonly #encoder = new TextEncoder();
  readonly #flushEvery: number;
  readonly #flushIntervalMs: number;
  /** Chunk being filled, and how much of it is used. */
  #chunk: Uint8Array = EMPTY;
  #scratch: Uint8Array = EMPTY;
  #used = 0;
  /** Filled chunks not yet handed to the file. */
  #sealed: Uint8Array[] = [];
  /** Written chunks kept for reuse. */
  readonly #spare: Uint8Array[] = [];
  #buffered = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> = Promise.resolve();
  #failure: unknown = undefined;
  #closed = false;
  #written = 0;
  #dropped = 0;
  #fileWrites = 0;
  /** Bytes of whole lines in the file. */
  #size = 0;
  /** The cut back to the last whole line failed too: the file ends in part of a line. */
  #partialTail = false;
  readonly #onFailure: ((error: unknown) => void) | undefined;

  private constructor(file: Deno.FsFile, options: LineFileWriterOptions) {
    this.#file = file;
    this.#onFailure = options.onFailure;
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

  /** Lines given after a write failed, which were dropped. */
  get linesDropped(): number {
    return this.#dropped;
  }

  /** Writes handed to the file so far (each a chunk of lines, or the rest of one after a short write). */
  get fileWrites(): number {
    return this.#fileWrites;
  }

  /** The error of the first failed write, if any. */
  get failure(): unknown {
    return this.#failure;
  }

  /** After a failed write: the file could not be cut back to its last whole line, and ends in part of one. */
  get endsInPartialLine(): boolean {
    return this.#partialTail;
  }

  /** Buffers one line (without its newline); never blocks. */
  writeLine(line: string): void {
    if (this.#closed) throw new TypeError("the line writer is closed; open a new one to write more lines.");
    if (this.#failure !== undefined) {
      this.#dropped++;
      return;
    }
    // UTF-8 takes at most 3 bytes per UTF-16 code unit, plus the newline.
    const room = line.length * 3 + 1;
    if (this.#chunk.length - this.#used < room) this.#seal(room);
    this.#used += this.#encoder.encodeInto(line, this.#chunk.subarray(this.#used)).written;
    this.#chunk[this.#used++] = NEWLINE;
    this.#lineAdded();
  }

  #lineAdded(): void {
    this.#buffered++;
    if (this.#buffered >= this.#flushEvery) {
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

  /** Buffers one line given as UTF-8 bytes (without its newline, copied at once); never blocks. */
  writeBytes(line: Uint8Array): void {
    if (this.#closed) throw new TypeError("the line writer is closed; open a new one to write more lines.");
    if (this.#failure !== undefined) {
      this.#dropped++;
      return;
    }
    const room = line.length + 1;
    if (this.#chunk.length - this.#used < room) this.#seal(room);
    this.#chunk.set(line, this.#used);
    this.#used += line.length;
    this.#chunk[this.#used++] = NEWLINE;
    this.#lineAdded();
  }

  /** Encodes `line` as `writeLine` would, into a scratch buffer that is never written (warms the code up). */
  rehearseLine(line: string): void {
    const room = line.length * 3 + 1;
    if (this.#scratch.length < room) this.#scratch = new Uint8Array(Math.max(room, 2 * this.#scratch.length));
    this.#encoder.encodeInto(line, this.#scratch);
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
    if (this.#buffered === 0) return;
    const count = this.#buffered;
    this.#seal(0);
    const chunks = this.#sealed;
    this.#sealed = [];
    this.#buffered = 0;
    this.#writing = this.#writing.then(async () => {
      if (this.#failure !== undefined) {
        this.#dropped += count;
        return;
      }
      let done = 0;
      try {
        for (const bytes of chunks) {
          for (let off = 0; off < bytes.length;) {
            this.#fileWrites++;
            const n = await this.#file.write(bytes.subarray(off));
            off += n;
            done += n;
          }
        }
        this.#written += count;
        this.#size += done;
        // Written chunks of the standard size are filled again: a fresh chunk per batch was memory the kernel
        // had to fault in and zero, over and over, on the engine thread.
        for (const bytes of chunks) {
          if (bytes.buffer.byteLength === CHUNK_BYTES && this.#spare.length < SPARE_CHUNKS) {
            this.#spare.push(new Uint8Array(bytes.buffer));
          }
        }
      } catch (error) {
        this.#failure = error;
        // The batch may be partly in the file: its whole lines are kept and counted, a part of a line is cut off.
        const whole = wholeLines(chunks, done);
        this.#written += whole.lines;
        this.#size += whole.bytes;
        if (whole.bytes < done) {
          try {
            await this.#file.truncate(this.#size);
          } catch {
            this.#partialTail = true;
          }
        }
        this.#dropped += count - whole.lines + this.#buffered;
        this.#sealed = [];
        this.#chunk = EMPTY;
        this.#used = 0;
        this.#buffered = 0;
        this.#onFailure?.(error);
      }
    });
  }

  /** Moves the filled part of the current chunk to `#sealed`; then makes room for `room` bytes (if any). */
  #seal(room: number): void {
    if (this.#used > 0) this.#sealed.push(this.#chunk.subarray(0, this.#used));
    this.#used = 0;
    this.#chunk = room === 0
      ? EMPTY
      : room <= CHUNK_BYTES
      ? this.#spare.pop() ?? new Uint8Array(CHUNK_BYTES)
      : new Uint8Array(room);
  }
}

/** The lines that end within the first `done` bytes of `chunks`, and the bytes up to the end of the last of them. */
function wholeLines(chunks: readonly Uint8Array[], done: number): { lines: number; bytes: number } {
  let lines = 0;
  let bytes = 0;
  let seen = 0;
  for (const chunk of chunks) {
    const end = Math.min(chunk.length, done - seen);
    for (let i = chunk.indexOf(NEWLINE); i >= 0 && i < end; i = chunk.indexOf(NEWLINE, i + 1)) {
      lines++;
      bytes = seen + i + 1;
    }
    seen += chunk.length;
    if (seen >= done) break;
  }
  return { lines, bytes };
}

const NEWLINE = 10;
/**
 * Lines are gathered in chunks of this size, each handed to the file in one write: a batch of 500 JSONL lines of
 * ~2 KB is one write instead of sixteen of 64 KiB, and every write is a round trip to the runtime's blocking
 * thread and a call into the file system.
 */
export const LINE_CHUNK_BYTES = 1024 * 1024;
const CHUNK_BYTES = LINE_CHUNK_BYTES;
/** Written chunks kept for reuse (a second's batch at ~30 k lines/s of ~2 KB fills ~60; most go back at once). */
const SPARE_CHUNKS = 4;
const EMPTY = new Uint8Array(0);
