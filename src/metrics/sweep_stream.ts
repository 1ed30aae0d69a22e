/**
 * The time-weighted statistics of `sweep_line.ts`, to the last bit, without holding a long run's curves: a curve is
 * a source that can be read again from its start (a step at a time, in time order), and the statistics read it a
 * few times, keeping only a bounded part of it at once.
 *
 * - A curve summed from per-request events is read by merging the requests' events (each request's few sorted
 *   locally) in the order {@linkcode EventList.build} sorts them — by time, ends before starts, then insertion
 *   order — so its running sum is the same sequence of additions; its 1e-9 residue snapping needs the curve's
 *   largest magnitude, found by one read first.
 * - A quotient of two curves (`divideSteps`) and the windows' segments (`timeWeightedStats`,
 *   `activeWeightedStats`) are computed from two cursors as those functions compute them from arrays.
 * - The statistics (`weightedStats`): the average, extrema and active time in one read; the spread in the next;
 *   the percentiles walk the segments in value order (ties in time order) with the same running sum, a range of
 *   values at a time: a histogram of the values' leading bits (monotone in the value) splits the value order into
 *   ranges of at most `budget` segments, and each read keeps only the segments of one range, placed by bucket
 *   (time order within a bucket), each bucket then sorted as the whole was. A percentile is the first segment whose
 *   running sum reaches its fraction of the total, which is known only at the end: the segments whose running sum
 *   lies within a rounding bound of the fraction of the time-ordered total are kept as candidates and decided then.
 *
 * Memory: a read holds the requests being merged (those in flight at a time, with their events) and one value
 * range (16 bytes a segment); a single bucket larger than the budget (a value held in millions of segments) is read
 * whole.
 */
import type { EventList, StepFunction, SweepStats } from "./sweep_line.ts";
import { weightedStats, ZERO_SWEEP_STATS } from "./sweep_line.ts";

/** A curve read a step at a time: `next()` moves to the next step (false past the last), `t` and `v` are its own. */
export interface StepCursor {
  next(): boolean;
  readonly t: number;
  readonly v: number;
}

/** A step function that can be read again from its start. */
export interface CurveSource {
  /** No steps at all (an empty curve's statistics are zero). */
  readonly empty: boolean;
  open(): StepCursor;
}

