/**
 * The time-weighted statistics of `sweep_line.ts`, to the last bit, without holding a long run's curves: a curve is
 * a source that can be read again from its start (a step at a time, in time order), and the statistics read it a
 * few times, keeping only a bounded part of it at once.
 *
 * - A curve summed from per-request events is read by merging the requests' events (each request's few sorted
 *   locally) in the order {@linkcode EventList.build} sorts them — by time, ends before starts, then insertion
 *   order — so its running sum is the same sequence of additions; its 1e-9 residue snapping needs the curve's
 *   largest magnitude, found by one read first.
 * - The windows' segments (`timeWeightedStats`, `activeWeightedStats`) and a quotient of two curves
 *   (`divideSteps`) are computed as the curve is read, as those functions compute them from arrays; a rate's four
 *   statistics (effective, per user, and their active variants) share each read of it ({@linkcode rateStats}).
 * - The statistics (`weightedStats`): the average, extrema and active time in one read; the spread in the next;
 *   the percentiles walk the segments in value order (ties in time order) with the same running sum, a range of
 *   values at a time: a histogram of the values' leading bits (monotone in the value) splits the value order into
 *   ranges of at most `budget` segments, and each read keeps only the segments of one range, placed by bucket
 *   (time order within a bucket), each bucket then sorted as the whole was. A percentile is the first segment whose
 *   running sum reaches its fraction of the total, which is known only at the end: the segments whose running sum
 *   lies within a rounding bound of the fraction of the time-ordered total are kept as candidates and decided then.
 *
 * Memory: a read holds the requests being merged (those in flight at a time, with their events) and each merge's
 * order (4 bytes a request), and, per statistic, a histogram (up to 2^16 counts); one value range is walked at a time
 * (16 bytes a segment, the budget at most). With a scratch, the ranges are set aside by one read, and a single bucket
 * past the budget (a value held in millions of segments, or values that differ only in their low bits) is split by
 * its next bits and walked in parts within the budget. Without one, such a bucket is read whole. A curve within the
 * budget is summarized from its segments in one read, as before.
 */
import type { EventList, SweepStats } from "./sweep_line.ts";
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
  /** How many steps it has. */
  readonly steps: number;
  open(): StepCursor;
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
 * merge's order). Only the order is kept (4 bytes a request): the merge reads each request's first event when it
 * generates the request's events, just before it would add them.
 */
interface MergePlan {
  readonly order: Uint32Array;
}

class MergeCursor implements StepCursor {
  readonly #emit: RequestEmitter;
  readonly #plan: MergePlan;
  readonly #snap: number;
  /** A binary heap of the requests being merged, by their current event. */
  #heap: RequestEvents[] = [];
  #free: RequestEvents[] = [];
  #pending = 0;
  /** The next request of the plan's order, its events generated and sorted, not yet merged. */
  #ahead: RequestEvents | undefined;
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

