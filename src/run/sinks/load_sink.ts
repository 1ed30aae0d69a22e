/**
 * Honest load: what the client actually did against what it was asked to do, from the profiling records.
 * - `target_rate`: the requested rate (request rate or user-centric rate), null for closed loops;
 * - `achieved_rate`: (n − 1) / (last start − first start), requests per second between the first and the last send
 *   (n sends make n − 1 gaps, so a perfect schedule gives exactly the target);
 * - `schedule_lag_ms`: the distribution of `start − scheduled` over requests that had a due time (the JSON's
 *   `schedule_lateness` block; here its p50/p99/max);
 * - `peak_in_flight`: most requests between their start and their end at any instant; `avg_in_flight`:
 *   Σ(end − start) / (last end − first start), the time-weighted mean over the active span;
 * - `cancelled_requests`: records cancelled by `--request-cancellation-rate` or the end of a grace period (code 499).
 * The client "could not hold the schedule" when it sent below 90 % of the target rate (with ≥ 20 requests), or
 * when requests were typically late: schedule-lag p90 above max(5 ms, half the mean gap).
 */
import type { RequestRecord } from "../../records/request_record.ts";
import { ColumnReader, type ColumnStore, Float64Column } from "../../metrics/float64_column.ts";
import { computeStats } from "../../metrics/stats.ts";
import { columnStats } from "../../metrics/column_stats.ts";
import type { RecordSink } from "../record_sink.ts";

export interface LoadReport {
  readonly requests: number;
  readonly targetRate: number | null;
  readonly achievedRate: number | null;
  readonly scheduleLagMs:
    | { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number }
    | null;
  readonly peakInFlight: number;
  readonly avgInFlight: number;
  readonly cancelledRequests: number;
  /** Why the schedule was not held, when it was not. */
  readonly warning?: string;
}

/** A run's times: an array, or a column (read a segment at a time when it spilled). */
type Times = Float64Array | Float32Array | Float64Column;

const readerOf = (t: Times): ColumnReader => (t instanceof Float64Column ? t.reader(2) : ColumnReader.of(t));

/**
 * The report of requests with these start/end/due times (ms); `targetRate` in req/s. The columns are read in order,
 * a page at a time; the peak in flight sorts their keys through a window of {@linkcode SORT_WINDOW} values (1 MB),
 * as records arrive nearly in time order, and only a run whose requests stray further from it holds 16 bytes per
 * request for a moment (the sorted copies).
 */
export function loadReport(
  starts: Times,
  ends: Times,
  lags: Times,
  targetRate: number | undefined,
  cancelled: number,
  sortWindow = SORT_WINDOW,
): LoadReport {
  const n = starts.length;
  const start = readerOf(starts), end = readerOf(ends);
  let first = Infinity, last = -Infinity, lastEnd = -Infinity, busy = 0;
  for (let i = 0; i < n; i++) {
    const s = start.at(i), e = end.at(i);
    first = Math.min(first, s);
    last = Math.max(last, s);
    lastEnd = Math.max(lastEnd, e);
    busy += Math.max(0, e - s);
  }
  const startAt = (i: number) => start.at(i), endAt = (i: number) => end.at(i);
  const peak = peakInFlight(n, startAt, endAt, sortWindow) ?? peakInFlight(n, startAt, endAt, n) ?? 0;
  const achievedRate = n >= 2 && last > first ? (n - 1) / ((last - first) / 1000) : null;
  const lag = lags instanceof Float64Column ? columnStats(lags) : computeStats(lags);
  const scheduleLagMs = lag ? { p50: lag.p50, p90: lag.p90, p99: lag.p99, max: lag.max } : null;
  let warning: string | undefined;
  if (targetRate !== undefined && achievedRate !== null && n >= 20 && achievedRate < 0.9 * targetRate) {
    warning = `the client sent ${achievedRate.toFixed(2)} req/s against a target of ${targetRate} req/s ` +
      `(${(achievedRate / targetRate * 100).toFixed(0)} %)`;
  } else if (targetRate !== undefined && scheduleLagMs !== null && scheduleLagMs.p90 > Math.max(5, 500 / targetRate)) {
    warning = `requests went out late: schedule lag p90 ${scheduleLagMs.p90.toFixed(1)} ms, ` +
      `p99 ${scheduleLagMs.p99.toFixed(1)} ms`;
  }
  return {
    requests: n,
    targetRate: targetRate ?? null,
    achievedRate,
    scheduleLagMs,
    peakInFlight: peak,
    avgInFlight: n > 0 && lastEnd > first ? busy / (lastEnd - first) : 0,
    cancelledRequests: cancelled,
    ...(warning === undefined ? {} : { warning }),
  };
}