class ArrayCursor implements StepCursor {
  #i = -1;
  t = 0;
  v = 0;
  constructor(private readonly f: StepFunction) {}
  next(): boolean {
    if (++this.#i >= this.f.times.length) return false;
    this.t = this.f.times[this.#i];
    this.v = this.f.values[this.#i];
    return true;
  }
}

/** A built step function as a source. */
export function stepsSource(f: StepFunction): CurveSource {
  return { empty: f.times.length === 0, open: () => new ArrayCursor(f) };
}

class QuotientCursor implements StepCursor {
  readonly #num: StepCursor;
  readonly #den: StepCursor;
  #nHave: boolean;
  #dHave: boolean;
  #nv = 0;
  #dv = 0;
  t = 0;
  v = 0;
  constructor(num: StepCursor, den: StepCursor) {
    this.#num = num;
    this.#den = den;
    this.#nHave = num.next();
    this.#dHave = den.next();
  }
  next(): boolean {
    if (!this.#nHave && !this.#dHave) return false;
    const t = !this.#dHave || (this.#nHave && this.#num.t <= this.#den.t) ? this.#num.t : this.#den.t;
    // The value each holds at t: its last step at or before t.
    while (this.#nHave && this.#num.t <= t) {
      this.#nv = this.#num.v;
      this.#nHave = this.#num.next();
    }
    while (this.#dHave && this.#den.t <= t) {
      this.#dv = this.#den.v;
      this.#dHave = this.#den.next();
    }
    this.t = t;
    this.v = this.#dv > 0 ? this.#nv / this.#dv : 0;
    return true;
  }
}

/** `num / den` on their merged distinct times, 0 where `den` is not positive: `divideSteps`, read as it goes. */
export function quotientSource(num: CurveSource, den: CurveSource): CurveSource {
  const empty = num.empty || den.empty;
  return {
    empty,
    open: () =>
      empty
        ? new ArrayCursor({ times: new Float64Array(0), values: new Float64Array(0) })
        : new QuotientCursor(num.open(), den.open()),
  };
}

/** A request's events for one curve, added in the order the whole-run event list would add them. */
export type RequestEmitter = (request: number, out: Pick<EventList, "add">) => void;

/** One request's events, sorted as `EventList.build` sorts (time, ends first, insertion order). */
class RequestEvents {
  times = new Float64Array(64);
  deltas = new Float64Array(64);
  n = 0;
  pos = 0;
  request = 0;

  add(time: number, delta: number): void {
    if (this.n === this.times.length) {
      const times = new Float64Array(this.n * 2), deltas = new Float64Array(this.n * 2);
      times.set(this.times);
      deltas.set(this.deltas);
      this.times = times;
      this.deltas = deltas;
    }
    this.times[this.n] = time;
    this.deltas[this.n++] = delta;
  }

  /**
   * Sorts the events added, equal keys in the order added: an insertion sort, as a request's events come nearly
   * sorted (a chunk's start may fall a rounding unit before the previous chunk's end).
   */
  sort(): void {
    const t = this.times, d = this.deltas;
    for (let i = 1; i < this.n; i++) {
      const ti = t[i], di = d[i];
      let j = i;
      while (j > 0 && before(ti, di, t[j - 1], d[j - 1])) {
        t[j] = t[j - 1];
        d[j] = d[j - 1];
        j--;
      }
      t[j] = ti;
      d[j] = di;
    }
  }
}

/** Whether event (ta, da) sorts strictly before (tb, db) by time then ends first (insertion order aside). */
function before(ta: number, da: number, tb: number, db: number): boolean {
  const dt = ta - tb;
  if (dt !== 0 && dt === dt) return dt < 0;
  return (da > 0 ? 1 : 0) < (db > 0 ? 1 : 0);
}

/**
 * The per-request pre-pass of a merged curve: the requests with events, ordered by their first event (in the
 * merge's order), with that event's time and kind.
 */
interface MergePlan {
  readonly order: Uint32Array;
  readonly firstT: Float64Array;
  readonly firstStart: Uint8Array;
}

class MergeCursor implements StepCursor {
  readonly #emit: RequestEmitter;
  readonly #plan: MergePlan;
  readonly #snap: number;
  /** A binary heap of the requests being merged, by their current event. */
  #heap: RequestEvents[] = [];
  #free: RequestEvents[] = [];
  #pending = 0;
  #sum = 0;
  t = 0;
  v = 0;
  /** The largest |running sum| read so far. */
  maxAbs = 0;
  /** The most requests merged at once so far (the merge's memory: those requests' events). */
  peakMerging = 0;

  constructor(emit: RequestEmitter, plan: MergePlan, snap: number) {
    this.#emit = emit;
    this.#plan = plan;
    this.#snap = snap;
  }

  #less(a: RequestEvents, b: RequestEvents): boolean {
    const ta = a.times[a.pos], tb = b.times[b.pos];
    const dt = ta - tb;
    if (dt !== 0 && dt === dt) return dt < 0;
    const sa = a.deltas[a.pos] > 0 ? 1 : 0, sb = b.deltas[b.pos] > 0 ? 1 : 0;
    if (sa !== sb) return sa < sb;
    return a.request < b.request;
  }

  #push(e: RequestEvents): void {
    const h = this.#heap;
    let i = h.length;
    h.push(e);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.#less(e, h[p])) break;
      h[i] = h[p];
      i = p;
    }
    h[i] = e;
  }

  #siftDown(): void {
    const h = this.#heap, n = h.length, e = h[0];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && this.#less(h[c + 1], h[c])) c++;
      if (!this.#less(h[c], e)) break;
      h[i] = h[c];
      i = c;
    }
    h[i] = e;
  }

