/**
 * At most `capacity` of a stream of (x, y) points for a scatter chart, chosen without knowing how many will come:
 * every point while there are at most `capacity`, then a uniform sample of them — the points with the smallest
 * keys (bottom-k sampling). A point's key is a hash of what identifies its record (the caller's, e.g. of its
 * timestamps), ties broken by position: the same file always gives the same chart, and samples of the parts of a
 * file merge into the sample of the whole (`merge`). Points come back in stream order.
 */

/** Most points drawn per scatter series. */
export const MAX_SCATTER_POINTS = 4000;

/** A sample as plain data (what a Worker posts back). */
export interface PointSampleState {
  readonly capacity: number;
  readonly seen: number;
  readonly xs: Float64Array;
  readonly ys: Float64Array;
  readonly hashes: Float64Array;
  readonly positions: Float64Array;
}

export class PointSample {
  /** Points offered so far. */
  seen = 0;
  readonly #xs: Float64Array;
  readonly #ys: Float64Array;
  readonly #hashes: Float64Array;
  readonly #positions: Float64Array;
  /** Max-heap over (hash, position) of the points kept. */
  readonly #heap: Int32Array;
  #size = 0;

  constructor(readonly capacity = MAX_SCATTER_POINTS) {
    this.#xs = new Float64Array(capacity);
    this.#ys = new Float64Array(capacity);
    this.#hashes = new Float64Array(capacity);
    this.#positions = new Float64Array(capacity);
    this.#heap = new Int32Array(capacity);
  }

  /** Offers a point; `hash` (a 32-bit unsigned integer) decides whether it is kept once the sample is full. */
  add(x: number, y: number, hash: number): void {
    this.#offer(x, y, hash, this.seen++);
  }

  /** The points kept, in the order they came. */
  points(): [number, number][] {
    const slots = Array.from({ length: this.#size }, (_, i) => i);
    slots.sort((a, b) => this.#positions[a] - this.#positions[b]);
    return slots.map((s) => [this.#xs[s], this.#ys[s]]);
  }

  state(): PointSampleState {
    const n = this.#size;
    return {
      capacity: this.capacity,
      seen: this.seen,
      xs: this.#xs.slice(0, n),
      ys: this.#ys.slice(0, n),
      hashes: this.#hashes.slice(0, n),
      positions: this.#positions.slice(0, n),
    };
  }

  /** Adds the sample of the points that came after this one's: the result is the sample of both streams. */
  merge(later: PointSampleState): void {
    for (let i = 0; i < later.xs.length; i++) {
      this.#offer(later.xs[i], later.ys[i], later.hashes[i], this.seen + later.positions[i]);
    }
    this.seen += later.seen;
  }

  #offer(x: number, y: number, hash: number, position: number): void {
    if (this.#size < this.capacity) {
      const slot = this.#size++;
      this.#set(slot, x, y, hash, position);
      this.#heap[slot] = slot;
      this.#up(slot);
      return;
    }
    if (this.capacity === 0) return;
    const top = this.#heap[0];
    if (hash > this.#hashes[top] || (hash === this.#hashes[top] && position > this.#positions[top])) return;
    this.#set(top, x, y, hash, position);
    this.#down(0);
  }

  #set(slot: number, x: number, y: number, hash: number, position: number): void {
    this.#xs[slot] = x;
    this.#ys[slot] = y;
    this.#hashes[slot] = hash;
    this.#positions[slot] = position;
  }

  /** Whether slot `a` sorts after slot `b`. */
  #above(a: number, b: number): boolean {
    const ha = this.#hashes[a], hb = this.#hashes[b];
    return ha > hb || (ha === hb && this.#positions[a] > this.#positions[b]);
  }

  #up(i: number): void {
    const heap = this.#heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#above(heap[i], heap[parent])) break;
      [heap[parent], heap[i]] = [heap[i], heap[parent]];
      i = parent;
    }
  }

  #down(i: number): void {
    const heap = this.#heap, n = this.#size;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let top = i;
      if (l < n && this.#above(heap[l], heap[top])) top = l;
      if (r < n && this.#above(heap[r], heap[top])) top = r;
      if (top === i) return;
      [heap[top], heap[i]] = [heap[i], heap[top]];
      i = top;
    }
  }
}

/** A 32-bit mix of two 32-bit words (murmur3's finalizer over their combination): keys spread uniformly. */
export function mixHash(a: number, b: number): number {
  let h = (Math.imul(a ^ 0x9e3779b9, 0xcc9e2d51) ^ b) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
