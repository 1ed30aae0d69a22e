/**
 * Server-metrics scrapes kept as columns: one entry per series (metric × label set) holding its scrape times and
 * values in growable `Float64Array`s, instead of every scrape's parsed families. A scrape every 333 ms for an hour
 * then costs 16 bytes per scalar series per scrape (plus 8 per histogram bucket), and the number of stored objects
 * stays the number of series, whatever the run's length.
 *
 * It keeps exactly what `server_metrics_summary.ts` reads: per series the family's name, type and help text (from the
 * scrape that first showed it), its labels, and per scrape its time and value — finite values only for counters and
 * gauges, and for histograms `sum`, `count` and each bucket's cumulative count keyed by `le` as written (NaN where a
 * scrape lacked that bucket). Series keep the order they first appeared in; points are kept in time order (a scrape
 * older than the last one, after a clock step, is inserted where it belongs, after any of equal time).
 */
import type { Labels, MetricFamily } from "./prometheus_text.ts";
import { seriesKey } from "./prometheus_text.ts";

export type StoredType = "counter" | "gauge" | "histogram" | "unknown";

/** A growable column of doubles. */
export class F64Column {
  #data: Float64Array;
  #length = 0;

  constructor(capacity = 16) {
    this.#data = new Float64Array(capacity);
  }

  get length(): number {
    return this.#length;
  }

  /** The bytes reserved (for memory accounting in tests and benchmarks). */
  get capacityBytes(): number {
    return this.#data.byteLength;
  }

  at(i: number): number {
    return this.#data[i];
  }

  /** Inserts `value` at `index` (`length` appends). */
  insert(index: number, value: number): void {
    if (this.#length === this.#data.length) {
      const grown = new Float64Array(this.#data.length * 2);
      grown.set(this.#data);
      this.#data = grown;
    }
    if (index < this.#length) this.#data.copyWithin(index + 1, index, this.#length);
    this.#data[index] = value;
    this.#length++;
  }

  set(i: number, value: number): void {
    this.#data[i] = value;
  }

  push(value: number): void {
    this.insert(this.#length, value);
  }
}

export interface ScalarSeries {
  readonly kind: "scalar";
  readonly name: string;
  readonly type: StoredType;
  readonly description: string;
  readonly labels: Labels;
  /** Scrape times (epoch ms), ascending, of the scrapes where the series had a finite value. */
  readonly at: F64Column;
  readonly value: F64Column;
}

export interface HistogramStoredSeries {
  readonly kind: "histogram";
  readonly name: string;
  readonly type: "histogram";
  readonly description: string;
  readonly labels: Labels;
  readonly at: F64Column;
  readonly sum: F64Column;
  readonly count: F64Column;
  /** Cumulative count per `le` label as written, one value per point; NaN where that scrape lacked the bucket. */
  readonly buckets: Map<string, F64Column>;
}

export type StoredSeries = ScalarSeries | HistogramStoredSeries;

/** Every series of one endpoint's scrapes, as columns. */
export class SeriesStore {
  readonly #series = new Map<string, StoredSeries>();

  /** The series in the order they first appeared. */
  series(): IterableIterator<StoredSeries> {
    return this.#series.values();
  }

  /** Number of series kept (the store's object count grows with this, not with the number of scrapes). */
  get size(): number {
    return this.#series.size;
  }

  /** Bytes reserved by every column (what grows with the number of scrapes). */
  columnBytes(): number {
    let bytes = 0;
    for (const s of this.#series.values()) {
      bytes += s.at.capacityBytes;
      if (s.kind === "scalar") bytes += s.value.capacityBytes;
      else {
        bytes += s.sum.capacityBytes + s.count.capacityBytes;
        for (const c of s.buckets.values()) bytes += c.capacityBytes;
      }
    }
    return bytes;
  }

  /** Adds one scrape's families at `atMs`. */
  add(atMs: number, families: readonly MetricFamily[]): void {
    for (const family of families) {
      if (family.type === "summary") continue;
      if (family.type === "histogram") {
        for (const h of family.histograms ?? []) {
          const key = `h\u0000${family.name}\u0000${seriesKey("", h.labels)}`;
          let s = this.#series.get(key) as HistogramStoredSeries | undefined;
          if (s === undefined) {
            s = {
              kind: "histogram",
              name: family.name,
              type: "histogram",
              description: family.help ?? "",
              labels: h.labels,
              at: new F64Column(),
              sum: new F64Column(),
              count: new F64Column(),
              buckets: new Map(),
            };
            this.#series.set(key, s);
          }
          const index = insertionIndex(s.at, atMs);
          const seen = new Set<string>();
          for (const b of h.buckets) {
            const le = b.leText ?? leText(b.le);
            let column = s.buckets.get(le);
            if (column === undefined) {
              // A bucket new to this series: the points before had none (read as 0, as a missing bucket).
              column = new F64Column();
              for (let i = 0; i < s.at.length; i++) column.push(NaN);
              s.buckets.set(le, column);
            }
            // A label written twice in one scrape: the last one counts.
            if (seen.has(le)) column.set(index, b.count);
            else column.insert(index, b.count);
            seen.add(le);
          }
          for (const [le, column] of s.buckets) if (!seen.has(le)) column.insert(index, NaN);
          s.at.insert(index, atMs);
          s.sum.insert(index, h.sum);
          s.count.insert(index, h.count);
        }
        continue;
      }
      const type: StoredType = family.type === "counter" ? "counter" : family.type === "untyped" ? "unknown" : "gauge";
      const name = type === "counter" ? family.name.replace(/_total$/, "") : family.name;
      for (const sample of family.samples) {
        const key = `s\u0000${family.name}\u0000${seriesKey(sample.name, sample.labels)}`;
        let s = this.#series.get(key) as ScalarSeries | undefined;
        if (s === undefined) {
          s = {
            kind: "scalar",
            name,
            type,
            description: family.help ?? "",
            labels: sample.labels,
            at: new F64Column(),
            value: new F64Column(),
          };
          this.#series.set(key, s);
        }
        if (!Number.isFinite(sample.value)) continue;
        const index = insertionIndex(s.at, atMs);
        s.at.insert(index, atMs);
        s.value.insert(index, sample.value);
      }
    }
  }
}

/** Where a point at `atMs` goes: after every point at or before it (a stable sort by time). */
function insertionIndex(at: F64Column, atMs: number): number {
  const n = at.length;
  if (n === 0 || at.at(n - 1) <= atMs) return n;
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at.at(mid) <= atMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function leText(bound: number): string {
  return bound === Infinity ? "+Inf" : String(bound);
}
