/**
 * The distribution of one per-request value (TTFT, ITL, latency) for a chart, in bounded memory: the values
 * themselves while there are at most `exactLimit` of them (the chart is then exactly what the values give), then a
 * log-bucketed sketch (DDSketch's scheme): bucket `i` holds the values in `(γ^(i−1), γ^i]` with
 * `γ = (1 + α) / (1 − α)`, and stands for `2γ^i / (γ + 1)`, within `α` (0.5 %) of every value in it — a few thousand
 * buckets cover nanoseconds to hours. Negative values are kept the same way on `−v`, zeros apart.
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
      const sketch = new LogSketch();
      for (let i = 0; i < n; i++) sketch.add(exact[i]);
      sketch.add(v);
      this.#sketch = sketch;
      this.#exact = undefined;
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
