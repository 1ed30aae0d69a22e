/**
 * Time-weighted step functions over request intervals (AIPerf 0.13's sweep-line metrics), exactly as AIPerf
 * defines them, on the run clock in milliseconds.
 *
 * A step function is a sorted list of event times and, at each, the value held until the next event (0 before
 * the first). Curves are built by sorting ±delta events by time — ends before starts at equal times, so a
 * request that ends when another starts is never counted twice — and summing them. Residues smaller than
 * 1e-9 × the curve's largest magnitude are snapped to 0 (float cancellation of large ± pairs).
 *
 * Statistics over a window [ws, we] weight each held value by how long it is held:
 * `avg = Σ v·d / (we − ws)`, `std = √(Σ d·(v − avg)² / (we − ws))`, min/max over segments held for a positive
 * time, and `pX` = the smallest value whose cumulative held time reaches X % of the total.
 */

/** A step function: `values[i]` is held from `times[i]` to `times[i + 1]`. */
export interface StepFunction {
  readonly times: Float64Array;
  readonly values: Float64Array;
}

/** Time-weighted statistics of a step function (AIPerf's `SweepLineStats`). */
export interface SweepStats {
  readonly avg: number;
  readonly min: number;
  readonly max: number;
  readonly p50: number;
  readonly p90: number;
  readonly p95: number;
  readonly p99: number;
  readonly std: number;
}

export const ZERO_SWEEP_STATS: SweepStats = { avg: 0, min: 0, max: 0, p50: 0, p90: 0, p95: 0, p99: 0, std: 0 };

const EMPTY: StepFunction = { times: new Float64Array(0), values: new Float64Array(0) };

/** Collects ±delta events (in typed arrays: 16 bytes each), then sums them into a step function. */
export class EventList {
  #times: Float64Array;
  #deltas: Float64Array;
  #n = 0;

  /** `capacity`: the events expected, when known (a long run's lists then never grow by copying). */
  constructor(capacity = 64) {
    this.#times = new Float64Array(Math.max(1, capacity));
    this.#deltas = new Float64Array(Math.max(1, capacity));
  }

