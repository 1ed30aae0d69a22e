/**
 * The distribution of one per-request value (TTFT, ITL, latency) for a chart, in bounded memory: the values
 * themselves while there are at most `exactLimit` of them (the chart is then exactly what the values give), then a
 * log-bucketed sketch (DDSketch's scheme): bucket `i` holds the values in `(γ^(i−1), γ^i]` with
 * `γ = (1 + α) / (1 − α)`, and stands for `2γ^i / (γ + 1)`, within `α` (0.5 %) of every value in it — a few thousand
 * buckets cover nanoseconds to hours. Negative values are kept the same way on `−v`, zeros apart.
 *
 * Distributions of parts of a file merge into the distribution of the whole, as if read in one go (`merge`).
 *
 * The count, minimum and maximum are always exact. In sketch mode a histogram bin receives each bucket's count
 * whole at its representative value (a value within 0.5 % of a bin edge may land in the neighbouring bin), and a
 * CDF point's value is within 0.5 % of the exact one at that rank. These are chart data only: the statistics a
 * report prints (percentiles, averages) come from the summary export.
 */
import { binCount, cdfPoints, type Histogram, histogram } from "./chart_data.ts";

/** Values kept exactly before the distribution switches to the sketch: 512 KiB per distribution. */
export const EXACT_VALUES = 65_536;
/** Relative accuracy α of the sketch's values. */
export const SKETCH_RELATIVE_ACCURACY = 0.005;

const GAMMA = (1 + SKETCH_RELATIVE_ACCURACY) / (1 - SKETCH_RELATIVE_ACCURACY);
const LOG_GAMMA = Math.log(GAMMA);

/** Bucket counts by index, over a growing range of indices. */
class BucketStore {
  counts = new Float64Array(64);
  /** Index of `counts[0]`; meaningful once `used`. */
  offset = 0;
  used = false;

  add(index: number, count = 1): void {
    if (!this.used) {
      this.used = true;
      this.offset = index - (this.counts.length >> 1);
    }
    let at = index - this.offset;
    if (at < 0 || at >= this.counts.length) {
      const lo = Math.min(this.offset, index);
      const hi = Math.max(this.offset + this.counts.length - 1, index);
      const size = Math.max(this.counts.length * 2, hi - lo + 1 + 64);
      const grown = new Float64Array(size);
      const newOffset = lo - ((size - (hi - lo + 1)) >> 1);
      grown.set(this.counts, this.offset - newOffset);
      this.counts = grown;
      this.offset = newOffset;
      at = index - this.offset;
    }
    this.counts[at] += count;
  }

  /** Adds every bucket of `other`. */
  addAll(other: BucketStoreState): void {
    for (let i = 0; i < other.counts.length; i++) if (other.counts[i] > 0) this.add(i + other.offset, other.counts[i]);
  }

  state(): BucketStoreState {
    return { counts: this.used ? this.counts.slice() : new Float64Array(0), offset: this.offset };
  }
}

interface BucketStoreState {
  readonly counts: Float64Array;
  readonly offset: number;
}

/** A distribution as plain data (what a Worker posts back), see {@linkcode ValueDistribution.state}. */
export interface ValueDistributionState {
  readonly exactLimit: number;
  readonly count: number;
  readonly min: number;
  readonly max: number;
  /** The values, while exact. */
  readonly values?: Float64Array;
  readonly sketch?: {
    readonly positive: BucketStoreState;
    readonly negative: BucketStoreState;
    readonly zeros: number;
  };
}

function bucketOf(v: number): number {
  return Math.ceil(Math.log(v) / LOG_GAMMA);
}

function representative(index: number): number {
  return (2 * Math.pow(GAMMA, index)) / (GAMMA + 1);
}

/** A value sketch: `[representative value, count]` pairs in ascending value order. */
class LogSketch {
  readonly positive = new BucketStore();
  readonly negative = new BucketStore();
  zeros = 0;

  add(v: number): void {
    if (v > 0) this.positive.add(bucketOf(v));
    else if (v < 0) this.negative.add(bucketOf(-v));
    else this.zeros++;
  }

  /** Calls `visit(value, count)` for each non-empty bucket, smallest value first. */
  forEach(visit: (value: number, count: number) => void): void {
    const neg = this.negative;
    for (let i = neg.counts.length - 1; i >= 0; i--) {
      if (neg.counts[i] > 0) visit(-representative(i + neg.offset), neg.counts[i]);
    }
    if (this.zeros > 0) visit(0, this.zeros);
    const pos = this.positive;
    for (let i = 0; i < pos.counts.length; i++) {
      if (pos.counts[i] > 0) visit(representative(i + pos.offset), pos.counts[i]);
    }
  }
}