  /** Whether the next request not yet merged has the earliest event of all. */
  #pendingFirst(): boolean {
    const plan = this.#plan;
    if (this.#pending >= plan.order.length) return false;
    if (this.#heap.length === 0) return true;
    const r = plan.order[this.#pending], top = this.#heap[0];
    const dt = plan.firstT[r] - top.times[top.pos];
    if (dt !== 0 && dt === dt) return dt < 0;
    const st = top.deltas[top.pos] > 0 ? 1 : 0;
    if (plan.firstStart[r] !== st) return plan.firstStart[r] < st;
    return r < top.request;
  }

  next(): boolean {
    while (this.#pendingFirst()) {
      const r = this.#plan.order[this.#pending++];
      const e = this.#free.pop() ?? new RequestEvents();
      e.n = 0;
      e.pos = 0;
      e.request = r;
      this.#emit(r, e);
      e.sort();
      this.#push(e);
      if (this.#heap.length > this.peakMerging) this.peakMerging = this.#heap.length;
    }
    const h = this.#heap;
    if (h.length === 0) return false;
    const top = h[0];
    this.t = top.times[top.pos];
    this.#sum += top.deltas[top.pos];
    const abs = Math.abs(this.#sum);
    if (abs > this.maxAbs) this.maxAbs = abs;
    this.v = abs < this.#snap ? 0 : this.#sum;
    if (++top.pos < top.n) this.#siftDown();
    else {
      const last = h.pop()!;
      if (h.length > 0) {
        h[0] = last;
        this.#siftDown();
      }
      this.#free.push(top);
    }
    return true;
  }
}

/** A merged curve; its cursors tell the most requests they merged at once. */
export interface MergedCurve extends CurveSource {
  open(): StepCursor & { readonly peakMerging: number };
}

/**
 * A curve summed from `requests` requests' events (`emit` gives request i's), read by merging them: the steps of
 * `EventList.build` over every request's events added in request order, residues snapped alike. One read of the
 * requests orders them, one read of the merge finds the largest magnitude.
 */
export function mergedSource(requests: number, emit: RequestEmitter): MergedCurve {
  const firstT = new Float64Array(requests), firstStart = new Uint8Array(requests);
  const has: number[] = [];
  const e = new RequestEvents();
  let events = 0;
  for (let r = 0; r < requests; r++) {
    e.n = 0;
    emit(r, e);
    if (e.n === 0) continue;
    events += e.n;
    let best = 0;
    for (let i = 1; i < e.n; i++) if (before(e.times[i], e.deltas[i], e.times[best], e.deltas[best])) best = i;
    firstT[r] = e.times[best];
    firstStart[r] = e.deltas[best] > 0 ? 1 : 0;
    has.push(r);
  }
  const order = Uint32Array.from(has);
  order.sort((a, b) => firstT[a] - firstT[b] || firstStart[a] - firstStart[b] || a - b);
  const plan: MergePlan = { order, firstT, firstStart };
  let snap = 0;
  if (events > 0) {
    const probe = new MergeCursor(emit, plan, 0);
    while (probe.next());
    snap = 1e-9 * probe.maxAbs;
  }
  return { empty: events === 0, open: () => new MergeCursor(emit, plan, snap) };
}

/** Segments (value, positive duration) in time order, read again from the start at each call. */
export type SegmentSource = (emit: (v: number, d: number) => void) => void;

/** The segments `timeWeightedStats(f, ws, we)` weighs. */
export function windowSegments(f: CurveSource, ws: number, we: number): SegmentSource {
  return (emit) => {
    const c = f.open();
    const hold = (from: number, to: number, v: number) => {
      const d = Math.min(to, we) - Math.max(from, ws);
      if (d > 0) emit(v, d);
    };
    let v0 = 0, have = c.next();
    while (have && c.t <= ws) {
      v0 = c.v;
      have = c.next();
    }
    // The value held when the window opens, then every step inside it.
    hold(ws, have ? c.t : we, v0);
    while (have && c.t < we) {
      const t = c.t, v = c.v;
      have = c.next();
      hold(t, have ? c.t : we, v);
    }
  };
}

/** The segments `activeWeightedStats(rate, mask, ws, we)` weighs (`ws < we`). */
export function activeSegments(rate: CurveSource, mask: CurveSource, ws: number, we: number): SegmentSource {
  return (emit) => {
    const r = rate.open(), m = mask.open();
    let rHave = r.next(), mHave = m.next(), rv = 0, mv = 0;
    const advance = (g: number) => {
      while (rHave && r.t <= g) {
        rv = r.v;
        rHave = r.next();
      }
      while (mHave && m.t <= g) {
        mv = m.v;
        mHave = m.next();
      }
    };
    // The grid: ws, the distinct times of either curve inside (ws, we), we.
    let prev = ws;
    advance(ws);
    for (;;) {
      let g = we;
      if (rHave && r.t < g) g = r.t;
      if (mHave && m.t < g) g = m.t;
      const d = g - prev;
      if (d > 0 && mv > 0) emit(rv, d);
      if (g === we) break;
      advance(g);
      prev = g;
    }
  };
}

const QUANTILES = [0.5, 0.9, 0.95, 0.99] as const;
/** Histogram buckets (leading bits of a value): finer for a larger budget, 2^20 at most (4 MB of counts). */
const bucketBits = (budget: number) => Math.min(20, Math.max(10, Math.ceil(Math.log2(budget + 1)) + 6));
/** Segments kept at once for the percentiles (16 bytes each). */
export const DEFAULT_SEGMENT_BUDGET = 1 << 21;

const keyBuf = new Float64Array(1);
const keyWords = new Uint32Array(keyBuf.buffer);
/** The word holding the sign, exponent and leading mantissa bits on this host. */
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/** A bucket from a value's leading `bits`, non-decreasing in the value (−0 and +0 together). */
function bucketOf(v: number, bits: number): number {
  keyBuf[0] = v === 0 ? 0 : v;
  const hi = keyWords[HI];
  return (hi >= 0x80000000 ? ~hi : hi | 0x80000000) >>> (32 - bits);
}

/**
 * `weightedStats` of the segments: averaged over `total` ms, or over their summed duration when `total` is
 * undefined (the active variants). Reads the segments 2 + ⌈n / budget⌉ times at most.
 */
export function streamedStats(
  segments: SegmentSource,
  total: number | undefined,
  budget = DEFAULT_SEGMENT_BUDGET,
): SweepStats {
  let n = 0, weighted = 0, min = Infinity, max = -Infinity, held = 0;
  const bits = bucketBits(budget);
  // The segments themselves while they fit the budget (a short run's are summarized from them, as before); past
  // it, a histogram of their values instead.
  let vals = new Float64Array(1024), durs = new Float64Array(1024);
  let hist: Uint32Array | undefined;
  segments((v, d) => {
    weighted += v * d;
    if (v < min) min = v;
    if (v > max) max = v;
    held += d;
    if (hist !== undefined) hist[bucketOf(v, bits)]++;
    else if (n < budget) {
      if (n === vals.length) {
        const grown = Math.min(budget, 2 * n);
        const v2 = new Float64Array(grown), d2 = new Float64Array(grown);
        v2.set(vals);
        d2.set(durs);
        vals = v2;
        durs = d2;
      }
      vals[n] = v;
      durs[n] = d;
    } else {
      hist = new Uint32Array(1 << bits);
      for (let i = 0; i < n; i++) hist[bucketOf(vals[i], bits)]++;
      hist[bucketOf(v, bits)]++;
      vals = durs = new Float64Array(0);
    }
    n++;
  });
  if (n === 0 || (total === undefined && !(held > 0))) return ZERO_SWEEP_STATS;
  const over = total ?? held;
  if (hist === undefined) return weightedStats(vals, durs, n, over);
  const avg = weighted / over;
  const counts = hist;
  // Where each bucket's segments start in value order; `counts` becomes each bucket's next free place.
  const start = new Float64Array(counts.length + 1);
  for (let b = 0; b < counts.length; b++) start[b + 1] = start[b] + counts[b];
  // Candidates for each percentile: running sums within the rounding bound of its share of `held` (the sorted
  // total differs from the time-ordered one by at most 2n units in the last place, relatively).
  const tol = 1e-9 + 8 * n * 2 ** -53;
  const lo = QUANTILES.map((q) => q * held * (1 - tol)), hi = QUANTILES.map((q) => q * held * (1 + tol));
  const cand: { cum: number[]; v: number[]; done: boolean }[] = QUANTILES.map(() => ({ cum: [], v: [], done: false }));
  let spread = 0, cum = 0, last = 0, first = true;
  let order = new Uint32Array(0);
  for (let b0 = 0; b0 < counts.length;) {
    // The next range of buckets holding at most `budget` segments (one bucket at least).
    let b1 = b0 + 1;
    while (b1 < counts.length && start[b1 + 1] - start[b0] <= budget) b1++;
    const base = start[b0], count = start[b1] - base;
    if (count === 0 && !first) {
      b0 = b1;
      continue;
    }
    if (vals.length < count) {
      vals = new Float64Array(count);
      durs = new Float64Array(count);
    }
    for (let b = b0; b < b1; b++) counts[b] = start[b] - base;
    const withSpread = first;
    first = false;
    segments((v, d) => {
      if (withSpread) spread += d * (v - avg) ** 2;
      const b = bucketOf(v, bits);
      if (b >= b0 && b < b1) {
        const at = counts[b]++;
        vals[at] = v;
        durs[at] = d;
      }
    });
    // Each bucket in value order, its equal values in time order (a stable sort of a time-ordered slice).
    for (let b = b0; b < b1; b++) {
      const from = start[b] - base, to = start[b + 1] - base, len = to - from;
      if (len === 0) continue;
      let sorted = true;
      for (let i = from + 1; i < to && sorted; i++) sorted = !(vals[i] < vals[i - 1]);
      if (order.length < len) order = new Uint32Array(Math.max(len, 2 * order.length));
      const o = order.subarray(0, len);
      for (let i = 0; i < len; i++) o[i] = i;
      if (!sorted) o.sort((x, y) => vals[from + x] - vals[from + y] || x - y);
      for (let i = 0; i < len; i++) {
        const v = vals[from + o[i]];
        cum += durs[from + o[i]];
        last = v;
        for (let q = 0; q < QUANTILES.length; q++) {
          const c = cand[q];
          if (c.done || cum < lo[q]) continue;
          c.cum.push(cum);
          c.v.push(v);
          if (cum > hi[q]) c.done = true;
        }
      }
    }
    b0 = b1;
  }
  const acc = cum;
  const [p50, p90, p95, p99] = QUANTILES.map((q, j) => {
    const c = cand[j];
    for (let i = 0; i < c.cum.length; i++) if (!(c.cum[i] / acc < q)) return c.v[i];
    return last;
  });
  return { avg, min, max, p50, p90, p95, p99, std: Math.sqrt(spread / over) };
}
