/**
 * Throughput and requests in flight over a run, accumulated one request at a time in bounded memory: a grid of
 * fine time buckets holds, per bucket, the output tokens whose chunk arrived in it, the requests that completed in
 * it, and the request-time spent in flight in it (exact: a request adds its overlap with its first and last bucket,
 * and one to a running count of the buckets it covers whole).
 *
 * The grid's unit grows with the run so that it never spans more than {@link MAX_GRID_BUCKETS} buckets: 1 ms up to
 * ~65 s, 50 ms up to ~55 min, 1 s up to ~18 h, 1 min up to ~45 days, then 1 h and 1 day. Each unit divides the next,
 * and every interval width `intervalFor` picks for a run of that length, so the chart's intervals are whole buckets
 * and their sums are exact (a width that is not, for records whose chunks lie far outside the requests, is rounded up
 * to whole buckets). Times are epoch ms (a double holds them to a quarter of a microsecond); the series starts at the
 * first request's send time rounded down to the grid's unit. Grids of parts of a file merge into the grid of the
 * whole (`merge`), equal to it up to the order of floating-point additions.
 */
import { intervalFor } from "./chart_data.ts";

/** Most buckets the grid spans before it moves to the next unit. */
export const MAX_GRID_BUCKETS = 65_536;
/** The grid's units in ms; each divides the next and every interval width `intervalFor` returns for its span. */
export const GRID_UNITS_MS = [1, 50, 1000, 60_000, 3_600_000, 86_400_000] as const;

/** Per-interval series over a run, each point at its interval's start time (s). */
export interface TimeSeries {
  readonly intervalSec: number;
  /** Start of each interval, s since {@link TimeSeries.originMs}. */
  readonly times: readonly number[];
  /** Output tokens received per second in each interval. */
  readonly outputTokensPerSec: readonly number[];
  /** Requests completed successfully per second in each interval. */
  readonly requestsPerSec: readonly number[];
  /** Mean number of requests in flight over each interval (busy request-time / interval). */
  readonly inFlight: readonly number[];
  /** Time 0 of the series (epoch ms): the first send time, rounded down to the grid's unit. */
  readonly originMs: number;
}

/** A grid as plain data (what a Worker posts back). */
export interface TimeGridState {
  readonly maxBuckets: number;
  readonly level: number;
  readonly lo: number;
  readonly first: number;
  readonly last: number;
  readonly minStart: number;
  readonly maxEnd: number;
  readonly tokens: Float64Array;
  readonly done: Float64Array;
  readonly busy: Float64Array;
  readonly cover: Float64Array;
}

export class TimeGrid {
  #level = 0;
  /** Absolute bucket index (time / unit) of slot 0, and the slots allocated. */
  #lo = 0;
  #len = 0;
  /** Absolute indices of the first and last bucket reached. */
  #first = 0;
  #last = -1;
  #tokens = new Float64Array(256);
  #done = new Float64Array(256);
  #busy = new Float64Array(256);
  /** Differences of the count of requests covering a bucket whole (prefix sums give the count). */
  #cover = new Float64Array(256);
  #maxEnd = -Infinity;
  #minStart = Infinity;

  /** @param maxBuckets buckets held before moving to the next unit */
  constructor(readonly maxBuckets = MAX_GRID_BUCKETS) {}

