/**
 * What the charts of one run draw, reduced from its per-request JSONL in one streaming pass and bounded memory
 * whatever the run's length: the TTFT, ITL and latency distributions (`value_distribution.ts`), sampled scatter
 * points (`point_sample.ts`), and throughput and requests in flight over time (`time_grid.ts`). Only successful
 * requests feed the distributions and scatters; every request counts in flight. The statistics a report prints come
 * from the summary export, never from these reductions.
 *
 * Chunk arrival times are rebuilt from each record: the first chunk at `start + TTFT`, each later one at the previous
 * one plus its `inter_chunk_latency` gap (kept within the request's start and end), a request's output tokens
 * spread evenly over its chunks; a record without TTFT counts its tokens at its end.
 */
import { type RecordQuery, type RecordSource, scanRecords, type StreamedRecord } from "./record_stream.ts";
import { recordsPathOf } from "./run_files.ts";
import { ValueDistribution, type ValueDistributionState } from "./value_distribution.ts";
import { PointSample, type PointSampleState } from "./point_sample.ts";
import { recordHash } from "./bottom_k.ts";
import { TimeGrid, type TimeGridState, type TimeSeries } from "./time_grid.ts";
import type { Histogram } from "./chart_data.ts";
import { readInParts } from "./parallel_records.ts";

/** One value's distribution, ready to draw. */
export interface DistributionData {
  readonly count: number;
  readonly histogram: Histogram;
  /** `[value, % of values ≤ value]`. */
  readonly cdf: readonly [number, number][];
}

/** Scatter points, ready to draw, and how many there were in all. */
export interface ScatterData {
  readonly total: number;
  readonly points: readonly [number, number][];
}

/** The chart data of one run. Times are seconds since the series' origin (`series.originMs`). */
export interface RunChartData {
  /** Profiling records read. */
  readonly records: number;
  readonly ttft?: DistributionData;
  readonly itl?: DistributionData;
  readonly latency?: DistributionData;
  /** `[send time (s), TTFT (ms)]`. */
  readonly ttftOverTime?: ScatterData;
  /** `[send time (s), ITL (ms)]`. */
  readonly itlOverTime?: ScatterData;
  /** `[output tokens, latency (ms)]`. */
  readonly latencyVsLength?: ScatterData;
  readonly series?: TimeSeries;
}

/** Sizes of the reductions (tests make them small to reach their large-run behaviour with few records). */
export interface ChartReductionLimits {
  readonly exactValues?: number;
  readonly scatterPoints?: number;
  readonly gridBuckets?: number;
}

/** The metrics the charts read of each record. */
const CHART_METRICS = [
  "time_to_first_token",
  "inter_token_latency",
  "request_latency",
  "output_sequence_length",
  "output_token_count",
];
const [TTFT, ITL, LATENCY, OSL, OUTPUT_COUNT] = [0, 1, 2, 3, 4];

/** A reduction as plain data (what a Worker posts back). */
export interface ChartReducerState {
  readonly records: number;
  readonly ttft: ValueDistributionState;
  readonly itl: ValueDistributionState;
  readonly latency: ValueDistributionState;
  readonly ttftOverTime: PointSampleState;
  readonly itlOverTime: PointSampleState;
  readonly latencyVsLength: PointSampleState;
  readonly grid: TimeGridState;
}

/** The running reduction; {@link finish} turns it into chart data. */
export class ChartReducer {
  readonly ttft: ValueDistribution;
  readonly itl: ValueDistribution;
  readonly latency: ValueDistribution;
  readonly ttftOverTime: PointSample;
  readonly itlOverTime: PointSample;
  readonly latencyVsLength: PointSample;
  readonly grid: TimeGrid;
  records = 0;

  constructor(limits: ChartReductionLimits = {}) {
    this.ttft = new ValueDistribution(limits.exactValues);
    this.itl = new ValueDistribution(limits.exactValues);
    this.latency = new ValueDistribution(limits.exactValues);
    this.ttftOverTime = new PointSample(limits.scatterPoints);
    this.itlOverTime = new PointSample(limits.scatterPoints);
    this.latencyVsLength = new PointSample(limits.scatterPoints);
    this.grid = new TimeGrid(limits.gridBuckets);
  }

