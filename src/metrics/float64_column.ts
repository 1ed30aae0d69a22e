/**
 * A growable column of numbers with amortized O(1) append (1.5× growth) and a running sum for live averages
 * without sorting. Values come back exactly as pushed; how they are held adapts to what they are:
 * - the same value every time (0 for a connection set-up that never happens, 1 for a reused connection, a fixed
 *   prompt length): one number, whatever the count;
 * - whole numbers within ±2^31 (token counts, bytes, chunk counts): 4 bytes each;
 * - anything else: 8 bytes each (4 with `float32`, for list metrics with many values per request, which are
 *   rounded to single precision when stored).
 * A column moves to the next form once, when a value needs it (copying what it holds).
 *
 * Given a {@linkcode ColumnStore}, a column holds at most about `spillAt` values in memory: a full buffer past that
 * is handed to the store (a file on disk, `column_spill.ts`) as a segment and the column starts a new one, so a
 * long run's memory stays flat in its length. The values are then read back a segment at a time
 * ({@linkcode Float64Column.forEachChunk}, {@linkcode Float64Column.reader}); `view()` still gives them all at once.
 */

/** The stored form of a segment's values. */
export type ColumnData = Float64Array | Float32Array | Int32Array;

/** A segment handed to a store, read back on demand. */
export interface StoredChunk {
  /**
   * The segment's values, as handed over (a new array, or the one handed over while it is still held). `reuse`: an
   * array an earlier `read` of the same store returned and its caller is done with, which the store may fill instead
   * of allocating (it ignores arrays it did not make).
   */
  read(reuse?: ColumnData): ColumnData;
}

/** Where full segments go. `put` runs on the engine thread: it must not block (the file store writes in the background). */
export interface ColumnStore {
  /** Takes ownership of `data` (the caller never writes to it again). */
  put(data: ColumnData): StoredChunk;
}

/** A store that keeps segments in memory: the behaviour of a column without one, for tests and short runs. */
export const MEMORY_STORE: ColumnStore = { put: (data) => ({ read: () => data }) };

/** Values a column holds in memory before handing a segment to its store. */
export const DEFAULT_SPILL_AT = 1 << 15;

/** A finished segment: `count` values, either all `constant` (nothing stored) or held by `chunk`. */
interface Segment {
  readonly start: number;
  readonly count: number;
  readonly constant: number;
  readonly chunk: StoredChunk | undefined;
}

/** Values per array handed to `forEachChunk` for a segment of one repeated value. */
const CONSTANT_PIECE = 1 << 16;

export class Float64Column {
  #data: Float64Array | Float32Array | Int32Array | undefined;
  /** Float64Array or Float32Array when values are not (all) whole numbers. */
  readonly #float32: boolean;
  /** Every value of the in-memory part so far, while it holds one value (`#data` undefined). */
  #constant = 0;
  /** Values in the in-memory part. */
  #length = 0;
  /** Values in finished segments, before the in-memory part. */
  #stored = 0;
  #sum = 0;
  readonly #initialCapacity: number;
  readonly #store: ColumnStore | undefined;
  readonly #spillAt: number;
  readonly #segments: Segment[] = [];

  /**
   * @param initialCapacity values reserved up front once values differ. @default 1024
   * @param float32 store single precision (values are rounded to float32 when stored). @default false
   * @param store where segments of `spillAt` values or more go; without one everything stays in memory.
   * @param spillAt values held in memory before a segment goes to the store. @default DEFAULT_SPILL_AT
   */
  constructor(initialCapacity = 1024, float32 = false, store?: ColumnStore, spillAt = DEFAULT_SPILL_AT) {
    this.#float32 = float32;
    this.#initialCapacity = Math.max(1, initialCapacity);
    this.#store = store;
    this.#spillAt = Math.max(1, spillAt);
    if (float32) this.#data = new Float32Array(this.#initialCapacity);
  }

  /** Bytes held in memory by the column's buffer (for the memory report; stored segments not included). */
  get bytes(): number {
    return this.#data?.byteLength ?? 0;
  }

  get length(): number {
    return this.#stored + this.#length;
  }

  /** Segments handed to the store so far. */
  get segments(): number {
    return this.#segments.length;
  }

  /** Running sum (plain addition; the exact sum comes from the statistics). */
  get sum(): number {
    return this.#sum;
  }

