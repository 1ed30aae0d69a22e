/**
 * GPU (DCGM) scrapes kept as columns for `window_summary.ts`: each scrape's time, and per counter or gauge series
 * (family × sample name × labels) the index of each scrape that had it and its value there, in growable
 * `Float64Array`s, plus the latest scrape's families (which name the series a summary reports). A run then keeps
 * 16 bytes per series per scrape, and one entry per series whatever its length, instead of every parsed scrape.
 * Histogram and summary families are not kept: the window summary reads counters and gauges only.
 */
import { type MetricFamily, seriesKey } from "./prometheus_text.ts";
import { F64Column } from "./series_store.ts";

export interface WindowPoints {
  /** Index (arrival order) of each scrape that had the series, ascending. */
  readonly scrape: F64Column;
  /** The value in that scrape, as parsed (NaN and infinities included). */
  readonly value: F64Column;
}

export class WindowStore {
  /** Each scrape's time, epoch ms, in arrival order. */
  readonly at = new F64Column();
  readonly #series = new Map<string, WindowPoints>();
  #last: readonly MetricFamily[] = [];

  /** Number of series kept. */
  get size(): number {
    return this.#series.size;
  }

  /** The latest scrape's families. */
  get lastFamilies(): readonly MetricFamily[] {
    return this.#last;
  }

  add(atMs: number, families: readonly MetricFamily[]): void {
    const index = this.at.length;
    this.at.push(atMs);
    for (const family of families) {
      if (family.type === "summary" || family.type === "histogram") continue;
      for (const sample of family.samples) {
        const key = WindowStore.key(family.name, sample.name, sample.labels);
        let points = this.#series.get(key);
        if (points === undefined) {
          points = { scrape: new F64Column(), value: new F64Column() };
          this.#series.set(key, points);
        }
        // A series written twice in one scrape (the parser refuses it): the first counts, as a lookup finds it.
        if (points.scrape.length > 0 && points.scrape.at(points.scrape.length - 1) === index) continue;
        points.scrape.push(index);
        points.value.push(sample.value);
      }
    }
    this.#last = families;
  }

  /** The points of one series, or undefined when no scrape had it. */
  points(family: string, sample: string, labels: Readonly<Record<string, string>>): WindowPoints | undefined {
    return this.#series.get(WindowStore.key(family, sample, labels));
  }

  static key(family: string, sample: string, labels: Readonly<Record<string, string>>): string {
    return `${family}\u0000${seriesKey(sample, labels)}`;
  }
}