  add(time: number, delta: number): void {
    if (this.#n === this.#times.length) {
      const times = new Float64Array(Math.max(64, this.#n * 2));
      times.set(this.#times);
      this.#times = times;
      const deltas = new Float64Array(Math.max(64, this.#n * 2));
      deltas.set(this.#deltas);
      this.#deltas = deltas;
    }
    this.#times[this.#n] = time;
    this.#deltas[this.#n++] = delta;
  }

  /** Adds `delta` over `[from, to)`. */
  interval(from: number, to: number, delta: number): void {
    this.add(from, delta);
    this.add(to, -delta);
  }

  get length(): number {
    return this.#n;
  }

  /**
   * Events sorted by time, ends (delta ≤ 0) before starts at ties, insertion order otherwise; cumulative sum. The
   * list is emptied.
   */
  build(): StepFunction {
    const n = this.#n;
    if (n === 0) return EMPTY;
    const t = this.#times, d = this.#deltas;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => t[a] - t[b] || (d[a] > 0 ? 1 : 0) - (d[b] > 0 ? 1 : 0) || a - b);
    const times = new Float64Array(n), values = new Float64Array(n);
    let sum = 0, maxAbs = 0;
    for (let i = 0; i < n; i++) {
      sum += d[order[i]];
      times[i] = t[order[i]];
      values[i] = sum;
      if (Math.abs(sum) > maxAbs) maxAbs = Math.abs(sum);
    }
    if (maxAbs > 0) { for (let i = 0; i < n; i++) if (Math.abs(values[i]) < 1e-9 * maxAbs) values[i] = 0; }
    // The events are not needed once summed: let a long run's millions of them go before the next curve is built.
    this.#times = new Float64Array(0);
    this.#deltas = new Float64Array(0);
    this.#n = 0;
    return { times, values };
  }
}

/** Index of the first element of `a` that is > x (`side="right"`) or ≥ x (`side="left"`). */
function searchSorted(a: Float64Array, x: number, side: "left" | "right"): number {
  let lo = 0, hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (side === "right" ? a[mid] <= x : a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The value a step function holds at time `t` (0 before its first event). */
export function valueAt(f: StepFunction, t: number): number {
  const i = searchSorted(f.times, t, "right") - 1;
  return i >= 0 ? f.values[i] : 0;
}

function mergedTimes(a: StepFunction, b: StepFunction): Float64Array {
  const all = new Float64Array(a.times.length + b.times.length);
  all.set(a.times);
  all.set(b.times, a.times.length);
  all.sort();
  let k = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[k - 1]) all[k++] = all[i];
  return all.slice(0, k);
}

/** `num / den` on the merged event times; 0 wherever `den` is 0 (AIPerf's safe division). */
export function divideSteps(num: StepFunction, den: StepFunction): StepFunction {
  if (num.times.length === 0 || den.times.length === 0) return EMPTY;
  const times = mergedTimes(num, den);
  const values = new Float64Array(times.length);
  for (let i = 0; i < times.length; i++) {
    const d = valueAt(den, times[i]);
    values[i] = d > 0 ? valueAt(num, times[i]) / d : 0;
  }
  return { times, values };
}

const QUANTILES = [0.5, 0.9, 0.95, 0.99] as const;

/**
 * Stats of the first `n` values held for durations, averaged over `total` ms. Typed arrays throughout: a long run's
 * curves hold millions of steps, and boxed arrays of them were the largest allocation of the results' writing.
 */
export function weightedStats(val: Float64Array, dur: Float64Array, n: number, total: number): SweepStats {
  let weighted = 0, min = Infinity, max = -Infinity;
  for (let i = 0; i < n; i++) {
    weighted += val[i] * dur[i];
    if (val[i] < min) min = val[i];
    if (val[i] > max) max = val[i];
  }
  const avg = weighted / total;
  let spread = 0;
  for (let i = 0; i < n; i++) spread += dur[i] * (val[i] - avg) ** 2;
  // By value, equal values in index order (a stable sort).
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => val[a] - val[b] || a - b);
  let acc = 0;
  for (let i = 0; i < n; i++) acc += dur[order[i]];
  // For each quantile the first segment whose cumulative fraction reaches q (numpy `searchsorted(cum_frac, q)`):
  // one walk with the running sum, in the same order as the total above, so no cumulative array is kept.
  const picked = new Array<number>(QUANTILES.length);
  let q = 0, cum = 0;
  for (let k = 0; k < n && q < QUANTILES.length; k++) {
    cum += dur[order[k]];
    while (q < QUANTILES.length && (k === n - 1 || !(cum / acc < QUANTILES[q]))) picked[q++] = val[order[k]];
  }
  const [p50, p90, p95, p99] = picked;
  return { avg, min, max, p50, p90, p95, p99, std: Math.sqrt(spread / total) };
}

/** Time-weighted statistics of `f` clipped to `[ws, we]`; zeros when the window or the curve is empty. */
export function timeWeightedStats(f: StepFunction, ws: number, we: number): SweepStats {
  const total = we - ws;
  if (f.times.length === 0 || total <= 0) return ZERO_SWEEP_STATS;
  const n = f.times.length;
  const val = new Float64Array(n + 1), dur = new Float64Array(n + 1);
  let k = 0;
  const hold = (from: number, to: number, v: number) => {
    const d = Math.min(to, we) - Math.max(from, ws);
    if (d > 0) {
      val[k] = v;
      dur[k++] = d;
    }
  };
  const first = searchSorted(f.times, ws, "right") - 1;
  // The value held when the window opens, then every event inside it.
  hold(ws, first + 1 < n ? f.times[first + 1] : we, first >= 0 ? f.values[first] : 0);
  for (let i = Math.max(0, first + 1); i < n && f.times[i] < we; i++) {
    hold(f.times[i], i + 1 < n ? f.times[i + 1] : we, f.values[i]);
  }
  return k === 0 ? ZERO_SWEEP_STATS : weightedStats(val, dur, k, total);
}

/**
 * The distinct values of `ws`, `we` and the times of `a` and `b` strictly inside `(ws, we)`, ascending: a merge of
 * the two curves' sorted times, never a set of millions of boxed numbers.
 */
function windowGrid(a: Float64Array, b: Float64Array, ws: number, we: number): Float64Array {
  const out = new Float64Array(a.length + b.length + 2);
  let n = 0;
  const put = (t: number) => {
    if (n === 0 || out[n - 1] !== t) out[n++] = t;
  };
  let i = searchSorted(a, ws, "right"), j = searchSorted(b, ws, "right");
  const aEnd = searchSorted(a, we, "left"), bEnd = searchSorted(b, we, "left");
  put(Math.min(ws, we));
  if (ws < we) {
    while (i < aEnd || j < bEnd) {
      if (j >= bEnd || (i < aEnd && a[i] <= b[j])) put(a[i++]);
      else put(b[j++]);
    }
  }
  put(Math.max(ws, we));
  return out.subarray(0, n);
}

/**
 * Time-weighted statistics of `rate` over only the parts of `[ws, we]` where `mask` > 0 (AIPerf's "active"
 * variants): the average divides by the active time, not the window.
 */
export function activeWeightedStats(rate: StepFunction, mask: StepFunction, ws: number, we: number): SweepStats {
  if (we - ws <= 0 || rate.times.length === 0 || mask.times.length === 0) return ZERO_SWEEP_STATS;
  const grid = windowGrid(rate.times, mask.times, ws, we);
  const val = new Float64Array(grid.length), dur = new Float64Array(grid.length);
  let n = 0;
  let active = 0;
  for (let i = 0; i + 1 < grid.length; i++) {
    const d = grid[i + 1] - grid[i];
    if (d > 0 && valueAt(mask, grid[i]) > 0) {
      val[n] = valueAt(rate, grid[i]);
      dur[n++] = d;
      active += d;
    }
  }
  return active > 0 ? weightedStats(val, dur, n, active) : ZERO_SWEEP_STATS;
}