  /**
   * Whether the next request not yet merged has the earliest event of all: its events are generated (once) to
   * compare its first with the heap's.
   */
  #pendingFirst(): boolean {
    let next = this.#ahead;
    if (next === undefined) {
      const order = this.#plan.order;
      if (this.#pending >= order.length) return false;
      next = this.#free.pop() ?? new RequestEvents();
      next.n = 0;
      next.pos = 0;
      next.request = order[this.#pending];
      this.#emit(next.request, next);
      next.sort();
      this.#ahead = next;
    }
    return this.#heap.length === 0 || this.#less(next, this.#heap[0]);
  }

  next(): boolean {
    while (this.#pendingFirst()) {
      this.#push(this.#ahead!);
      this.#ahead = undefined;
      this.#pending++;
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

/**
 * Sorts `order` (request indices, ascending) by their first event: time, then ends before starts, then index — a
 * stable merge sort on typed arrays (a comparator sort of a typed array copies it into the JS heap, twice its size
 * in tagged values, for a long run tens of megabytes of garbage per curve). Requests come nearly in order (they are
 * stored as they end), so the runs merged are long.
 */
export function sortByFirstEvent(order: Uint32Array, firstT: Float64Array, firstStart: Uint8Array): void {
  const n = order.length;
  const less = (a: number, b: number) => {
    const ta = firstT[a], tb = firstT[b];
    if (ta !== tb) return ta < tb;
    return firstStart[a] < firstStart[b];
  };
  const RUN = 32;
  for (let lo = 0; lo < n; lo += RUN) {
    const hi = Math.min(n, lo + RUN);
    for (let i = lo + 1; i < hi; i++) {
      const x = order[i];
      let j = i;
      while (j > lo && less(x, order[j - 1])) {
        order[j] = order[j - 1];
        j--;
      }
      order[j] = x;
    }
  }
  if (n <= RUN) return;
  let a: Uint32Array = order, b: Uint32Array = new Uint32Array(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width), hi = Math.min(n, lo + 2 * width);
      let i = lo, j = mid, k = lo;
      // Already in order across the seam: copy the pair of runs as it is.
      if (mid >= hi || !less(a[mid], a[mid - 1])) {
        b.set(a.subarray(lo, hi), lo);
        continue;
      }
      while (i < mid && j < hi) b[k++] = less(a[j], a[i]) ? a[j++] : a[i++];
      while (i < mid) b[k++] = a[i++];
      while (j < hi) b[k++] = a[j++];
    }
    const swap = a;
    a = b;
    b = swap;
  }
  if (a !== order) order.set(a);
}

/** A merged curve; its cursors tell the most requests they merged at once. */
export interface MergedCurve extends CurveSource {
  open(): StepCursor & { readonly peakMerging: number };
}

/**
 * A curve summed from `requests` requests' events (`emit` gives request i's), read by merging them: the steps of
 * `EventList.build` over every request's events added in request order, residues snapped alike. One read of the
 * requests orders them, one read of the merge finds the largest magnitude.
 *
 * The order is found through a heap of `window` requests (requests are stored as they end, so their first events come
 * nearly in order): 4 bytes a request are kept, the order itself. Where a request's first event lies more than the
 * window from its place (the heap would hand it out late), the requests are read again and sorted whole.
 */
export function mergedSource(requests: number, emit: RequestEmitter, window = PLAN_WINDOW): MergedCurve {
  const e = new RequestEvents();
  let events = 0, count = 0;
  const order = new Uint32Array(requests);
  const heap = new FirstEventHeap(Math.max(1, Math.min(window, requests)));
  let strayed = false, lastT = -Infinity, lastS = 0;
  const out = () => {
    const t = heap.t[0], st = heap.start[0];
    if (t < lastT || (t === lastT && st < lastS)) strayed = true;
    lastT = t;
    lastS = st;
    order[count++] = heap.pop();
  };
  for (let r = 0; r < requests; r++) {
    e.n = 0;
    emit(r, e);
    if (e.n === 0) continue;
    events += e.n;
    let best = 0;
    for (let i = 1; i < e.n; i++) if (before(e.times[i], e.deltas[i], e.times[best], e.deltas[best])) best = i;
    if (heap.size === heap.capacity) out();
    heap.push(e.times[best], e.deltas[best] > 0 ? 1 : 0, r);
  }
  while (heap.size > 0) out();
  if (strayed) {
    // Out of order beyond the window: every request's first event, sorted whole (13 bytes a request for a moment).
    const firstT = new Float64Array(requests), firstStart = new Uint8Array(requests);
    count = 0;
    for (let r = 0; r < requests; r++) {
      e.n = 0;
      emit(r, e);
      if (e.n === 0) continue;
      let best = 0;
      for (let i = 1; i < e.n; i++) if (before(e.times[i], e.deltas[i], e.times[best], e.deltas[best])) best = i;
      firstT[r] = e.times[best];
      firstStart[r] = e.deltas[best] > 0 ? 1 : 0;
      order[count++] = r;
    }
    sortByFirstEvent(order.subarray(0, count), firstT, firstStart);
  }
  const plan: MergePlan = { order: count === requests ? order : order.slice(0, count) };
  let snap = 0;
  if (events > 0) {
    const probe = new MergeCursor(emit, plan, 0);
    while (probe.next());
    snap = 1e-9 * probe.maxAbs;
  }
  return { empty: events === 0, steps: events, open: () => new MergeCursor(emit, plan, snap) };
}

/** Requests a merge's order is found through (13 bytes each, 208 KB). */
export const PLAN_WINDOW = 1 << 14;

/** A min-heap of requests by their first event: time, then ends before starts, then index. */
class FirstEventHeap {
  readonly t: Float64Array;
  readonly start: Uint8Array;
  readonly request: Uint32Array;
  size = 0;
  constructor(readonly capacity: number) {
    this.t = new Float64Array(capacity);
    this.start = new Uint8Array(capacity);
    this.request = new Uint32Array(capacity);
  }

  #less(i: number, t: number, s: number, r: number): boolean {
    const ti = this.t[i];
    if (ti !== t) return ti < t;
    const si = this.start[i];
    if (si !== s) return si < s;
    return this.request[i] < r;
  }

  #set(i: number, t: number, s: number, r: number): void {
    this.t[i] = t;
    this.start[i] = s;
    this.request[i] = r;
  }

  push(t: number, s: number, r: number): void {
    this.#siftUp(this.size++, t, s, r);
  }

  #siftUp(at: number, t: number, s: number, r: number): void {
    let i = at;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.#less(p, t, s, r)) break;
      this.#set(i, this.t[p], this.start[p], this.request[p]);
      i = p;
    }
    this.#set(i, t, s, r);
  }

  /** Removes the least and returns its request. */
  pop(): number {
    const top = this.request[0];
    const n = --this.size;
    const t = this.t[n], s = this.start[n], r = this.request[n];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && this.#less(c + 1, this.t[c], this.start[c], this.request[c])) c++;
      if (!this.#less(c, t, s, r)) break;
      this.#set(i, this.t[c], this.start[c], this.request[c]);
      i = c;
    }
    if (n > 0) this.#set(i, t, s, r);
    return top;
  }
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

const QUANTILES = [0.5, 0.9, 0.95, 0.99] as const;
/**
 * Histogram buckets (leading bits of a value): finer for a larger budget, 2^16 at most (256 KB of counts, five
 * statistics' at once): a bucket past the budget is split further, so finer buckets would buy fewer splits with
 * memory held for the whole statistic.
 */
