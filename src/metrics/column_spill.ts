/**
 * A file that a run's long columns hand their full segments to (`Float64Column`'s store), so that what a run keeps
 * in memory stays flat in its length: a 30-minute run at 1,600 requests/s stores ~2.9 M requests' values (some
 * 400 bytes each) here instead of in the heap.
 *
 * Writes go to the file in the background (`FsFile.write`, off the engine thread), in the order segments arrive;
 * a segment's values stay in memory until their write finishes, and are read from there before that. Reads are
 * synchronous, through a second handle with its own position, so they never move the writer's. When a write fails
 * (disk full, the directory removed), that segment and every later one stay in memory: the run loses nothing, it
 * only stops saving memory, and `failure` says why.
 *
 * Opened `sync`, a segment is written before `put` returns: for code that runs without giving the event loop a turn
 * (the statistics at a run's end), where a background write would never finish.
 */
import type { ColumnData, ColumnStore, StoredChunk } from "./float64_column.ts";
import type { Scratch, ScratchFactory } from "./sweep_stream.ts";

/** The spill file's name in a run's artifact directory (removed when the run's results are written). */
export const SPILL_FILE_NAME = ".infermeter-columns.spill";

/** The time-weighted statistics' scratch files at a run's end: `<prefix><n>.spill`, each removed when done. */
export const SCRATCH_FILE_PREFIX = ".infermeter-ranges-";

type Form = "f64" | "f32" | "i32";

class SpilledChunk implements StoredChunk {
  /** The values while they are not (yet, or ever) in the file. */
  held: ColumnData | undefined;
  constructor(
    readonly spill: ColumnSpill,
    readonly offset: number,
    readonly count: number,
    readonly form: Form,
    held: ColumnData,
  ) {
    this.held = held;
  }

  read(reuse?: ColumnData): ColumnData {
    return this.held ?? this.spill.readBack(this, reuse);
  }
}

export class ColumnSpill implements ColumnStore {
  readonly path: string;
  readonly #sync: boolean;
  readonly #writer: Deno.FsFile;
  readonly #reader: Deno.FsFile;
  /** Bytes handed to the writer so far: the next segment's offset. */
  #end = 0;
  #writes: Promise<void> = Promise.resolve();
  #failure: string | undefined;
  #closed = false;
  /** Bytes written to the file so far. */
  written = 0;

  private constructor(path: string, writer: Deno.FsFile, reader: Deno.FsFile, sync: boolean) {
    this.path = path;
    this.#sync = sync;
    this.#writer = writer;
    this.#reader = reader;
  }

  /** Creates (or truncates) the spill file at `path`; `sync`: segments are written before `put` returns. */
  static open(path: string, options: { readonly sync?: boolean } = {}): ColumnSpill {
    const writer = Deno.openSync(path, { write: true, create: true, truncate: true });
    try {
      return new ColumnSpill(path, writer, Deno.openSync(path, { read: true }), options.sync === true);
    } catch (err) {
      writer.close();
      throw err;
    }
  }

  /** Why segments stopped going to the file, when a write failed. */
  get failure(): string | undefined {
    return this.#failure;
  }