  add(r: StreamedRecord): void {
    this.records++;
    const start = r.startNs / 1e6;
    const end = r.endNs / 1e6;
    this.grid.addRequest(start, end);
    if (r.failed) return;
    this.grid.addCompletion(end);
    const v = r.values;
    const ttft = v[TTFT], itl = v[ITL], latency = v[LATENCY];
    const tokens = v[OSL] ?? v[OUTPUT_COUNT];
    const hash = recordHash(r.startNs, r.endNs);
    if (ttft !== undefined) {
      this.ttft.add(ttft);
      this.ttftOverTime.add(start, ttft, hash);
    }
    if (itl !== undefined) {
      this.itl.add(itl);
      this.itlOverTime.add(start, itl, hash);
    }
    if (latency !== undefined) {
      this.latency.add(latency);
      if (tokens !== undefined) this.latencyVsLength.add(tokens, latency, hash);
    }
    if (tokens === undefined) return;
    if (ttft === undefined) {
      this.grid.addTokens(end, tokens);
      return;
    }
    const gaps = r.chunkGapsMs;
    if (gaps === undefined && this.grid.sameBucket(start, end)) {
      // Every chunk arrived between the send and the end: in that one bucket, whatever the gaps.
      this.grid.addTokens(start, tokens);
      return;
    }
    const perChunk = tokens / ((gaps?.length ?? 0) + 1);
    const last = Math.max(start, end);
    let t = start + ttft;
    this.grid.addTokens(Math.min(last, Math.max(start, t)), perChunk);
    for (let i = 0; gaps !== undefined && i < gaps.length; i++) {
      t += gaps[i];
      this.grid.addTokens(Math.min(last, Math.max(start, t)), perChunk);
    }
  }

  /**
   * What to read of each record: the chunk gaps only of requests that span more than one bucket of the time grid
   * (the others' tokens all count in their one bucket).
   */
  query(): RecordQuery {
    return {
      metrics: CHART_METRICS,
      chunkGaps: (startNs, endNs) => !this.grid.sameBucket(startNs / 1e6, endNs / 1e6),
    };
  }

  state(): ChartReducerState {
    return {
      records: this.records,
      ttft: this.ttft.state(),
      itl: this.itl.state(),
      latency: this.latency.state(),
      ttftOverTime: this.ttftOverTime.state(),
      itlOverTime: this.itlOverTime.state(),
      latencyVsLength: this.latencyVsLength.state(),
      grid: this.grid.state(),
    };
  }

  /** Adds the reduction of the records that come after this one's in the file. */
  merge(later: ChartReducerState): void {
    this.records += later.records;
    this.ttft.merge(later.ttft);
    this.itl.merge(later.itl);
    this.latency.merge(later.latency);
    this.ttftOverTime.merge(later.ttftOverTime);
    this.itlOverTime.merge(later.itlOverTime);
    this.latencyVsLength.merge(later.latencyVsLength);
    this.grid.merge(later.grid);
  }

  finish(): RunChartData {
    const series = this.grid.series();
    const origin = series?.originMs ?? 0;
    const dist = (d: ValueDistribution): DistributionData | undefined =>
      d.count === 0 ? undefined : { count: d.count, histogram: d.histogram(), cdf: d.cdf() };
    const scatter = (s: PointSample, overTime: boolean): ScatterData | undefined =>
      s.seen === 0 ? undefined : {
        total: s.seen,
        points: overTime ? s.points().map(([x, y]) => [(x - origin) / 1000, y]) : s.points(),
      };
    return {
      records: this.records,
      ttft: dist(this.ttft),
      itl: dist(this.itl),
      latency: dist(this.latency),
      ttftOverTime: scatter(this.ttftOverTime, true),
      itlOverTime: scatter(this.itlOverTime, true),
      latencyVsLength: scatter(this.latencyVsLength, false),
      series,
    };
  }
}

/** How a reduction is run. */
export interface ReduceOptions {
  /** Sizes of the reductions. */
  readonly limits?: ChartReductionLimits;
  /** Threads reading parts of a large file at once. @default one per core for files of 64 MiB and more */
  readonly workers?: number;
}

/** Reduces the records of a part of a file (or of the whole source) to a {@linkcode ChartReducer}. */
export async function reduceRange(
  source: RecordSource,
  limits: ChartReductionLimits,
  range?: { readonly start: number; readonly end: number },
): Promise<{ reducer: ChartReducer; lines: number }> {
  const reducer = new ChartReducer(limits);
  const lines = await scanRecords(source, reducer.query(), (r) => reducer.add(r), range);
  return { reducer, lines };
}

/**
 * Reduces the records of `source` (a JSONL path or byte stream) to chart data in one pass; a large file is read in
 * parts by Workers at once, and their reductions merged in file order (the same data as one pass gives).
 */
export async function reduceRunRecords(source: RecordSource, options: ReduceOptions = {}): Promise<RunChartData> {
  const limits = options.limits ?? {};
  if (typeof source === "string") {
    const merged = await readInParts<ChartReducerState>(source, { job: "charts", limits }, options.workers);
    if (merged !== undefined) {
      const reducer = new ChartReducer(limits);
      for (const part of merged) reducer.merge(part);
      return reducer.finish();
    }
  }
  return (await reduceRange(source, limits)).reducer.finish();
}

/**
 * The chart data of the run in `dir` (its per-request JSONL found by its manifest, else by AIPerf's name, or
 * `path`), or undefined when the run has none (e.g. `--export-level summary`); `workers` as `reduceRunRecords`.
 * @throws {ReportError} naming the file (and line) when it cannot be read or a line is not a record.
 */
export async function readRunChartData(
  dir: string,
  path?: string,
  workers?: number,
): Promise<RunChartData | undefined> {
  const file = path ?? await recordsPathOf(dir);
  try {
    return await reduceRunRecords(file, { workers });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}
