/**
 * At most `capacity` of a stream of (x, y) points for a scatter chart, chosen without knowing how many will come:
 * every point while there are at most `capacity`, then a uniform sample (`bottom_k.ts`: the points whose record's
 * hash is smallest). The same file always gives the same chart, samples of the parts of a file merge into the sample
 * of the whole (`merge`), and points come back in stream order.
 */
import { BottomK, type BottomKState } from "./bottom_k.ts";

/** Most points drawn per scatter series. */
export const MAX_SCATTER_POINTS = 4000;

/** A sample as plain data (what a Worker posts back), slot by slot. */
export interface PointSampleState extends BottomKState {
  readonly xs: Float64Array;
  readonly ys: Float64Array;
}

export class PointSample {
  readonly #keys: BottomK;
  readonly #xs: Float64Array;
  readonly #ys: Float64Array;

  constructor(readonly capacity = MAX_SCATTER_POINTS) {
    this.#keys = new BottomK(capacity);
    this.#xs = new Float64Array(capacity);
    this.#ys = new Float64Array(capacity);
  }

  /** Points offered so far. */
  get seen(): number {
    return this.#keys.seen;
  }

  /** Offers a point; `hash` (a 32-bit unsigned integer) decides whether it is kept once the sample is full. */
  add(x: number, y: number, hash: number): void {
    const slot = this.#keys.offer(hash);
    if (slot >= 0) {
      this.#xs[slot] = x;
      this.#ys[slot] = y;
    }
  }

  /** The points kept, in the order they came. */
  points(): [number, number][] {
    return this.#keys.slotsInOrder().map((s) => [this.#xs[s], this.#ys[s]]);
  }

  state(): PointSampleState {
    const keys = this.#keys.state();
    return { ...keys, xs: this.#xs.slice(0, keys.hashes.length), ys: this.#ys.slice(0, keys.hashes.length) };
  }

  /** Adds the sample of the points that came after this one's: the result is the sample of both streams. */
  merge(later: PointSampleState): void {
    const offset = this.#keys.seen;
    for (let i = 0; i < later.hashes.length; i++) {
      const slot = this.#keys.offerAt(later.hashes[i], offset + later.positions[i]);
      if (slot >= 0) {
        this.#xs[slot] = later.xs[i];
        this.#ys[slot] = later.ys[i];
      }
    }
    this.#keys.seen = offset + later.seen;
  }
}