  push(value: number): void {
    const data = this.#data;
    if (data === undefined) {
      if (this.#length === 0 || Object.is(value, this.#constant)) {
        this.#constant = value;
        this.#length++;
        this.#sum += value;
        return;
      }
      if (this.#store !== undefined && this.#length >= this.#spillAt) {
        this.#finish(undefined);
        this.#constant = value;
        this.#length = 1;
        this.#sum += value;
        return;
      }
      this.#data = this.#materialize(isInt32(this.#constant) && isInt32(value) ? "int32" : "float", this.#length + 1);
    } else if (data instanceof Int32Array && !isInt32(value)) {
      this.#data = this.#materialize("float", this.#length + 1);
    } else if (this.#length === data.length) {
      if (this.#store !== undefined && this.#length >= this.#spillAt) {
        this.#finish(data);
        this.#data = this.#float32 ? new Float32Array(data.length) : undefined;
        if (this.#data === undefined) return this.push(value);
      } else this.#grow(this.#length + 1);
    }
    this.#data![this.#length++] = value;
    this.#sum += value;
  }

  /**
   * Hands the values in memory to the store now, whatever their number: for a column that will see few values more
   * (a closed time slice). Later values are still taken. Without a store, or with one value held, nothing happens.
   */
  seal(): void {
    const data = this.#data;
    if (this.#store === undefined || data === undefined || this.#length === 0) return;
    this.#finish(data);
    this.#data = this.#float32 ? new Float32Array(0) : undefined;
  }

  pushAll(values: readonly number[]): void {
    for (let i = 0; i < values.length; i++) this.push(values[i]);
  }

  /**
   * Every value. Without stored segments, a float column returns a live view of its buffer (invalidated by the next
   * append that grows it, and sorted in place by whoever sorts it) and a column of one value or of whole numbers a
   * new copy; with them, a new array holding all of them (a long run's whole column: prefer `forEachChunk`).
   */
  view(): Float64Array | Float32Array {
    if (this.#segments.length > 0) {
      const out = this.#float32 ? new Float32Array(this.length) : new Float64Array(this.length);
      let at = 0;
      this.forEachChunk((chunk) => {
        out.set(chunk, at);
        at += chunk.length;
      });
      return out;
    }
    const data = this.#data;
    if (data === undefined) return new Float64Array(this.#length).fill(this.#constant);
    if (data instanceof Int32Array) return Float64Array.from(data.subarray(0, this.#length));
    return data.subarray(0, this.#length);
  }

  /**
   * Calls `fn` with the values in order, a part at a time (each array valid during its call only; do not keep or
   * change it): each stored segment, read back, then the in-memory part; whole numbers come as doubles.
   */
  forEachChunk(fn: (chunk: Float64Array | Float32Array) => void): void {
    // One array read back into, one converted into, one filled with a repeated value, for every part of the read:
    // a long column read a few times at a run's end leaves no garbage per segment.
    let done: ColumnData | undefined;
    const floats = new FloatScratch();
    for (const segment of this.#segments) {
      if (segment.chunk !== undefined) fn(floats.of(done = segment.chunk.read(done)));
      else floats.constant(segment.constant, segment.count, fn);
    }
    const data = this.#data;
    if (data !== undefined) {
      if (this.#length > 0) fn(floats.of(data.subarray(0, this.#length)));
    } else floats.constant(this.#constant, this.#length, fn);
  }

  /** Random access to the values (see {@linkcode ColumnReader}); valid until the next `push`. */
  reader(pages = 4): ColumnReader {
    const parts: ReaderPart[] = this.#segments.map((s) => ({
      start: s.start,
      count: s.count,
      constant: s.constant,
      load: s.chunk === undefined ? undefined : (reuse?: ColumnData) => s.chunk!.read(reuse),
    }));
    const data = this.#data;
    if (this.#length > 0) {
      const memory = data?.subarray(0, this.#length);
      parts.push({
        start: this.#stored,
        count: this.#length,
        constant: this.#constant,
        load: memory && (() => memory),
      });
    }
    return new ColumnReader(parts, pages);
  }

  /** The last `count` values (or all, when fewer), as a new array. */
  tail(count: number): Float64Array {
    const from = Math.max(0, this.length - count);
    if (from >= this.#stored) {
      const at = from - this.#stored;
      const data = this.#data;
      if (data === undefined) return new Float64Array(this.#length - at).fill(this.#constant);
      return Float64Array.from(data.subarray(at, this.#length));
    }
    const reader = this.reader(1);
    const out = new Float64Array(this.length - from);
    for (let i = 0; i < out.length; i++) out[i] = reader.at(from + i);
    return out;
  }

  /** Closes the in-memory part as a segment (its buffer handed to the store, or its one value noted). */
  #finish(data: ColumnData | undefined): void {
    const chunk = data === undefined ? undefined : this.#store!.put(data.subarray(0, this.#length));
    this.#segments.push({ start: this.#stored, count: this.#length, constant: this.#constant, chunk });
    this.#stored += this.#length;
    this.#length = 0;
  }

  /** The values so far in a new buffer of the given form, with room for `min`. */
  #materialize(form: "int32" | "float", min: number): Int32Array | Float64Array | Float32Array {
    let capacity = this.#segments.length > 0
      ? Math.max(this.#spillAt, min)
      : Math.max(this.#initialCapacity, Math.ceil(this.#length * 1.5) + 16);
    while (capacity < min) capacity = Math.ceil(capacity * 1.5);
    const next = form === "int32"
      ? new Int32Array(capacity)
      : this.#float32
      ? new Float32Array(capacity)
      : new Float64Array(capacity);
    const data = this.#data;
    if (data === undefined) next.fill(this.#constant, 0, this.#length);
    else next.set(data.subarray(0, this.#length));
    return next;
  }

  #grow(min: number): void {
    const data = this.#data!;
    let capacity = Math.ceil(data.length * 1.5) + 16;
    while (capacity < min) capacity = Math.ceil(capacity * 1.5);
    const next = data instanceof Int32Array
      ? new Int32Array(capacity)
      : this.#float32
      ? new Float32Array(capacity)
      : new Float64Array(capacity);
    next.set(data.subarray(0, this.#length));
    this.#data = next;
  }
}

/** The float arrays one `forEachChunk` hands out for parts not stored as floats, reused from part to part. */
class FloatScratch {
  #buffer: Float64Array | undefined;

  #take(n: number): Float64Array {
    if (this.#buffer === undefined || this.#buffer.length < n) this.#buffer = new Float64Array(n);
    return this.#buffer.subarray(0, n);
  }

  /** Whole numbers as doubles (statistics take float arrays); float arrays as they are. */
  of(data: ColumnData): Float64Array | Float32Array {
    if (!(data instanceof Int32Array)) return data;
    const out = this.#take(data.length);
    out.set(data);
    return out;
  }

  /** `count` copies of `value`, handed to `fn` in arrays of at most {@linkcode CONSTANT_PIECE}. */
  constant(value: number, count: number, fn: (chunk: Float64Array) => void): void {
    if (count === 0) return;
    const size = Math.min(count, CONSTANT_PIECE);
    for (let left = count; left > 0; left -= size) {
      // Filled again for each piece: the one before may have been handed out holding other values.
      const piece = this.#take(Math.min(left, size)).fill(value);
      fn(piece);
    }
  }
}

/** A reader's view of one segment: its values are `load()`'s, or all `constant` when there is no `load`. */
interface ReaderPart {
  readonly start: number;
  readonly count: number;
  readonly constant: number;
  readonly load: ((reuse?: ColumnData) => ColumnData) | undefined;
}

/** A part a reader holds: values `[start, end)` of the column, in `data` (or all `constant`). */
interface Page {
  start: number;
  end: number;
  data: ColumnData | undefined;
  constant: number;
}

/**
 * Random access to a column's values by index, `at(i)`, for readers that move through a column mostly in order
 * (the time-weighted metrics read requests in start order, which is close to the order they were stored in). It
 * holds the last few segments it read back (`pages`), so a stored column costs a few segments of memory.
 */
export class ColumnReader {
  readonly length: number;
  readonly #parts: readonly ReaderPart[];
  readonly #pages: Page[];
  #page: Page;

  constructor(parts: readonly ReaderPart[], pages = 4) {
    this.#parts = parts;
    const last = parts.at(-1);
    this.length = last === undefined ? 0 : last.start + last.count;
    this.#page = { start: 0, end: 0, data: undefined, constant: 0 };
    this.#pages = [this.#page];
    for (let k = 1; k < Math.max(1, pages); k++) this.#pages.push({ start: 0, end: 0, data: undefined, constant: 0 });
  }

  /** A reader over the values of an array (one part). */
  static of(values: ColumnData): ColumnReader {
    return new ColumnReader([{ start: 0, count: values.length, constant: 0, load: () => values }], 1);
  }

  /** The value at index `i` (0 ≤ i < length; outside that, undefined behaviour: NaN or a throw). */
  at(i: number): number {
    const p = this.#page;
    if (i >= p.start && i < p.end) return p.data === undefined ? p.constant : p.data[i - p.start];
    return this.#slow(i);
  }

  #slow(i: number): number {
    for (const p of this.#pages) {
      if (i >= p.start && i < p.end) {
        this.#page = p;
        return p.data === undefined ? p.constant : p.data[i - p.start];
      }
    }
    if (!(i >= 0 && i < this.length)) throw new RangeError(`column index ${i} outside 0..${this.length - 1}`);
    // The part holding i (binary search by start), loaded into the least recently used page.
    let lo = 0, hi = this.#parts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#parts[mid].start <= i) lo = mid;
      else hi = mid - 1;
    }
    const part = this.#parts[lo];
    const page = this.#pages.pop()!;
    page.start = part.start;
    page.end = part.start + part.count;
    page.constant = part.constant;
    // The page's old values are given back to the store, which refills them if it made them (no garbage per read).
    page.data = part.load?.(page.data);
    this.#pages.unshift(page);
    this.#page = page;
    return page.data === undefined ? page.constant : page.data[i - page.start];
  }
}

/** A whole number an Int32Array holds exactly (not −0, which it would turn into 0). */
function isInt32(v: number): boolean {
  return (v | 0) === v && !Object.is(v, -0);
}