const bucketBits = (budget: number) => Math.min(16, Math.max(10, Math.ceil(Math.log2(budget + 1)) + 6));
/** Segments kept at once for the percentiles (16 bytes each, and as much for sorting them: 4 MB in all). */
export const DEFAULT_SEGMENT_BUDGET = 1 << 17;

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

/** Bits a value range past the budget is split by at a time (a histogram of 2^16 counts, 256 KB). */
const SPLIT_BITS = 16;

/**
 * `width` bits of a value's order-keeping 64-bit key (`#sortSlice`'s: sign, exponent and mantissa, negatives
 * inverted) from bit `at` (0 the highest), for values that share every bit above `at` (the same sign).
 */
function keyBits(v: number, at: number, width: number): number {
  keyBuf[0] = v === 0 ? 0 : v;
  let l = keyWords[1 - HI], h = keyWords[HI];
  if (h >= 0x80000000) {
    l = ~l;
    h = ~h;
  }
  const end = at + width, mask = width >= 32 ? 0xffffffff : (1 << width) - 1;
  if (end <= 32) return (h >>> (32 - end)) & mask;
  if (at >= 32) return (l >>> (64 - end)) & mask;
  // Straddling the two words: the high word's low bits, then the low word's high bits.
  return (((h << (end - 32)) | (l >>> (64 - end))) & mask) >>> 0;
}

/** Removes and returns the smallest of `held` with at least `n` elements; undefined when none fits. */
function takeSmallestFit<T extends { readonly length: number }>(held: T[], n: number): T | undefined {
  let best = -1;
  for (let i = 0; i < held.length; i++) {
    const len = held[i].length;
    if (len >= n && (best < 0 || len < held[best].length)) best = i;
  }
  return best < 0 ? undefined : held.splice(best, 1)[0];
}

/**
 * Buffers handed from one statistic to the next: a finished statistic's value range and histogram are reused by the
 * next group's rather than left for the collector (a dead buffer of an old object lingers until a full collection,
 * so each group's would add to the process's memory).
 */
export class BufferPool {
  #floats: Float64Array[] = [];
  #counts: Uint32Array[] = [];