  put(data: ColumnData): StoredChunk {
    const form: Form = data instanceof Float64Array ? "f64" : data instanceof Float32Array ? "f32" : "i32";
    if (this.#failure !== undefined || this.#closed) return { read: () => data };
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (this.#sync) {
      const at = this.append(bytes);
      if (at === undefined) return { read: () => data };
      const written = new SpilledChunk(this, at, data.length, form, data);
      written.held = undefined;
      return written;
    }
    const chunk = new SpilledChunk(this, this.#end, data.length, form, data);
    this.#end += data.byteLength;
    this.#writes = this.#writes.then(async () => {
      if (this.#failure !== undefined) return;
      try {
        for (let at = 0; at < bytes.length;) at += await this.#writer.write(bytes.subarray(at));
        this.written += bytes.length;
        chunk.held = undefined;
      } catch (err) {
        this.#fail(err);
      }
    });
    return chunk;
  }

  /**
   * Writes `bytes` at the file's end now (a `sync` spill's raw use: the time-weighted statistics' value ranges); their
   * offset, or undefined when the write failed (then nothing more is written, and `failure` says why).
   */
  append(bytes: Uint8Array): number | undefined {
    if (!this.#sync || this.#failure !== undefined || this.#closed) return undefined;
    const offset = this.#end;
    try {
      for (let at = 0; at < bytes.length;) at += this.#writer.writeSync(bytes.subarray(at));
    } catch (err) {
      this.#fail(err);
      return undefined;
    }
    this.#end += bytes.length;
    this.written += bytes.length;
    return offset;
  }

  #fail(err: unknown): void {
    this.#failure = `${this.path}: ${err instanceof Error ? err.message : String(err)}`;
  }

  /** Fills `into` with the bytes written at `offset`. */
  readAt(offset: number, into: Uint8Array): void {
    this.#reader.seekSync(offset, Deno.SeekMode.Start);
    for (let at = 0; at < into.length;) {
      const n = this.#reader.readSync(into.subarray(at));
      if (n === null) {
        throw new Error(`${this.path}: the file ends before what was written to it (it was changed during the run)`);
      }
      at += n;
    }
  }

  /** Resolves once every segment handed over so far is written (or kept in memory after a failure). */
  drain(): Promise<void> {
    return this.#writes;
  }

  /** Arrays `readBack` made: the only ones it refills when given them back. */
  readonly #made = new WeakSet<ArrayBuffer>();

  /** A written segment's values, read back from the file (into `reuse` when this spill made it and it is large enough). */
  readBack(chunk: SpilledChunk, reuse?: ColumnData): ColumnData {
    const size = chunk.count * (chunk.form === "f64" ? 8 : 4);
    const own = reuse !== undefined && reuse.byteOffset === 0 && this.#made.has(reuse.buffer as ArrayBuffer) &&
      reuse.buffer.byteLength >= size;
    const buffer = own ? reuse.buffer as ArrayBuffer : new ArrayBuffer(size);
    if (!own) this.#made.add(buffer);
    this.readAt(chunk.offset, new Uint8Array(buffer, 0, size));
    return chunk.form === "f64"
      ? new Float64Array(buffer, 0, chunk.count)
      : chunk.form === "f32"
      ? new Float32Array(buffer, 0, chunk.count)
      : new Int32Array(buffer, 0, chunk.count);
  }

  /** Waits for the writes, closes both handles and removes the file. Segments cannot be read afterwards. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writes;
    this.#release();
  }

  /** `close` for a `sync` spill (whose writes are all done). */
  closeSync(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#release();
  }

  #release(): void {
    for (const file of [this.#writer, this.#reader]) {
      try {
        file.close();
      } catch { /* already closed */ }
    }
    // Only a regular file is removed: never a device or anything else the path may name.
    try {
      if (Deno.lstatSync(this.path).isFile) Deno.removeSync(this.path);
    } catch { /* gone already */ }
  }
}

/**
 * Scratch files in `dir` for the time-weighted statistics, each a file of its own (several statistics set their
 * ranges aside in the same read), written synchronously and removed when its statistic is done. `onFailure` hears
 * why one stopped taking blocks (they then stay in memory); a file that cannot be created gives no scratch (the value
 * ranges are read again instead).
 */
export function scratchFiles(
  dir: string,
  onFailure: (why: string) => void = () => {},
): ScratchFactory & { readonly opened: () => number } {
  let opened = 0;
  const open = (): Scratch | undefined => {
    const path = `${dir.replace(/\/+$/, "")}/${SCRATCH_FILE_PREFIX}${opened}.spill`;
    let spill: ColumnSpill;
    try {
      spill = ColumnSpill.open(path, { sync: true });
    } catch (err) {
      onFailure(`cannot create ${path} (${err instanceof Error ? err.message : String(err)})`);
      return undefined;
    }
    opened++;
    return {
      append: (bytes) => spill.append(bytes),
      read: (offset, into) => spill.readAt(offset, into),
      close: () => {
        spill.closeSync();
        if (spill.failure !== undefined) onFailure(spill.failure);
      },
    };
  };
  return Object.assign(open, { opened: () => opened });
}
