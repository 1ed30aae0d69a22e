/**
 * A growable column of float64 values: 8 bytes per value, amortized O(1) append, a running sum for live
 * averages without sorting.
 */
export class Float64Column {
  #data: Float64Array;
  #length = 0;
  #sum = 0;

  /** @param initialCapacity values reserved up front. @default 1024 */
  constructor(initialCapacity = 1024) {
    this.#data = new Float64Array(Math.max(1, initialCapacity));
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
  view(): Float64Array {
    return this.#data.subarray(0, this.#length);
  }

  #grow(min: number): void {
    let capacity = this.#data.length * 2;
    while (capacity < min) capacity *= 2;
    const next = new Float64Array(capacity);
    next.set(this.#data.subarray(0, this.#length));
    this.#data = next;
  }
}
