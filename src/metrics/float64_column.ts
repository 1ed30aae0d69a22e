/**
 * A growable column of numbers with amortized O(1) append (1.5× growth) and a running sum for live averages
 * without sorting. Values come back exactly as pushed; how they are held adapts to what they are:
 * - the same value every time (0 for a connection set-up that never happens, 1 for a reused connection, a fixed
 *   prompt length): one number, whatever the count;
 * - whole numbers within ±2^31 (token counts, bytes, chunk counts): 4 bytes each;
 * - anything else: 8 bytes each (4 with `float32`, for list metrics with many values per request, which are
 *   rounded to single precision when stored).
 * A column moves to the next form once, when a value needs it (copying what it holds). A run's retained memory is
 * these columns, so a 30-minute run's columns of constants and counts cost what a 1-minute run's do.
 */
export class Float64Column {
  #data: Float64Array | Float32Array | Int32Array | undefined;
  /** Float64Array or Float32Array when values are not (all) whole numbers. */
  readonly #float32: boolean;
  /** Every value so far, while the column holds one value (`#data` undefined). */
  #constant = 0;
  #length = 0;
  #sum = 0;
  readonly #initialCapacity: number;

  /**
   * @param initialCapacity values reserved up front once values differ. @default 1024
   * @param float32 store single precision (values are rounded to float32 when stored). @default false
   */
  constructor(initialCapacity = 1024, float32 = false) {
    this.#float32 = float32;
    this.#initialCapacity = Math.max(1, initialCapacity);
    if (float32) this.#data = new Float32Array(this.#initialCapacity);
  }

  /** Bytes held by the column's buffer (for the memory report). */
  get bytes(): number {
    return this.#data?.byteLength ?? 0;
  }

  get length(): number {
    return this.#length;
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
      this.#data = this.#materialize(isInt32(this.#constant) && isInt32(value) ? "int32" : "float", this.#length + 1);
    } else if (data instanceof Int32Array && !isInt32(value)) {
      this.#data = this.#materialize("float", this.#length + 1);
    } else if (this.#length === data.length) this.#grow(this.#length + 1);
    this.#data![this.#length++] = value;
    this.#sum += value;
  }

  pushAll(values: readonly number[]): void {
    for (let i = 0; i < values.length; i++) this.push(values[i]);
  }

  /**
   * The stored values. A float column returns a live view of its buffer (invalidated by the next append that grows
   * it, and sorted in place by whoever sorts it); a column of one value or of whole numbers returns a new copy.
   */
  view(): Float64Array | Float32Array {
    const data = this.#data;
    if (data === undefined) return new Float64Array(this.#length).fill(this.#constant);
    if (data instanceof Int32Array) return Float64Array.from(data.subarray(0, this.#length));
    return data.subarray(0, this.#length);
  }

  /** The last `count` values (or all, when fewer), as a new array. */
  tail(count: number): Float64Array {
    const from = Math.max(0, this.#length - count);
    const data = this.#data;
    if (data === undefined) return new Float64Array(this.#length - from).fill(this.#constant);
    return Float64Array.from(data.subarray(from, this.#length));
  }

  /** The values so far in a new buffer of the given form, with room for `min`. */
  #materialize(form: "int32" | "float", min: number): Int32Array | Float64Array | Float32Array {
    let capacity = Math.max(this.#initialCapacity, Math.ceil(this.#length * 1.5) + 16);
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

/** A whole number an Int32Array holds exactly (not −0, which it would turn into 0). */
function isInt32(v: number): boolean {
  return (v | 0) === v && !Object.is(v, -0);
}
