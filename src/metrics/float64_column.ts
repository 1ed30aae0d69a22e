/**
 * A growable column of numbers: 8 bytes per value (4 with `float32`, for list metrics with many values per
 * request), amortized O(1) append with 1.5× growth (at most a third of the space unused), and a running sum
 * for live averages without sorting.
 */
export class Float64Column {
  #data: Float64Array | Float32Array;
  readonly #float32: boolean;
  #length = 0;
  #sum = 0;

  /**
   * @param initialCapacity values reserved up front. @default 1024
   * @param float32 store single precision (values are rounded to float32 when stored). @default false
   */
  constructor(initialCapacity = 1024, float32 = false) {
    this.#float32 = float32;
    const n = Math.max(1, initialCapacity);
    this.#data = float32 ? new Float32Array(n) : new Float64Array(n);
  }

  /** Bytes held by the column's buffer (for the memory report). */
  get bytes(): number {
    return this.#data.byteLength;
  }

  get length(): number {
    return this.#length;
  }

  /** Running sum (plain addition; the exact sum comes from the statistics). */
  get sum(): number {
    return this.#sum;
  }

  push(value: number): void {
    if (this.#length === this.#data.length) this.#grow(this.#length + 1);
    this.#data[this.#length++] = value;
    this.#sum += value;
  }

  pushAll(values: readonly number[]): void {
    const need = this.#length + values.length;
    if (need > this.#data.length) this.#grow(need);
    for (let i = 0; i < values.length; i++) {
      this.#data[this.#length++] = values[i];
      this.#sum += values[i];
    }
  }

  /** A live view of the stored values (invalidated by the next append that grows the buffer). */
  view(): Float64Array | Float32Array {
    return this.#data.subarray(0, this.#length);
  }

  #grow(min: number): void {
    let capacity = Math.ceil(this.#data.length * 1.5) + 16;
    while (capacity < min) capacity = Math.ceil(capacity * 1.5);
    const next = this.#float32 ? new Float32Array(capacity) : new Float64Array(capacity);
    next.set(this.#data.subarray(0, this.#length));
    this.#data = next;
  }
}
