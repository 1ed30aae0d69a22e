/**
 * When a run's successful requests ended, and the tokens they carried, in bounded memory: the sums per equal window
 * of the span between the first and the last completion, that the batch-means noise of a throughput needs
 * (`difference_interval.ts`), without keeping one value per request.
 *
 * Completions are counted in buckets of a width that doubles (1 ms, 2 ms, 4 ms, …) whenever the run would need more
 * than {@link MAX_COMPLETION_BUCKETS}; a window's sum takes each bucket's share by overlap, the bucket's content
 * spread evenly over the part of it inside the span. A window boundary inside a bucket is the only approximation:
 * at most one bucket in 32,768 of the span per boundary. Histograms of parts of a file merge into that of the whole.
 */

/** Most buckets held before their width doubles. */
export const MAX_COMPLETION_BUCKETS = 65_536;

/** What a throughput counts per completion. */
export type CompletionAmount = "requests" | "output" | "input" | "total";

/** A histogram as plain data (what a Worker posts back): the buckets from `lo` on, at `widthMs`. */
export interface CompletionWindowsState {
  readonly maxBuckets: number;
  readonly widthMs: number;
  readonly lo: number;
  readonly count: number;
  readonly first: number;
  readonly last: number;
  readonly requests: Float64Array;
  readonly input: Float64Array;
  readonly output: Float64Array;
}

export class CompletionWindows {
  #widthMs = 1;
  /** Bucket index (time / width) of slot 0. */
  #lo = 0;
  #requests = new Float64Array(0);
  #input = new Float64Array(0);
  #output = new Float64Array(0);
  /** Bucket indices of the first and last completion's buckets. */
  #minB = 0;
  #maxB = -1;
  #count = 0;
  #first = Infinity;
  #last = -Infinity;

  constructor(readonly maxBuckets = MAX_COMPLETION_BUCKETS) {}

  /** Completions added. */
  get count(): number {
    return this.#count;
  }

  /** The span between the first and the last completion, ms. */
  get spanMs(): number {
    return this.#count === 0 ? 0 : this.#last - this.#first;
  }

  /** A request completed at `endMs` (epoch ms) with its input and output tokens. */
  add(endMs: number, inputTokens: number, outputTokens: number): void {
    const i = this.#slot(endMs);
    this.#requests[i] += 1;
    this.#input[i] += inputTokens;
    this.#output[i] += outputTokens;
    this.#count++;
    if (endMs < this.#first) this.#first = endMs;
    if (endMs > this.#last) this.#last = endMs;
  }

  /** What `amount` adds up to in each of `k` equal windows from the first completion to the last. */
  windowSums(k: number, amount: CompletionAmount): Float64Array {
    const sums = new Float64Array(k);
    const span = this.spanMs;
    if (this.#count === 0) return sums;
    const w = this.#widthMs;
    const windowOf = (t: number) =>
      span > 0 ? Math.min(k - 1, Math.max(0, Math.floor(((t - this.#first) / span) * k))) : 0;
    for (let b = this.#minB; b <= this.#maxB; b++) {
      const mass = this.#amount(b - this.#lo, amount);
      if (mass === 0) continue;
      const lo = Math.max(b * w, this.#first);
      const hi = Math.min((b + 1) * w, this.#last);
      if (!(hi > lo)) {
        sums[windowOf(lo)] += mass;
        continue;
      }
      for (let j = windowOf(lo); j < k; j++) {
        const from = Math.max(lo, this.#first + (span * j) / k);
        const to = j === k - 1 ? hi : Math.min(hi, this.#first + (span * (j + 1)) / k);
        if (to > from) sums[j] += (mass * (to - from)) / (hi - lo);
        if (to >= hi) break;
      }
    }
    return sums;
  }

  state(): CompletionWindowsState {
    const from = this.#minB - this.#lo, to = this.#maxB - this.#lo + 1;
    return {
      maxBuckets: this.maxBuckets,
      widthMs: this.#widthMs,
      lo: this.#minB,
      count: this.#count,
      first: this.#first,
      last: this.#last,
      requests: this.#requests.slice(from, to),
      input: this.#input.slice(from, to),
      output: this.#output.slice(from, to),
    };
  }

  /** Adds the completions of another histogram. */
  merge(other: CompletionWindowsState): void {
    if (other.count === 0) return;
    while (this.#widthMs < other.widthMs) this.#double();
    for (let i = 0; i < other.requests.length; i++) {
      if (other.requests[i] === 0 && other.input[i] === 0 && other.output[i] === 0) continue;
      // By time: this width may be larger, and may grow while reaching further buckets.
      const j = this.#slot((other.lo + i) * other.widthMs);
      this.#requests[j] += other.requests[i];
      this.#input[j] += other.input[i];
      this.#output[j] += other.output[i];
    }
    this.#count += other.count;
    this.#first = Math.min(this.#first, other.first);
    this.#last = Math.max(this.#last, other.last);
  }

  #amount(i: number, amount: CompletionAmount): number {
    switch (amount) {
      case "requests":
        return this.#requests[i];
      case "output":
        return this.#output[i];
      case "input":
        return this.#input[i];
      case "total":
        return this.#input[i] + this.#output[i];
    }
  }

  /** The slot of the bucket of `t`, the width doubled first while the buckets would be too many. */
  #slot(t: number): number {
    let b = Math.floor(t / this.#widthMs);
    if (this.#maxB < this.#minB) {
      this.#minB = this.#maxB = b;
    } else {
      while (Math.max(this.#maxB, b) - Math.min(this.#minB, b) + 1 > this.maxBuckets) {
        this.#double();
        b = Math.floor(t / this.#widthMs);
      }
      if (b < this.#minB) this.#minB = b;
      if (b > this.#maxB) this.#maxB = b;
    }
    if (b < this.#lo || b >= this.#lo + this.#requests.length) this.#grow(b);
    return b - this.#lo;
  }

  /** Room for bucket `b`, with as much again on the side it grew (completions mostly come in time order). */
  #grow(b: number): void {
    const size = Math.max(2 * (this.#maxB - this.#minB + 1), 256);
    const lo = this.#requests.length > 0 && b < this.#lo ? this.#maxB - size + 1 : this.#minB;
    const move = (a: Float64Array) => {
      const grown = new Float64Array(size);
      const from = Math.max(this.#lo, lo), to = Math.min(this.#lo + a.length, lo + size);
      if (to > from) grown.set(a.subarray(from - this.#lo, to - this.#lo), from - lo);
      return grown;
    };
    this.#requests = move(this.#requests);
    this.#input = move(this.#input);
    this.#output = move(this.#output);
    this.#lo = lo;
  }

  #double(): void {
    const lo = Math.floor(this.#lo / 2);
    const size = Math.max(256, Math.ceil(this.#requests.length / 2) + 1);
    const halve = (a: Float64Array) => {
      const merged = new Float64Array(size);
      for (let i = 0; i < a.length; i++) if (a[i] !== 0) merged[Math.floor((this.#lo + i) / 2) - lo] += a[i];
      return merged;
    };
    this.#requests = halve(this.#requests);
    this.#input = halve(this.#input);
    this.#output = halve(this.#output);
    this.#lo = lo;
    this.#minB = Math.floor(this.#minB / 2);
    this.#maxB = Math.floor(this.#maxB / 2);
    this.#widthMs *= 2;
  }
}