  /** The current bucket width, ms. */
  get unitMs(): number {
    return GRID_UNITS_MS[this.#level];
  }

  state(): TimeGridState {
    return {
      maxBuckets: this.maxBuckets,
      level: this.#level,
      lo: this.#lo,
      first: this.#first,
      last: this.#last,
      minStart: this.#minStart,
      maxEnd: this.#maxEnd,
      tokens: this.#tokens.slice(0, this.#len),
      done: this.#done.slice(0, this.#len),
      busy: this.#busy.slice(0, this.#len),
      cover: this.#cover.slice(0, this.#len),
    };
  }

  static fromState(s: TimeGridState): TimeGrid {
    const g = new TimeGrid(s.maxBuckets);
    g.#level = s.level;
    g.#lo = s.lo;
    g.#len = s.tokens.length;
    g.#first = s.first;
    g.#last = s.last;
    g.#minStart = s.minStart;
    g.#maxEnd = s.maxEnd;
    g.#tokens = s.tokens.slice();
    g.#done = s.done.slice();
    g.#busy = s.busy.slice();
    g.#cover = s.cover.slice();
    return g;
  }

  /** Adds another grid's requests, completions and tokens: the result is as if they had come here. */
  merge(state: TimeGridState): void {
    if (state.tokens.length === 0) return;
    const other = TimeGrid.fromState(state);
    if (this.#len === 0) {
      this.#level = other.#level;
      this.#lo = other.#lo;
      this.#len = other.#len;
      this.#first = other.#first;
      this.#last = other.#last;
      this.#tokens = other.#tokens;
      this.#done = other.#done;
      this.#busy = other.#busy;
      this.#cover = other.#cover;
    } else {
      // Both on the same unit, coarse enough for the span of both.
      for (;;) {
        while (other.#level < this.#level) other.#coarsen();
        while (this.#level < other.#level) this.#coarsen();
        const from = other.#first * other.unitMs, to = other.#last * other.unitMs;
        this.#reach(from);
        this.#reach(to);
        if (this.#level === other.#level) break;
      }
      for (let b = other.#first; b <= other.#last; b++) {
        const i = b - other.#lo, j = b - this.#lo;
        this.#tokens[j] += other.#tokens[i];
        this.#done[j] += other.#done[i];
        this.#busy[j] += other.#busy[i];
        this.#cover[j] += other.#cover[i];
      }
    }
    if (other.#minStart < this.#minStart) this.#minStart = other.#minStart;
    if (other.#maxEnd > this.#maxEnd) this.#maxEnd = other.#maxEnd;
  }

  /** A request in flight from `startMs` to `endMs` (failed ones too). */
  addRequest(startMs: number, endMs: number): void {
    this.#reach(startMs);
    this.#reach(endMs);
    if (startMs < this.#minStart) this.#minStart = startMs;
    if (endMs > this.#maxEnd) this.#maxEnd = endMs;
    if (!(endMs > startMs)) return;
    const unit = this.unitMs;
    const bs = Math.floor(startMs / unit), be = Math.floor(endMs / unit);
    if (bs === be) {
      this.#busy[bs - this.#lo] += endMs - startMs;
      return;
    }
    this.#busy[bs - this.#lo] += (bs + 1) * unit - startMs;
    this.#busy[be - this.#lo] += endMs - be * unit;
    this.#cover[bs + 1 - this.#lo] += 1;
    this.#cover[be - this.#lo] -= 1;
  }

  /** A request completed successfully at `endMs`. */
  addCompletion(endMs: number): void {
    this.#reach(endMs);
    this.#done[Math.floor(endMs / this.unitMs) - this.#lo] += 1;
  }

  /** Whether two times fall in the same bucket (they stay together as the grid's unit grows). */
  sameBucket(aMs: number, bMs: number): boolean {
    const unit = GRID_UNITS_MS[this.#level];
    return Math.floor(aMs / unit) === Math.floor(bMs / unit);
  }

  /** `tokens` output tokens arrived at `atMs`. */
  addTokens(atMs: number, tokens: number): void {
    // Most chunks land in buckets the grid already spans (called ~20 times per record).
    const b = Math.floor(atMs / GRID_UNITS_MS[this.#level]);
    if (b < this.#first || b > this.#last) {
      this.#reach(atMs);
      this.#tokens[Math.floor(atMs / this.unitMs) - this.#lo] += tokens;
    } else {
      this.#tokens[b - this.#lo] += tokens;
    }
  }

  /**
   * The series over intervals of `intervalSec` (default: `intervalFor` the run's span), from the first send time
   * rounded down to the unit to the last end; undefined before any request. Events outside that span count in the
   * first or last interval.
   */
  series(intervalSec?: number): TimeSeries | undefined {
    if (this.#len === 0 || this.#minStart === Infinity) return undefined;
    const unit = this.unitMs;
    const origin = Math.floor(this.#minStart / unit) * unit;
    const spanMs = this.#maxEnd - origin;
    const w = intervalSec ?? Math.ceil(Math.round(intervalFor(spanMs / 1000) * 1000) / unit) * unit / 1000;
    const wMs = w * 1000;
    const per = wMs / unit;
    if (!Number.isInteger(per)) throw new RangeError(`interval ${w} s is not a whole number of ${unit} ms buckets`);
    const n = Math.max(1, Math.ceil(spanMs / wMs));
    const tokens = new Array<number>(n).fill(0);
    const done = new Array<number>(n).fill(0);
    const busy = new Array<number>(n).fill(0);
    const originIndex = origin / unit;
    let covering = 0;
    for (let i = 0; i < this.#len; i++) {
      covering += this.#cover[i];
      const b = Math.min(n - 1, Math.max(0, Math.floor((this.#lo + i - originIndex) / per)));
      tokens[b] += this.#tokens[i];
      done[b] += this.#done[i];
      busy[b] += this.#busy[i] + covering * unit;
    }
    return {
      intervalSec: w,
      times: tokens.map((_, i) => i * w),
      outputTokensPerSec: tokens.map((t) => t / w),
      requestsPerSec: done.map((d) => d / w),
      inFlight: busy.map((b) => b / wMs),
      originMs: origin,
    };
  }

  /** Makes the grid cover the bucket of `t`, moving to coarser units while it would hold too many buckets. */
  #reach(t: number): void {
    let index = Math.floor(t / this.unitMs);
    if (this.#len === 0) {
      this.#lo = index - (this.#tokens.length >> 1);
      this.#len = this.#tokens.length;
      this.#first = this.#last = index;
      return;
    }
    while (
      this.#level < GRID_UNITS_MS.length - 1 &&
      Math.max(this.#last, index) - Math.min(this.#first, index) + 1 > this.maxBuckets
    ) {
      this.#coarsen();
      index = Math.floor(t / this.unitMs);
    }
    if (index < this.#first) this.#first = index;
    if (index > this.#last) this.#last = index;
    if (index >= this.#lo && index < this.#lo + this.#len) return;
    const lo = Math.min(this.#lo, index);
    const hi = Math.max(this.#lo + this.#len - 1, index);
    const size = Math.max(Math.min(this.#len * 2, 2 * this.maxBuckets), hi - lo + 1);
    // Room on the side that grew, so a run going forward in time rarely copies.
    const newLo = index < this.#lo ? hi - size + 1 : lo;
    const move = (a: Float64Array) => {
      const grown = new Float64Array(size);
      grown.set(a.subarray(0, this.#len), this.#lo - newLo);
      return grown;
    };
    this.#tokens = move(this.#tokens);
    this.#done = move(this.#done);
    this.#busy = move(this.#busy);
    this.#cover = move(this.#cover);
    this.#lo = newLo;
    this.#len = size;
  }

  /** Merges buckets into the next unit: the covering counts become busy time first. */
  #coarsen(): void {
    const unit = this.unitMs;
    const next = GRID_UNITS_MS[this.#level + 1];
    const k = next / unit;
    const lo = Math.floor(this.#lo / k);
    const hi = Math.floor((this.#lo + this.#len - 1) / k);
    const len = Math.max(hi - lo + 1, 256);
    const tokens = new Float64Array(len), done = new Float64Array(len), busy = new Float64Array(len);
    let covering = 0;
    for (let i = 0; i < this.#len; i++) {
      covering += this.#cover[i];
      const j = Math.floor((this.#lo + i) / k) - lo;
      tokens[j] += this.#tokens[i];
      done[j] += this.#done[i];
      busy[j] += this.#busy[i] + covering * unit;
    }
    this.#tokens = tokens;
    this.#done = done;
    this.#busy = busy;
    this.#cover = new Float64Array(len);
    this.#lo = lo;
    this.#len = len;
    this.#first = Math.floor(this.#first / k);
    this.#last = Math.floor(this.#last / k);
    this.#level++;
  }
}