  /** A buffer of at least `n` numbers (contents unspecified). */
  float64(n: number): Float64Array {
    return takeSmallestFit(this.#floats, n) ?? new Float64Array(n);
  }

  /** `n` zeroed counts. */
  uint32(n: number): Uint32Array {
    const i = this.#counts.findIndex((c) => c.length === n);
    return i < 0 ? new Uint32Array(n) : this.#counts.splice(i, 1)[0].fill(0);
  }

  /** A buffer of at least `n` counts (contents unspecified): the smallest held that fits, or a new one of `n`. */
  uint32AtLeast(n: number): Uint32Array {
    return takeSmallestFit(this.#counts, n) ?? new Uint32Array(n);
  }

  release(...buffers: (Float64Array | Uint32Array | undefined)[]): void {
    for (const b of buffers) {
      if (b === undefined || b.length === 0) continue;
      if (b instanceof Float64Array) keepLargest(this.#floats, b, MAX_POOLED_FLOATS);
      else keepLargest(this.#counts, b, MAX_POOLED_COUNTS);
    }
  }
}

/**
 * Pooled buffers at most: a statistic's value range (two) and the histograms of a group's five statistics with a
 * sort's two buffers. A buffer that no longer fits a range (the ranges grew) goes to the collector rather than
 * staying pooled beside the larger one that replaced it.
 */
const MAX_POOLED_FLOATS = 2;
const MAX_POOLED_COUNTS = 7;

/** Adds `b` to `pool`, then drops the smallest buffers beyond `max`. */
function keepLargest<T extends { readonly length: number }>(pool: T[], b: T, max: number): void {
  pool.push(b);
  if (pool.length <= max) return;
  pool.sort((x, y) => y.length - x.length);
  pool.length = max;
}

const NONE = new Float64Array(0);
const NO_COUNTS: Uint32Array = new Uint32Array(0);

/**
 * Somewhere to set segments aside (a file at a run's end, written synchronously): bytes appended and read back by
 * their offset, given up with `close`.
 */
export interface Scratch {
  /** Appends `bytes` (copied); their offset, or undefined when they could not be written (the caller keeps them). */
  append(bytes: Uint8Array): number | undefined;
  /** Fills `into` with the bytes appended at `offset`. */
  read(offset: number, into: Uint8Array): void;
  close(): void;
}

/** Opens a scratch for one statistic, or undefined when there is none (the value ranges are then read again). */
export type ScratchFactory = () => Scratch | undefined;

/** Doubles per set-aside block: 512 segments (value, duration), 8 KB. */
const BLOCK = 1024;

/**
 * A value range of a statistic with many: its buckets `[b0, b1)` and its segments set aside in time order, as blocks
 * appended to the scratch (their offsets; a block the scratch could not take is kept) and the block being filled.
 * Memory: 8 KB per range and 8 bytes per 512 segments, whatever the run's length otherwise.
 */
class SetAside {
  readonly blocks: (number | Float64Array)[] = [];
  fill = new Float64Array(BLOCK);
  n = 0;
  constructor(readonly b0: number, readonly b1: number, readonly count: number) {}

  push(v: number, d: number, scratch: Scratch): void {
    const fill = this.fill;
    fill[this.n++] = v;
    fill[this.n++] = d;
    if (this.n < BLOCK) return;
    const at = scratch.append(new Uint8Array(fill.buffer));
    if (at !== undefined) this.blocks.push(at);
    else {
      this.blocks.push(fill);
      this.fill = new Float64Array(BLOCK);
    }
    this.n = 0;
  }

  /** Each segment set aside, in the order pushed. */
  forEach(scratch: Scratch, fn: (v: number, d: number) => void): void {
    const read = new Float64Array(BLOCK), bytes = new Uint8Array(read.buffer);
    for (const block of this.blocks) {
      let data: Float64Array = read;
      if (typeof block === "number") scratch.read(block, bytes);
      else data = block;
      for (let i = 0; i < BLOCK; i += 2) fn(data[i], data[i + 1]);
    }
    for (let i = 0; i < this.n; i += 2) fn(this.fill[i], this.fill[i + 1]);
  }

  /** Segments set aside so far. */
  get length(): number {
    return (this.blocks.length * BLOCK + this.n) / 2;
  }
}

/**
 * One statistic's state over the reads of its segments (see the module comment): `take` each segment of a read in
 * time order, then `endRead()`, until `done`.
 */
export class StreamedStats {
  readonly #total: number | undefined;
  readonly #budget: number;
  readonly #bits: number;
  #result: SweepStats | undefined;
  #n = 0;
  #weighted = 0;
  #min = Infinity;
  #max = -Infinity;
  #held = 0;
  #avg = 0;
  #spread = 0;
  #firstRound = true;
  /** The segments while they fit the budget (a short run's are summarized from them, as before). */
  #vals: Float64Array;
  #durs: Float64Array;
  readonly #pool: BufferPool;
  /** Past the budget, a histogram of the values; then each bucket's next free place in the round. */
  #hist: Uint32Array | undefined;
  /** Reading the value ranges (after the first read). */
  #rounds = false;
  #b0 = 0;
  #b1 = 0;
  #order: Uint32Array = NO_COUNTS;
  #keys: Uint32Array = NO_COUNTS;
  readonly #digits = new Uint32Array(2049);
  #cum = 0;
  #last = 0;
  #lo: number[] = [];
  #hi: number[] = [];
  #cand: { cum: number[]; v: number[]; done: boolean }[] = [];
  readonly #scratch: ScratchFactory | undefined;
  #open: Scratch | undefined;
  /** With a scratch: every value range, filled by the second read and walked from there (no read per range). */
  #ranges: SetAside[] | undefined;
  #rangeOf: Uint16Array | Int32Array | undefined;

  /**
   * `total`: the ms averaged over, or undefined for the segments' summed duration (the active variants);
   * `expected`: at most how many segments there are, when known (more than the budget: none are kept in the first
   * read, only their histogram); `scratch`: where the second read sets each value range's segments aside, so that a
   * long run's curve is read twice, not once per range (without it, or with few ranges, the ranges are read again).
   */
  constructor(
    total: number | undefined,
    budget = DEFAULT_SEGMENT_BUDGET,
    expected = 0,
    pool = new BufferPool(),
    scratch?: ScratchFactory,
  ) {
    this.#total = total;
    this.#scratch = scratch;
    this.#budget = budget;
    this.#bits = bucketBits(budget);
    this.#pool = pool;
    if (expected > budget) {
      this.#hist = pool.uint32(1 << this.#bits);
      this.#vals = this.#durs = NONE;
    } else {
      const first = Math.max(1, Math.min(expected, budget) || 1024);
      this.#vals = pool.float64(first);
      this.#durs = pool.float64(first);
    }
  }

  get done(): boolean {
    return this.#result !== undefined;
  }

  /** The statistics, once done. */
  get result(): SweepStats {
    if (this.#result === undefined) throw new Error("statistics read before their last pass");
    return this.#result;
  }

  take(v: number, d: number): void {
    if (!this.#rounds) this.#takeFirst(v, d);
    else {
      if (this.#firstRound) this.#spread += d * (v - this.#avg) ** 2;
      const b = bucketOf(v, this.#bits);
      const ranges = this.#ranges;
      if (ranges !== undefined) ranges[this.#rangeOf![b]].push(v, d, this.#open!);
      else if (b >= this.#b0 && b < this.#b1) {
        const at = this.#hist![b]++;
        this.#vals[at] = v;
        this.#durs[at] = d;
      }
    }
  }

  #takeFirst(v: number, d: number): void {
    this.#weighted += v * d;
    if (v < this.#min) this.#min = v;
    if (v > this.#max) this.#max = v;
    this.#held += d;
    const n = this.#n++;
    if (this.#hist !== undefined) this.#hist[bucketOf(v, this.#bits)]++;
    else if (n < this.#budget) {
      if (n === this.#vals.length) {
        const grown = Math.min(this.#budget, 2 * n);
        const v2 = this.#pool.float64(grown), d2 = this.#pool.float64(grown);
        v2.set(this.#vals);
        d2.set(this.#durs);
        this.#pool.release(this.#vals, this.#durs);
        this.#vals = v2;
        this.#durs = d2;
      }
      this.#vals[n] = v;
      this.#durs[n] = d;
    } else {
      const hist = this.#hist = this.#pool.uint32(1 << this.#bits);
      for (let i = 0; i < n; i++) hist[bucketOf(this.#vals[i], this.#bits)]++;
      hist[bucketOf(v, this.#bits)]++;
      this.#pool.release(this.#vals, this.#durs);
      this.#vals = this.#durs = NONE;
    }
  }

  endRead(): void {
    if (this.#result !== undefined) return;
    if (!this.#rounds) this.#endFirst();
    else if (this.#ranges !== undefined) this.#walkSetAside();
    else {
      this.#walkRound();
      this.#firstRound = false;
      this.#nextRound();
    }
  }

  #endFirst(): void {
    const n = this.#n, held = this.#held;
    if (n === 0 || (this.#total === undefined && !(held > 0))) {
      this.#result = ZERO_SWEEP_STATS;
      this.#pool.release(this.#hist, this.#vals, this.#durs);
      this.#hist = undefined;
      this.#vals = this.#durs = NONE;
      return;
    }
    const over = this.#total ?? held;
    const hist = this.#hist;
    if (hist === undefined) {
      this.#result = weightedStats(this.#vals, this.#durs, n, over);
      this.#pool.release(this.#vals, this.#durs);
      this.#vals = this.#durs = NONE;
      return;
    }
    this.#avg = this.#weighted / over;
    this.#rounds = true;
    // Candidates for each percentile: running sums within the rounding bound of its share of `held` (the sorted
    // total differs from the time-ordered one by at most 2n units in the last place, relatively).
    const tol = 1e-9 + 8 * n * 2 ** -53;
    this.#lo = QUANTILES.map((q) => q * held * (1 - tol));
    this.#hi = QUANTILES.map((q) => q * held * (1 + tol));
    this.#cand = QUANTILES.map(() => ({ cum: [], v: [], done: false }));
    this.#b1 = 0;
    if (!this.#planSetAside()) this.#nextRound();
  }

  /**
   * With a scratch and more than a few value ranges: the ranges (as `#nextRound` would take them, in turn), each
   * with columns on the scratch that the next read fills. False when the ranges are to be read one at a time.
   */
  #planSetAside(): boolean {
    if (this.#scratch === undefined) return false;
    const hist = this.#hist!, budget = this.#budget;
    const spans: { b0: number; b1: number; count: number }[] = [];
    for (let b1 = 0;;) {
      let b0 = b1;
      while (b0 < hist.length && hist[b0] === 0) b0++;
      if (b0 >= hist.length) break;
      let count = hist[b0];
      b1 = b0 + 1;
      while (b1 < hist.length && count + hist[b1] <= budget) count += hist[b1++];
      spans.push({ b0, b1, count });
    }
    // Up to three ranges cost no more reads than setting them aside and reading them back, unless one is a bucket
    // past the budget, which only a range set aside is walked in parts of.
    if (spans.length <= 3 && spans.every((s) => s.count <= budget)) return false;
    const scratch = this.#scratch();
    if (scratch === undefined) return false;
    this.#open = scratch;
    // Each bucket's range: 2 bytes a bucket for up to 65,536 ranges (a 30-minute run's curves have a few hundred).
    const rangeOf = this.#rangeOf = spans.length <= 0x10000
      ? new Uint16Array(hist.length)
      : new Int32Array(hist.length);
    this.#ranges = spans.map((s, r) => {
      rangeOf.fill(r, s.b0, s.b1);
      return new SetAside(s.b0, s.b1, s.count);
    });
    return true;
  }

  /** Each value range set aside by the last read, placed by bucket and walked as a read of it would have been. */
  #walkSetAside(): void {
    const hist = this.#hist!, ranges = this.#ranges!;
    this.#ranges = this.#rangeOf = undefined;
    this.#firstRound = false;
    try {
      for (const r of ranges) {
        if (r.length !== r.count) {
          throw new Error(`a curve gave ${r.length} segments in a value range where it gave ${r.count} before`);
        }
        this.#b0 = r.b0;
        this.#b1 = r.b1;
        if (r.count > this.#budget) {
          // One bucket past the budget (one range holds several only within it): split by the values' next bits.
          this.#walkLarge(r, this.#bits);
          continue;
        }
        this.#reserve(r.count);
        for (let b = r.b0, at = 0; b < r.b1; b++) {
          const c = hist[b];
          hist[b] = at;
          at += c;
        }
        const bits = this.#bits, vals = this.#vals, durs = this.#durs;
        r.forEach(this.#open!, (v, d) => {
          const at = hist[bucketOf(v, bits)]++;
          vals[at] = v;
          durs[at] = d;
        });
        this.#walkRound();
      }
    } finally {
      this.#open?.close();
      this.#open = undefined;
    }
    // Past the last range every bucket is empty: the result.
    this.#nextRound();
  }

  /** The next range of buckets holding at most the budget's segments (one bucket at least), or the result. */
  #nextRound(): void {
    const hist = this.#hist!;
    let b0 = this.#b1;
    while (b0 < hist.length && hist[b0] === 0) b0++;
    if (b0 >= hist.length) {
      const acc = this.#cum;
      const [p50, p90, p95, p99] = QUANTILES.map((q, j) => {
        const c = this.#cand[j];
        for (let i = 0; i < c.cum.length; i++) if (!(c.cum[i] / acc < q)) return c.v[i];
        return this.#last;
      });
      const over = this.#total ?? this.#held;
      this.#result = {
        avg: this.#avg,
        min: this.#min,
        max: this.#max,
        p50,
        p90,
        p95,
        p99,
        std: Math.sqrt(this.#spread / over),
      };
      this.#pool.release(this.#hist, this.#vals, this.#durs, this.#order, this.#keys);
      this.#hist = undefined;
      this.#vals = this.#durs = NONE;
      this.#order = this.#keys = NO_COUNTS;
      return;
    }
    let b1 = b0 + 1, count = hist[b0];
    while (b1 < hist.length && count + hist[b1] <= this.#budget) count += hist[b1++];
    if (this.#vals.length < count) {
      this.#pool.release(this.#vals, this.#durs);
      this.#vals = this.#pool.float64(count);
      this.#durs = this.#pool.float64(count);
    }
    // Each bucket's count becomes its next free place in the round (its end once the read has placed them).
    for (let b = b0, at = 0; b < b1; b++) {
      const c = hist[b];
      hist[b] = at;
      at += c;
    }
    this.#b0 = b0;
    this.#b1 = b1;
  }

  /** Each bucket of the round in value order, its equal values in time order (a stable sort of a time-ordered slice). */
  #walkRound(): void {
    const ends = this.#hist!;
    for (let b = this.#b0; b < this.#b1; b++) {
      const from = b > this.#b0 ? ends[b - 1] : 0, len = ends[b] - from;
      if (len > 0) this.#walkSlice(from, len);
    }
  }

  /**
   * The segments at `vals`/`durs` `[from, from + len)`, in time order, walked in value order (a stable sort of the
   * slice, which holds a range of values no other slice of the read shares), the running sum carried on.
   */
  #walkSlice(from: number, len: number): void {
    const vals = this.#vals, durs = this.#durs;
    const lo = this.#lo, hi = this.#hi, cand = this.#cand;
    // The smallest running sum at which a percentile not yet decided takes candidates.
    const nextLo = () => {
      let m = Infinity;
      for (let q = 0; q < QUANTILES.length; q++) if (!cand[q].done && lo[q] < m) m = lo[q];
      return m;
    };
    let watch = nextLo();
    const to = from + len;
    let sorted = true;
    for (let i = from + 1; i < to && sorted; i++) sorted = !(vals[i] < vals[i - 1]);
    const o = sorted ? undefined : this.#sortSlice(from, len);
    let cum = this.#cum;
    for (let i = 0; i < len; i++) {
      const at = from + (o === undefined ? i : o[i]);
      cum += durs[at];
      if (cum < watch) continue;
      const v = vals[at];
      for (let q = 0; q < QUANTILES.length; q++) {
        const c = cand[q];
        if (c.done || cum < lo[q]) continue;
        c.cum.push(cum);
        c.v.push(v);
        if (cum > hi[q]) c.done = true;
      }
      watch = nextLo();
    }
    this.#last = vals[from + (o === undefined ? len - 1 : o[len - 1])];
    this.#cum = cum;
  }

  /** Value-range buffers for at least `n` segments. */
  #reserve(n: number): void {
    if (this.#vals.length >= n) return;
    this.#pool.release(this.#vals, this.#durs);
    this.#vals = this.#pool.float64(n);
    this.#durs = this.#pool.float64(n);
  }

  /**
   * The segments of the set-aside range `r` (values sharing the key's bits above `at`), walked in value order, equal
   * values in time order, holding at most the budget's segments: within it they are gathered and sorted as one slice;
   * past it, a histogram of their next {@linkcode SPLIT_BITS} bits splits them into parts within the budget, which one
   * more read sets aside in turn, each then walked the same way (a part of a single value is walked in time order, a
   * budget at a time). A range is thus read back from the scratch two or three times, whatever its size.
   */
  #walkLarge(r: SetAside, at: number): void {
    const scratch = this.#open!, budget = this.#budget, count = r.length;
    const width = Math.min(SPLIT_BITS, 64 - at);
    let first = NaN, one = true;
    if (count > budget) {
      r.forEach(scratch, (v) => {
        if (first !== first) first = v;
        else if (!(v === first)) one = false;
      });
    }
    if (count <= budget || one || width <= 0) {
      // Within the budget, or one value (−0 and +0 alike, as the sort keys them: time order is its sorted order).
      this.#reserve(Math.min(count, budget));
      const vals = this.#vals, durs = this.#durs;
      let n = 0;
      r.forEach(scratch, (v, d) => {
        vals[n] = v;
        durs[n++] = d;
        if (n === budget && count > budget) {
          this.#walkSlice(0, n);
          n = 0;
        }
      });
      if (n > 0) this.#walkSlice(0, n);
      return;
    }
    const parts = this.#pool.uint32(1 << width);
    r.forEach(scratch, (v) => parts[keyBits(v, at, width)]++);
    // Consecutive parts within the budget together (one part at least), each set aside by one more read.
    const spanOf = new Uint16Array(parts.length);
    const spans: SetAside[] = [];
    for (let p1 = 0; p1 < parts.length;) {
      let p0 = p1;
      while (p0 < parts.length && parts[p0] === 0) p0++;
      if (p0 >= parts.length) break;
      let n = parts[p0];
      p1 = p0 + 1;
      while (p1 < parts.length && n + parts[p1] <= budget) n += parts[p1++];
      spanOf.fill(spans.length, p0, p1);
      spans.push(new SetAside(p0, p1, n));
    }
    this.#pool.release(parts);
    r.forEach(scratch, (v, d) => spans[spanOf[keyBits(v, at, width)]].push(v, d, scratch));
    for (const span of spans) {
      if (span.length !== span.count) throw new Error(`a value range read back ${span.length} of ${span.count}`);
      this.#walkLarge(span, at + width);
    }
  }

  /**
   * The slice's positions by value, equal values in position order: a stable radix sort of the values' order-keeping
   * bits below those the bucket shares (11-bit digits), −0 keyed as 0 since it equals it.
   */
  #sortSlice(from: number, len: number): Uint32Array {
    // The sort's buffers come from the pool and go back to it with the statistic's others (one set for a group).
    if (this.#order.length < 2 * len) {
      this.#pool.release(this.#order);
      this.#order = this.#pool.uint32AtLeast(Math.max(2 * len, 2 * this.#order.length));
    }
    if (this.#keys.length < 2 * len) {
      this.#pool.release(this.#keys);
      this.#keys = this.#pool.uint32AtLeast(Math.max(2 * len, 2 * this.#keys.length));
    }
    let a = this.#order.subarray(0, len), t = this.#order.subarray(len, 2 * len);
    const kLo = this.#keys.subarray(0, len), kHi = this.#keys.subarray(len, 2 * len);
    const vals = this.#vals;
    for (let i = 0; i < len; i++) {
      const v = vals[from + i];
      keyBuf[0] = v === 0 ? 0 : v;
      let l = keyWords[1 - HI], h = keyWords[HI];
      if (h >= 0x80000000) {
        l = ~l;
        h = ~h;
      }
      kLo[i] = l >>> 0;
      kHi[i] = h >>> 0;
      a[i] = i;
    }
    const count = this.#digits;
    // The bits below the bucket's, 11 at a time from the lowest.
    for (let shift = 0; shift < 64 - this.#bits; shift += 11) {
      const digit = shift + 11 <= 32
        ? (i: number) => (kLo[i] >>> shift) & 0x7ff
        : shift >= 32
        ? (i: number) => (kHi[i] >>> (shift - 32)) & 0x7ff
        : (i: number) => ((kLo[i] >>> shift) | (kHi[i] << (32 - shift))) & 0x7ff;
      count.fill(0);
      for (let i = 0; i < len; i++) count[digit(a[i]) + 1]++;
      for (let d = 1; d < count.length; d++) count[d] += count[d - 1];
      for (let i = 0; i < len; i++) t[count[digit(a[i])]++] = a[i];
      const swap = a;
      a = t;
      t = swap;
    }
    return a;
  }
}

/**
 * Reads segments for several statistics at once (`read` gives each statistic's segments of one read to its
 * sink) until every one is done; a statistic done early ignores the rest.
 */
export function summarizeTogether(
  read: (sinks: readonly ((v: number, d: number) => void)[]) => void,
  stats: readonly StreamedStats[],
): void {
  const idle = () => {};
  while (stats.some((s) => !s.done)) {
    read(stats.map((s) => (s.done ? idle : (v: number, d: number) => s.take(v, d))));
    for (const s of stats) s.endRead();
  }
}

/**
 * `weightedStats` of the segments: averaged over `total` ms, or over their summed duration when `total` is
 * undefined (the active variants). Reads the segments once within the budget, else 1 + (number of value ranges).
 */
export function streamedStats(
  segments: SegmentSource,
  total: number | undefined,
  budget = DEFAULT_SEGMENT_BUDGET,
  expected = 0,
  pool = new BufferPool(),
  scratch?: ScratchFactory,
): SweepStats {
  const stats = new StreamedStats(total, budget, expected, pool, scratch);
  summarizeTogether(([sink]) => segments(sink), [stats]);
  return stats.result;
}

/** `windowSegments` fed a curve's distinct step times in order, each with the value held from it. */
class WindowFeed {
  #opened = false;
  #closed = false;
  #v0 = 0;
  #prev = false;
  #pt = 0;
  #pv = 0;
  constructor(
    private readonly ws: number,
    private readonly we: number,
    private readonly emit: (v: number, d: number) => void,
  ) {}

  #hold(from: number, to: number, v: number): void {
    const d = Math.min(to, this.we) - Math.max(from, this.ws);
    if (d > 0) this.emit(v, d);
  }

  step(t: number, v: number): void {
    if (this.#closed) return;
    if (!this.#opened) {
      if (t <= this.ws) {
        this.#v0 = v;
        return;
      }
      this.#opened = true;
      this.#hold(this.ws, t, this.#v0);
    } else if (this.#prev) this.#hold(this.#pt, t, this.#pv);
    if (t < this.we) {
      this.#prev = true;
      this.#pt = t;
      this.#pv = v;
    } else this.#closed = true;
  }

  end(): void {
    if (!this.#opened) this.#hold(this.ws, this.we, this.#v0);
    else if (this.#prev && !this.#closed) this.#hold(this.#pt, this.we, this.#pv);
  }
}

/**
 * The segments `activeWeightedStats(rate, mask, ws, we)` weighs (`ws < we`), fed the distinct times of the rate and
 * mask together with the values each holds there.
 */
class ActiveFeed {
  #closed = false;
  #g: number;
  #r = 0;
  #m = 0;
  constructor(
    private readonly ws: number,
    private readonly we: number,
    private readonly emit: (v: number, d: number) => void,
  ) {
    this.#g = ws;
  }

  grid(g: number, r: number, m: number): void {
    if (this.#closed) return;
    if (g > this.ws) {
      const d = (g < this.we ? g : this.we) - this.#g;
      if (d > 0 && this.#m > 0) this.emit(this.#r, d);
      if (g >= this.we) {
        this.#closed = true;
        return;
      }
      this.#g = g;
    }
    this.#r = r;
    this.#m = m;
  }

  end(): void {
    if (this.#closed) return;
    const d = this.we - this.#g;
    if (d > 0 && this.#m > 0) this.emit(this.#r, d);
  }
}

/** A rate curve's statistics over `[ws, we]` with its phase concurrency `mask`, as their functions give them. */
export interface RateStats {
  /** `timeWeightedStats(rate)` */
  readonly rate: SweepStats;
  /** `timeWeightedStats(mask)` */
  readonly mask: SweepStats;
  /** `timeWeightedStats(divideSteps(rate, mask))` (zeros unless asked for) */
  readonly perUser: SweepStats;
  /** `activeWeightedStats(rate, mask)` */
  readonly activeRate: SweepStats;
  /** `activeWeightedStats(divideSteps(rate, mask), mask)` (zeros unless asked for) */
  readonly activePerUser: SweepStats;
}

/**
 * A rate curve's statistics (the decode throughput's: effective, per user, and their active variants) and its
 * mask's, from the same reads: each read merges the two curves once and feeds every statistic, so the curves are
 * read 1 + (value ranges of the largest statistic) times rather than that for each. `perUser`: also the per-user
 * quotient's two statistics.
 */
export function rateStats(
  rate: CurveSource,
  mask: CurveSource,
  ws: number,
  we: number,
  perUser: boolean,
  budget = DEFAULT_SEGMENT_BUDGET,
  pool = new BufferPool(),
  scratch?: ScratchFactory,
): RateStats {
  const none = () => undefined;
  // A window's segments are at most its curves' steps, plus one.
  const stat = (on: boolean, total: number | undefined, steps = rate.steps + mask.steps) =>
    on ? new StreamedStats(total, budget, steps + 1, pool, scratch) : undefined;
  const window = !(we - ws <= 0), both = window && !rate.empty && !mask.empty;
  const twRate = stat(window && !rate.empty, we - ws, rate.steps);
  const twMask = stat(window && !mask.empty, we - ws, mask.steps);
  const twUser = stat(both && perUser, we - ws);
  const actRate = stat(both, undefined), actUser = stat(both && perUser, undefined);
  const all = [twRate, twMask, twUser, actRate, actUser];
  const used = all.filter((x) => x !== undefined);
  summarizeTogether((sinks) => {
    const sink = (x: StreamedStats | undefined) => (x === undefined ? none : sinks[used.indexOf(x)]);
    const w1 = twRate && new WindowFeed(ws, we, sink(twRate)), wm = twMask && new WindowFeed(ws, we, sink(twMask));
    const w2 = twUser && new WindowFeed(ws, we, sink(twUser));
    const a1 = actRate && new ActiveFeed(ws, we, sink(actRate)), a2 = actUser && new ActiveFeed(ws, we, sink(actUser));
    const r = rate.open(), m = mask.open();
    let rHave = r.next(), mHave = m.next(), rv = 0, mv = 0;
    // Every distinct time of either curve, each curve's value there (its last step at or before it).
    while (rHave || mHave) {
      let g = rHave ? r.t : Infinity;
      if (mHave && m.t < g) g = m.t;
      let rStep = false, mStep = false;
      while (rHave && r.t <= g) {
        rv = r.v;
        rStep = true;
        rHave = r.next();
      }
      while (mHave && m.t <= g) {
        mv = m.v;
        mStep = true;
        mHave = m.next();
      }
      if (rStep) w1?.step(g, rv);
      if (mStep) wm?.step(g, mv);
      if (both) {
        const q = mv > 0 ? rv / mv : 0;
        w2?.step(g, q);
        a1?.grid(g, rv, mv);
        a2?.grid(g, q, mv);
      }
      // Past the window nothing more is weighed.
      if (g >= we) break;
    }
    for (const feed of [w1, wm, w2, a1, a2]) feed?.end();
  }, used);
  const result = (x: StreamedStats | undefined) => x?.result ?? ZERO_SWEEP_STATS;
  return {
    rate: result(twRate),
    mask: result(twMask),
    perUser: result(twUser),
    activeRate: result(actRate),
    activePerUser: result(actUser),
  };
}