export class ValueDistribution {
  #exact: Float64Array | undefined = new Float64Array(1024);
  #sketch: LogSketch | undefined;
  #count = 0;
  #min = Infinity;
  #max = -Infinity;

  /** @param exactLimit values kept exactly before switching to the sketch */
  constructor(readonly exactLimit = EXACT_VALUES) {}

  get count(): number {
    return this.#count;
  }
  get min(): number {
    return this.#min;
  }
  get max(): number {
    return this.#max;
  }
  /** Whether the values are still kept exactly. */
  get exact(): boolean {
    return this.#sketch === undefined;
  }

  /** The distribution as plain data. */
  state(): ValueDistributionState {
    const base = { exactLimit: this.exactLimit, count: this.#count, min: this.#min, max: this.#max };
    const sk = this.#sketch;
    if (sk === undefined) return { ...base, values: this.#exact!.slice(0, this.#count) };
    return { ...base, sketch: { positive: sk.positive.state(), negative: sk.negative.state(), zeros: sk.zeros } };
  }

  static fromState(s: ValueDistributionState): ValueDistribution {
    const d = new ValueDistribution(s.exactLimit);
    d.merge(s);
    return d;
  }

  /** Adds the values of another distribution (of the same limit): the result is as if they had come here. */
  merge(other: ValueDistributionState): void {
    if (other.count === 0) return;
    if (other.values !== undefined && this.#count + other.count <= this.exactLimit) {
      for (const v of other.values) this.add(v);
      return;
    }
    this.#toSketch();
    const sketch = this.#sketch!;
    if (other.values !== undefined) { for (const v of other.values) sketch.add(v); }
    else {
      sketch.positive.addAll(other.sketch!.positive);
      sketch.negative.addAll(other.sketch!.negative);
      sketch.zeros += other.sketch!.zeros;
    }
    this.#count += other.count;
    if (other.min < this.#min) this.#min = other.min;
    if (other.max > this.#max) this.#max = other.max;
  }

  #toSketch(): void {
    if (this.#sketch !== undefined) return;
    const sketch = new LogSketch();
    const exact = this.#exact!;
    for (let i = 0; i < this.#count; i++) sketch.add(exact[i]);
    this.#sketch = sketch;
    this.#exact = undefined;
  }

  add(v: number): void {
    if (v < this.#min) this.#min = v;
    if (v > this.#max) this.#max = v;
    const n = this.#count++;
    if (this.#sketch !== undefined) {
      this.#sketch.add(v);
      return;
    }
    let exact = this.#exact!;
    if (n >= this.exactLimit) {
      this.#count = n;
      this.#toSketch();
      this.#count = n + 1;
      this.#sketch!.add(v);
      return;
    }
    if (n === exact.length) {
      const grown = new Float64Array(Math.min(exact.length * 2, Math.max(this.exactLimit, 1)));
      grown.set(exact);
      this.#exact = exact = grown;
    }
    exact[n] = v;
  }

  /** Equal-width bins from the minimum to the maximum (see `histogram` in chart_data.ts). */
  histogram(bins = binCount(this.#count)): Histogram {
    if (this.#sketch === undefined) return histogram(this.#exact!.subarray(0, this.#count), bins);
    const min = this.#min, max = this.#max;
    if (min === max) return { edges: [min], width: 0, counts: [this.#count] };
    const width = (max - min) / bins;
    const counts = new Array<number>(bins).fill(0);
    this.#sketch.forEach((value, count) => {
      const v = Math.min(max, Math.max(min, value));
      counts[Math.min(bins - 1, Math.floor((v - min) / width))] += count;
    });
    return { edges: counts.map((_, i) => min + i * width), width, counts };
  }

  /** The CDF at evenly spaced ranks, at most `maxPoints` (see `cdfPoints` in chart_data.ts). */
  cdf(maxPoints = 400): [number, number][] {
    const n = this.#count;
    if (this.#sketch === undefined) return cdfPoints(this.#exact!.subarray(0, n), maxPoints);
    const step = Math.max(1, Math.ceil(n / maxPoints));
    const out: [number, number][] = [];
    // Rank i (0-based) lies in the bucket whose cumulative count first exceeds i.
    let rank = step - 1;
    let below = 0;
    const min = this.#min, max = this.#max;
    this.#sketch.forEach((value, count) => {
      below += count;
      for (; rank < n && rank < below; rank += step) {
        out.push([Math.min(max, Math.max(min, value)), ((rank + 1) / n) * 100]);
      }
    });
    if (out.length === 0 || out[out.length - 1][1] !== 100) out.push([max, 100]);
    return out;
  }
}
