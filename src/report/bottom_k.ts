/**
 * Bottom-k sampling: at most `capacity` items of a stream of unknown length, every item while there are at most
 * `capacity`, then those with the smallest keys. A key is a hash of what identifies the item (the caller's, e.g. of
 * a record's timestamps), ties broken by position in the stream: the same stream always keeps the same items, the
 * kept items are a uniform sample, and the samples of consecutive parts of a stream merge into the sample of the
 * whole. This class keeps the keys and hands out slots; the caller stores each kept item's data in its slot.
 */

/** The keys of a sample as plain data, slot by slot (what a Worker posts back). */
export interface BottomKState {
  readonly capacity: number;
  readonly seen: number;
  readonly hashes: Float64Array;
  readonly positions: Float64Array;
}

export class BottomK {
  /** Items offered so far. */
  seen = 0;
  readonly #hashes: Float64Array;
  readonly #positions: Float64Array;
  /** Max-heap of slots over (hash, position). */
  readonly #heap: Int32Array;
  #size = 0;

  constructor(readonly capacity: number) {
    this.#hashes = new Float64Array(capacity);
    this.#positions = new Float64Array(capacity);
    this.#heap = new Int32Array(capacity);
  }

  /** Items kept. */
  get size(): number {
    return this.#size;
  }

  /**
   * Offers the next item of the stream, keyed by `hash` (a 32-bit unsigned integer): the slot to store it in
   * (replacing what was there), or -1 when it is not kept.
   */
  offer(hash: number): number {
    return this.offerAt(hash, this.seen++);
  }

  /** Offers an item at a given position (merging a later part: its positions shifted by the items before it). */
  offerAt(hash: number, position: number): number {
    if (this.#size < this.capacity) {
      const slot = this.#size++;
      this.#hashes[slot] = hash;
      this.#positions[slot] = position;
      this.#heap[slot] = slot;
      this.#up(slot);
      return slot;
    }
    if (this.capacity === 0) return -1;
    const top = this.#heap[0];
    if (hash > this.#hashes[top] || (hash === this.#hashes[top] && position > this.#positions[top])) return -1;
    this.#hashes[top] = hash;
    this.#positions[top] = position;
    this.#down(0);
    return top;
  }

  /** Whether an item with this hash offered next would be kept (its position comes after every kept one). */
  wouldKeep(hash: number): boolean {
    return this.#size < this.capacity || (this.capacity > 0 && hash < this.#hashes[this.#heap[0]]);
  }

  /** The slots in use, in stream order. */
  slotsInOrder(): number[] {
    const slots = Array.from({ length: this.#size }, (_, i) => i);
    return slots.sort((a, b) => this.#positions[a] - this.#positions[b]);
  }

  state(): BottomKState {
    return {
      capacity: this.capacity,
      seen: this.seen,
      hashes: this.#hashes.slice(0, this.#size),
      positions: this.#positions.slice(0, this.#size),
    };
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

const bits = new Float64Array(2);
const words = new Uint32Array(bits.buffer);

/** A per-request record's sampling key: a hash of its send and end times (ns). */
export function recordHash(startNs: number, endNs: number): number {
  bits[0] = startNs;
  bits[1] = endNs;
  return mixHash(mixHash(words[0], words[1]), mixHash(words[2], words[3]));
}
