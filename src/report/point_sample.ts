/**
 * At most `capacity` of a stream of (x, y) points for a scatter chart, chosen without knowing how many will come:
 * every point while there are at most `capacity`, then a uniform sample of them — the points whose hash of their
 * position in the stream is smallest (bottom-k sampling). The choice depends only on the positions, so the same
 * file always gives the same chart; the points come back in stream order.
 */

/** Most points drawn per scatter series. */
export const MAX_SCATTER_POINTS = 4000;

/** A 32-bit mix of `i` (murmur3's finalizer): positions become uniformly spread keys. */
function mix(i: number): number {
  let h = (i ^ 0x9e3779b9) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A point's key: its hash, ties broken by position. */
function key(position: number): number {
  return mix(position) * 2 ** 20 + (position % 2 ** 20);
}

export class PointSample {
  /** Points offered so far. */
  seen = 0;
  readonly #xs: Float64Array;
  readonly #ys: Float64Array;
  readonly #keys: Float64Array;
  readonly #positions: Float64Array;
  /** Max-heap over keys of the points kept. */
  readonly #heap: Int32Array;
  #size = 0;

  constructor(readonly capacity = MAX_SCATTER_POINTS) {
    this.#xs = new Float64Array(capacity);
    this.#ys = new Float64Array(capacity);
    this.#keys = new Float64Array(capacity);
    this.#positions = new Float64Array(capacity);
    this.#heap = new Int32Array(capacity);
  }

  add(x: number, y: number): void {
    const position = this.seen++;
    const k = key(position);
    if (this.#size < this.capacity) {
      const slot = this.#size++;
      this.#set(slot, x, y, k, position);
      this.#heap[slot] = slot;
      this.#up(slot);
      return;
    }
    if (this.capacity === 0 || k >= this.#keys[this.#heap[0]]) return;
    const slot = this.#heap[0];
    this.#set(slot, x, y, k, position);
    this.#down(0);
  }

  /** The points kept, in the order they came. */
  points(): [number, number][] {
    const slots = Array.from({ length: this.#size }, (_, i) => i);
    slots.sort((a, b) => this.#positions[a] - this.#positions[b]);
    return slots.map((s) => [this.#xs[s], this.#ys[s]]);
  }

  #set(slot: number, x: number, y: number, k: number, position: number): void {
    this.#xs[slot] = x;
    this.#ys[slot] = y;
    this.#keys[slot] = k;
    this.#positions[slot] = position;
  }

  #up(i: number): void {
    const heap = this.#heap, keys = this.#keys;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[heap[parent]] >= keys[heap[i]]) break;
      [heap[parent], heap[i]] = [heap[i], heap[parent]];
      i = parent;
    }
  }

  #down(i: number): void {
    const heap = this.#heap, keys = this.#keys, n = this.#size;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let top = i;
      if (l < n && keys[heap[l]] > keys[heap[top]]) top = l;
      if (r < n && keys[heap[r]] > keys[heap[top]]) top = r;
      if (top === i) return;
      [heap[top], heap[i]] = [heap[i], heap[top]];
      i = top;
    }
  }
}