/** Keys sorted through a window by default: 65,536 values (512 KB) for the starts, as many for the ends. */
export const SORT_WINDOW = 1 << 16;

/**
 * Most requests in flight: a sweep over the start times (+1) and the end times (−1) in ascending order, an end first
 * at equal times (a request that ends as another starts does not overlap it). Each column's times are sorted by a
 * heap holding `window` of them (a value at most that many places from its sorted place comes out in order);
 * undefined when one strays further (the output would go down).
 */
function peakInFlight(
  n: number,
  startKey: (i: number) => number,
  endKey: (i: number) => number,
  window: number,
): number | undefined {
  const s = new WindowSort(n, startKey, window), e = new WindowSort(n, endKey, window);
  let level = 0, peak = 0, sHave = s.next(), eHave = e.next();
  while (sHave || eHave) {
    if (!eHave || (sHave && s.value < e.value)) {
      level++;
      sHave = s.next();
    } else {
      level--;
      eHave = e.next();
    }
    if (level > peak) peak = level;
  }
  return s.strayed || e.strayed ? undefined : peak;
}

/** `n` keys in ascending order through a min-heap of at most `window` (see `peakInFlight`). */
class WindowSort {
  readonly #heap: Float64Array;
  #size = 0;
  #read = 0;
  value = -Infinity;
  /** A key came out below the one before it: it was further than the window from its place. */
  strayed = false;

  constructor(readonly n: number, readonly key: (i: number) => number, window: number) {
    this.#heap = new Float64Array(Math.max(1, Math.min(n, window)));
  }

  next(): boolean {
    if (this.strayed) return false;
    const h = this.#heap;
    while (this.#size < h.length && this.#read < this.n) this.#push(this.key(this.#read++));
    if (this.#size === 0) return false;
    const top = h[0];
    const last = h[--this.#size];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= this.#size) break;
      if (c + 1 < this.#size && h[c + 1] < h[c]) c++;
      if (!(h[c] < last)) break;
      h[i] = h[c];
      i = c;
    }
    h[i] = last;
    if (top < this.value) {
      this.strayed = true;
      return false;
    }
    this.value = top;
    return true;
  }

  #push(v: number): void {
    const h = this.#heap;
    let i = this.#size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!(v < h[p])) break;
      h[i] = h[p];
      i = p;
    }
    h[i] = v;
  }
}

/** Collects the profiling records' send times for `loadReport`. */
export class LoadSink implements RecordSink {
  readonly name = "load";
  readonly #starts: Float64Column;
  readonly #ends: Float64Column;
  readonly #lags: Float64Column;
  #cancelled = 0;

  /** `store`: where long columns hand their segments (see `Float64Column`). */
  constructor(store?: ColumnStore) {
    this.#starts = new Float64Column(1024, false, store);
    this.#ends = new Float64Column(1024, false, store);
    this.#lags = new Float64Column(1024, false, store);
  }

  arrived(record: RequestRecord): void {
    if (record.phase !== "profiling") return;
    this.#starts.push(record.startAt);
    this.#ends.push(record.endAt);
    const lag = record.scheduledAt === undefined ? NaN : record.startAt - record.scheduledAt;
    if (Number.isFinite(lag)) this.#lags.push(lag);
    if (record.cancelled) this.#cancelled++;
  }

  report(targetRate: number | undefined): LoadReport {
    return loadReport(this.#starts, this.#ends, this.#lags, targetRate, this.#cancelled);
  }
}
