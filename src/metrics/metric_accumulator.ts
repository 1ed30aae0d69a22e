/**
 * Accumulates records into column-wise float64 storage (≈ 8 bytes per record metric value, no per-record
 * objects retained) and turns them into a `RunSummary` with exact statistics at the end.
 *
 * Successful records feed the record and aggregate metrics; failed ones (an `error`, or `cancelled`) feed
 * only the `errorOnly` metrics and the error summary — as in AIPerf.
 */
import { didStream } from "./did_stream.ts";
import type { ProcessedRecord } from "../records/request_record.ts";
import { ColumnReader, type ColumnStore, Float64Column } from "./float64_column.ts";
import type { GoodputEvaluator } from "./goodput.ts";
import type {
  AggregateContext,
  AggregateMetricDef,
  DerivedInputs,
  DerivedMetricDef,
  MetricDef,
  RecordMetricDef,
  RecordMetrics,
  RecordValue,
} from "./metric_def.ts";
import { RecordRow, RowLayout } from "./record_row.ts";
import type { ErrorDetails, ErrorSummaryEntry, LiveSnapshot, MetricResult, RunSummary } from "./run_summary.ts";
import type { Stats } from "./stats.ts";
import { columnErrorAdjustedStats, columnStats } from "./column_stats.ts";
import { SWEEP_METRIC_SPECS, SweepColumns, sweepStatsByGroup } from "./sweep_line_metrics.ts";
import type { ScratchFactory } from "./sweep_stream.ts";

export interface MetricAccumulatorOptions {
  /** Epoch ms at run-clock 0 (`RunClock.timeOriginMs`), for wall-clock timestamp metrics. @default 0 */
  readonly timeOriginMs?: number;
  /** From `resolveGoodput()`; without it the goodput metrics have no value. @default undefined */
  readonly goodput?: GoodputEvaluator;
  /** Values reserved per column up front. @default 1024 */
  readonly initialCapacity?: number;
  /**
   * Summarize the time-weighted metrics (`effective_*`, `active_*`, `tokens_in_flight`). They replay every request's
   * intervals and chunks at the end; a generated multi-million-record directory (`scripts/gen/large_run.ts`) leaves
   * them out. @default true
   */
  readonly timeWeighted?: boolean;
  /**
   * Where the columns hand their full segments, so that a long run's memory stays flat (`column_spill.ts`); without
   * one every value stays in memory. @default undefined
   */
  readonly store?: ColumnStore;
  /** Values a column holds in memory before a segment goes to `store`. @default DEFAULT_SPILL_AT */
  readonly spillAt?: number;
  /**
   * Where a time-weighted statistic with many value ranges sets them aside at the end (`sweep_stream.ts`); without
   * one its curve is read once per range. @default undefined
   */
  readonly scratch?: ScratchFactory;
  /** Segments a time-weighted percentile keeps at once (`sweep_stream.ts`). @default DEFAULT_SEGMENT_BUDGET */
  readonly sweepBudget?: number;
}

/** What the run knows beyond its records when it summarizes them. */
export interface SummarizeOptions {
  /**
   * The profiling phase's window in seconds (phase start → last response), the denominator of every
   * throughput as in AIPerf 0.13; without it throughputs divide by `benchmark_duration`.
   */
  readonly observationSec?: number;
  /** The same window in epoch ms, over which the time-weighted metrics are summarized; without it they span
   * the first request's start to the last request's end. */
  readonly windowEpochMs?: { readonly start: number; readonly end: number };
}

interface RecordSlot {
  readonly def: RecordMetricDef;
  readonly column: Float64Column;
}

interface AggregateSlot {
  readonly def: AggregateMetricDef;
  value: number;
  seen: boolean;
}

/** The error recorded for a cancelled request that carries no error of its own (AIPerf uses code 499). */
const CANCELLED: ErrorDetails = { code: 499, type: "RequestCancellationError", message: "Request was cancelled" };

function resultOf(def: MetricDef, data: { stats: Stats } | { value: number }): MetricResult {
  return {
    tag: def.tag,
    header: def.header,
    ...(def.shortHeader === undefined ? {} : { shortHeader: def.shortHeader }),
    unit: def.unit,
    ...(def.consoleUnit === undefined ? {} : { consoleUnit: def.consoleUnit }),
    kind: def.kind,
    flags: def.flags,
    displayOrder: def.displayOrder,
    consoleGroup: def.consoleGroup ?? (def.flags.noConsole ? "none" : "llm"),
    ...data,
  };
}

function allFinite(values: readonly number[]): boolean {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return false;
  return true;
}

/** How a row of another accumulator's layout maps onto this one's slots. */
interface ForeignLayout {
  readonly layout: RowLayout;
  /** Per slot of this accumulator's layout, the row's slot holding the same metric (-1: none). */
  readonly slots: Int32Array;
  /** The row's `view` holds every value this accumulator's aggregates read. */
  readonly viewCovers: boolean;
}

/** The "(error-adjusted)" rows come after every other row of the main table, as in AIPerf. */
const ERROR_ADJUSTED_ORDER = 1_000_000;
/** Their order among themselves: AIPerf's computation order (request latency first). */
const ERROR_ADJUSTED_RANK: readonly string[] = [
  "request_latency",
  "time_to_first_token",
  "time_to_second_token",
  "time_to_first_output_token",
  "decode_duration",
  "inter_token_latency",
];

export class MetricAccumulator {
  readonly #metrics: readonly MetricDef[];
  readonly #timeOriginMs: number;
  readonly #ctx: AggregateContext;
  readonly #okRecord: RecordSlot[] = [];
  readonly #errRecord: RecordSlot[] = [];
  readonly #okAggregate: AggregateSlot[] = [];
  readonly #errAggregate: AggregateSlot[] = [];
  readonly #derived: DerivedMetricDef[] = [];
  readonly #errors = new Map<string, { error: ErrorDetails; count: number }>();
  readonly #lateness: Float64Column;
  readonly #sweep: SweepColumns;
  /** The `inter_chunk_latency` column (kept in arrival order: the time-weighted metrics replay it). */
  readonly #gaps: Float64Column | undefined;
  /**
   * One reused row per kind of record (succeeded, failed), refilled by `measure`: see record_row.ts. `fold` of a row
   * of this layout reads it by slot; another accumulator's row (the warmup's, a timeslice's) maps through its slots.
   */
  readonly #okRow: RecordRow;
  readonly #errRow: RecordRow;
  /** Per slot, whether some metric reads its value by tag (so `measure` keeps it in the row's view). */
  readonly #okInput: Uint8Array;
  readonly #errInput: Uint8Array;
  /** The slots of the values `fold` reads itself, in the succeeded layout (-1: not measured in this run). */
  readonly #latencySlot: number;
  readonly #ttftSlot: number;
  readonly #islSlot: number;
  readonly #oslSlot: number;
  /** The last foreign layouts `fold` was given rows of, and how they map (a run has one or two). */
  #foreign: ForeignLayout[] = [];
  #successCount = 0;
  #errorCount = 0;
  readonly #timeWeighted: boolean;
  readonly #scratch: ScratchFactory | undefined;
  readonly #sweepBudget: number | undefined;
  #okFirstStart = Infinity;
  #okLastEnd = -Infinity;
  #anyFirstStart = Infinity;
  #anyLastEnd = -Infinity;

  /**
   * @param metrics the run's metrics in topological order, as returned by `selectMetrics()`.
   */
  constructor(metrics: readonly MetricDef[], options: MetricAccumulatorOptions = {}) {
    this.#metrics = metrics;
    this.#timeOriginMs = options.timeOriginMs ?? 0;
    this.#timeWeighted = options.timeWeighted ?? true;
    this.#scratch = options.scratch;
    this.#sweepBudget = options.sweepBudget;
    this.#ctx = options.goodput === undefined ? {} : { isGood: options.goodput };
    const capacity = options.initialCapacity ?? 1024;
    let gaps: Float64Column | undefined;
    const { store, spillAt } = options;
    this.#lateness = new Float64Column(16, false, store, spillAt);
    this.#sweep = new SweepColumns(store, spillAt);
    for (const def of metrics) {
      if (def.kind === "record") {
        const column = new Float64Column(capacity, def.flags.list === true, store, spillAt);
        (def.flags.errorOnly ? this.#errRecord : this.#okRecord).push({ def, column });
        if (def.tag === "inter_chunk_latency" && !def.flags.errorOnly) gaps = column;
      } else if (def.kind === "aggregate") {
        const start = def.fold === "min" ? Infinity : def.fold === "max" ? -Infinity : 0;
        (def.flags.errorOnly ? this.#errAggregate : this.#okAggregate).push({ def, value: start, seen: false });
      } else {
        this.#derived.push(def);
      }
    }
    this.#gaps = gaps;
    // Inputs: what each record and aggregate metric reads by tag; every value when goodput SLOs read them.
    const inputsOf = (defs: readonly MetricDef[]) =>
      options.goodput === undefined
        ? defs.flatMap((def) => [...def.requires, ...(def.reads ?? [])])
        : metrics.map((def) => def.tag);
    const okDefs = [...this.#okRecord.map((s) => s.def), ...this.#okAggregate.map((s) => s.def)];
    const errDefs = [...this.#errRecord.map((s) => s.def), ...this.#errAggregate.map((s) => s.def)];
    const okLayout = new RowLayout(this.#okRecord.map((s) => s.def.tag), inputsOf(okDefs));
    const errLayout = new RowLayout(this.#errRecord.map((s) => s.def.tag), inputsOf(errDefs));
    this.#okRow = new RecordRow(okLayout);
    this.#errRow = new RecordRow(errLayout);
    this.#okInput = Uint8Array.from(okLayout.tags, (tag) => okLayout.inputs.has(tag) ? 1 : 0);
    this.#errInput = Uint8Array.from(errLayout.tags, (tag) => errLayout.inputs.has(tag) ? 1 : 0);
    this.#latencySlot = okLayout.slotOf("request_latency");
    this.#ttftSlot = okLayout.slotOf("time_to_first_token");
    this.#islSlot = okLayout.slotOf("input_sequence_length");
    this.#oslSlot = okLayout.slotOf("output_sequence_length");
  }

  /**
   * Computes one record's metric values, folds them into the run, and returns a copy of them (record metrics only,
   * in computation order; metrics that do not apply are absent).
   */
  add(record: ProcessedRecord): RecordMetrics {
    const row = this.measure(record);
    this.fold(record, row);
    return row.toObject();
  }

  /**
   * One record's record-metric values, in computation order, without folding them into the run: a record bus measures
   * each record once and hands the row to every sink (this accumulator's `fold` among them). Non-finite values are
   * dropped (list metrics keep their finite elements). The row is this accumulator's, refilled by the next call.
   */
  measure(record: ProcessedRecord): RecordRow {
    const failed = record.error !== undefined || record.cancelled;
    const slots = failed ? this.#errRecord : this.#okRecord;
    const row = failed ? this.#errRow : this.#okRow;
    const input = failed ? this.#errInput : this.#okInput;
    // A response that did not stream (one body, or one event carrying many tokens) has no first token apart from
    // its last: it is kept out of TTFT, ITL and every other streaming metric.
    const streamed = didStream(record);
    const nums = row.nums, lists = row.lists, present = row.present;
    // What a metric's `compute` reads: the values computed before it, by tag (only those some metric reads).
    const view = row.view as Record<string, RecordValue | undefined>;
    present.fill(0);
    for (let i = 0; i < slots.length; i++) {
      const def = slots[i].def;
      let v: RecordValue | undefined;
      if (streamed || !def.flags.streamingOnly) {
        v = def.compute(record, view as RecordMetrics);
        if (typeof v === "number") {
          if (!Number.isFinite(v)) v = undefined;
        } else if (v !== undefined && !allFinite(v)) v = v.filter(Number.isFinite);
      }
      if (v === undefined) {
        nums[i] = NaN;
        lists[i] = undefined;
      } else {
        if (typeof v === "number") {
          nums[i] = v;
          lists[i] = undefined;
        } else {
          nums[i] = NaN;
          lists[i] = v;
        }
        present[i >>> 5] |= 1 << (i & 31);
      }
      if (input[i] === 1) view[def.tag] = v;
    }
    return row;
  }

  /** The mapping of a row of another layout onto this accumulator's (made once per layout). */
  #foreignOf(layout: RowLayout, failed: boolean): ForeignLayout {
    for (const f of this.#foreign) if (f.layout === layout) return f;
    const own = failed ? this.#errRow.layout : this.#okRow.layout;
    const f: ForeignLayout = {
      layout,
      slots: Int32Array.from(own.tags, (tag) => layout.slotOf(tag)),
      viewCovers: [...own.inputs].every((tag) => layout.inputs.has(tag)),
    };
    if (this.#foreign.length >= 8) this.#foreign.shift();
    this.#foreign.push(f);
    return f;
  }

  /**
   * Folds a record and the values `measure` gave for it (a row of any accumulator's, or values keyed by tag) into the
   * run's columns, aggregates and counts.
   */
  fold(record: ProcessedRecord, values: RecordRow | RecordMetrics): void {
    const failed = record.error !== undefined || record.cancelled;
    const slots = failed ? this.#errRecord : this.#okRecord;
    let byTag: RecordMetrics;
    let latency: RecordValue | undefined, ttft: RecordValue | undefined;
    let isl: RecordValue | undefined, osl: RecordValue | undefined;
    if (values instanceof RecordRow) {
      const own = values.layout === (failed ? this.#errRow.layout : this.#okRow.layout);
      const foreign = own ? undefined : this.#foreignOf(values.layout, failed);
      const nums = values.nums, lists = values.lists;
      for (let i = 0; i < slots.length; i++) {
        const j = foreign === undefined ? i : foreign.slots[i];
        if (j < 0) continue;
        const list = lists[j];
        if (list !== undefined) slots[i].column.pushAll(list);
        else {
          const n = nums[j];
          if (n === n) slots[i].column.push(n);
        }
      }
      byTag = foreign === undefined || foreign.viewCovers ? values.view : values.toObject();
      if (!failed) {
        const at = (slot: number) =>
          slot < 0 ? undefined : values.value(foreign === undefined ? slot : foreign.slots[slot]);
        latency = at(this.#latencySlot);
        ttft = at(this.#ttftSlot);
        isl = at(this.#islSlot);
        osl = at(this.#oslSlot);
      }
    } else {
      for (let i = 0; i < slots.length; i++) {
        const { def, column } = slots[i];
        const v = values[def.tag];
        if (v === undefined) continue;
        if (typeof v === "number") column.push(v);
        else column.pushAll(v);
      }
      byTag = values;
      latency = values["request_latency"];
      ttft = values["time_to_first_token"];
      isl = values["input_sequence_length"];
      osl = values["output_sequence_length"];
    }
    const aggregates = failed ? this.#errAggregate : this.#okAggregate;
    for (let i = 0; i < aggregates.length; i++) {
      const slot = aggregates[i];
      const v = slot.def.compute(record, byTag, this.#ctx);
      if (v === undefined || !Number.isFinite(v)) continue;
      slot.seen = true;
      switch (slot.def.fold) {
        case "count":
          slot.value += 1;
          break;
        case "sum":
          slot.value += v;
          break;
        case "min":
          if (v < slot.value) slot.value = v;
          break;
        case "max":
          if (v > slot.value) slot.value = v;
          break;
      }
    }
    if (failed) {
      this.#errorCount++;
      const error: ErrorDetails = record.error ?? CANCELLED;
      // One row per kind of failure: the record keeps its detail (e.g. how many bytes came before a reset).
      const message = record.error?.group ?? error.message;
      const key = `${error.type}\u0000${error.code ?? ""}\u0000${message}`;
      const entry = this.#errors.get(key);
      if (entry === undefined) {
        this.#errors.set(key, {
          error: {
            ...(error.code === undefined ? {} : { code: error.code }),
            type: error.type,
            message,
          },
          count: 1,
        });
      } else entry.count++;
    } else {
      this.#successCount++;
      const end = typeof latency === "number" ? record.startAt + latency : record.endAt;
      if (record.startAt < this.#okFirstStart) this.#okFirstStart = record.startAt;
      if (end > this.#okLastEnd) this.#okLastEnd = end;
    }
    if (record.startAt < this.#anyFirstStart) this.#anyFirstStart = record.startAt;
    if (record.endAt > this.#anyLastEnd) this.#anyLastEnd = record.endAt;
    const late = record.scheduledAt === undefined ? NaN : record.startAt - record.scheduledAt;
    if (Number.isFinite(late)) this.#lateness.push(late);
    // Every request's intervals feed the time-weighted metrics; a failed one has no first token or counts.
    if (this.#timeWeighted) {
      this.#sweep.add({
        start: record.startAt,
        gen: typeof ttft === "number" ? record.startAt + ttft : NaN,
        end: record.endAt,
        isl: typeof isl === "number" ? isl : NaN,
        osl: typeof osl === "number" ? osl : NaN,
      }, this.#gaps?.length ?? 0);
    }
  }

  /** Hands what the columns hold in memory to the store, for an accumulator that will see few records more. */
  seal(): void {
    this.#lateness.seal();
    this.#sweep.seal();
    for (const slot of this.#okRecord) slot.column.seal();
    for (const slot of this.#errRecord) slot.column.seal();
  }

  /**
   * Bytes this accumulator keeps for the records added so far: the column buffers, the only per-request
   * memory retained by a run (texts and per-request objects are dropped once counted).
   */
  retainedBytes(): number {
    let bytes = this.#lateness.bytes + this.#sweep.bytes;
    for (const slot of this.#okRecord) bytes += slot.column.bytes;
    for (const slot of this.#errRecord) bytes += slot.column.bytes;
    return bytes;
  }

  /**
   * p50/p90/p99 of the last `window` values of a single-valued record metric (successful requests), for live
   * displays: a copy of at most `window` values is sorted, so reading it costs the same late in a long run.
   */
  recentPercentiles(tag: string, window = 2000): { p50: number; p90: number; p99: number } | undefined {
    const slot = this.#okRecord.find((s) => s.def.tag === tag);
    if (slot === undefined || slot.def.flags.list) return undefined;
    if (slot.column.length === 0) return undefined;
    const recent = slot.column.tail(window).sort();
    const at = (q: number) => recent[Math.min(recent.length - 1, Math.floor(q * recent.length))];
    return { p50: at(0.5), p90: at(0.9), p99: at(0.99) };
  }

  /** The error kinds seen so far with their counts, most frequent first. */
  errorCounts(): { message: string; count: number }[] {
    return [...this.#errors.values()]
      .map(({ error, count }) => ({
        message: `${error.code === undefined ? "" : `${error.code} `}${error.type}: ${error.message}`,
        count,
      }))
      .sort((a, b) => b.count - a.count);
  }

  /** Counts and running means so far; O(number of metrics), no sorting. */
  snapshot(): LiveSnapshot {
    const averages: Record<string, number> = {};
    const sums: Record<string, number> = {};
    const good = this.#ctx.isGood === undefined
      ? undefined
      : this.#okAggregate.find((slot) => slot.def.tag === "good_request_count");
    for (const { def, column } of this.#okRecord) {
      if (def.flags.list || column.length === 0) continue;
      averages[def.tag] = column.sum / column.length;
      sums[def.tag] = column.sum;
    }
    return {
      successCount: this.#successCount,
      errorCount: this.#errorCount,
      ...(good === undefined ? {} : { goodCount: good.value }),
      elapsedSec: this.#successCount > 0 ? (this.#okLastEnd - this.#okFirstStart) / 1000 : 0,
      ...(Number.isFinite(this.#anyLastEnd) ? { lastEndMs: this.#anyLastEnd } : {}),
      averages,
      sums,
    };
  }

  /**
   * Exact statistics for every record metric, aggregate values, then derived metrics; sorted by display
   * order. Sorts the stored columns in place (cheap to call again; later `add()` calls remain valid).
   */
  summarize(options: SummarizeOptions = {}): RunSummary {
    const results = new Map<string, MetricResult>();
    const raw = new Map<string, number>();
    const recordStats = new Map<string, Stats>();
    const sweep = this.#sweepResults(options);
    for (const { def, column } of [...this.#okRecord, ...this.#errRecord]) {
      // A list column is summarized on a copy: its arrival order is what the time-weighted metrics replay.
      const stats = columnStats(column, !def.flags.list);
      if (stats === undefined) continue;
      recordStats.set(def.tag, stats);
      results.set(def.tag, resultOf(def, { stats }));
    }
    const display = { timeOriginMs: this.#timeOriginMs };
    for (const slot of [...this.#okAggregate, ...this.#errAggregate]) {
      if (!slot.seen) continue;
      raw.set(slot.def.tag, slot.value);
      const value = slot.def.toDisplay === undefined ? slot.value : slot.def.toDisplay(slot.value, display);
      results.set(slot.def.tag, resultOf(slot.def, { value }));
    }
    const inputs: DerivedInputs = {
      value: (tag) => raw.get(tag),
      sum: (tag) => recordStats.get(tag)?.sum,
      count: (tag) => recordStats.get(tag)?.count ?? 0,
      observationSec: () =>
        options.observationSec !== undefined && options.observationSec > 0
          ? options.observationSec
          : raw.get("benchmark_duration"),
      stats: (tag) => recordStats.get(tag),
    };
    for (const def of this.#derived) {
      const value = def.compute(inputs);
      if (value === undefined || !Number.isFinite(value)) continue;
      raw.set(def.tag, value);
      results.set(def.tag, resultOf(def, { value }));
    }
    const metrics = this.#metrics
      .filter((def) => !def.flags.internal)
      .map((def) => results.get(def.tag))
      .filter((r): r is MetricResult => r !== undefined);
    if (this.#errorCount > 0) {
      // AIPerf's "(error-adjusted)" rows: each failed request counts as an infinite latency.
      for (const { def, column } of this.#okRecord) {
        if (!def.flags.percentileIncludesFailedRequests || !recordStats.has(def.tag)) continue;
        metrics.push({
          ...resultOf(def, { stats: columnErrorAdjustedStats(column, this.#errorCount) }),
          tag: `adj_${def.tag}`,
          header: `${def.header} (error-adjusted)`,
          consoleGroup: "llm",
          displayOrder: ERROR_ADJUSTED_ORDER + adjustedRank(def),
        });
      }
    }
    metrics.push(...sweep);
    metrics.sort((a, b) => a.displayOrder - b.displayOrder);
    const errors: ErrorSummaryEntry[] = [...this.#errors.values()].map(({ error, count }) => ({ error, count }));
    const duration = raw.get("benchmark_duration") ??
      (this.#anyLastEnd >= this.#anyFirstStart ? (this.#anyLastEnd - this.#anyFirstStart) / 1000 : undefined);
    const lateness = columnStats(this.#lateness, true);
    return {
      metrics,
      errors,
      successCount: this.#successCount,
      errorCount: this.#errorCount,
      ...(duration === undefined ? {} : { benchmarkDurationSec: duration }),
      ...(lateness === undefined ? {} : { scheduleLatenessMs: lateness }),
    };
  }

  /** The time-weighted metrics over the window (`sweep_line_metrics.ts`); none without records. */
  #sweepResults(options: SummarizeOptions): MetricResult[] {
    if (this.#sweep.length === 0) return [];
    const gaps = this.#gaps?.reader() ?? ColumnReader.of(new Float64Array(0));
    const w = options.windowEpochMs;
    const stats = sweepStatsByGroup(
      this.#sweep.table(gaps),
      w === undefined ? undefined : { start: w.start - this.#timeOriginMs, end: w.end - this.#timeOriginMs },
      this.#sweepBudget,
      this.#scratch,
    );
    return SWEEP_METRIC_SPECS.map((spec) => ({
      tag: spec.tag,
      header: spec.header,
      unit: spec.unit,
      kind: "derived",
      flags: {},
      displayOrder: spec.displayOrder,
      consoleGroup: spec.consoleGroup,
      // Only avg, min, max, p50, p90, p95, p99 and std exist for a time-weighted metric.
      stats: { p1: NaN, p5: NaN, p10: NaN, p25: NaN, p75: NaN, count: NaN, sum: NaN, ...stats.get(spec.tag)! },
    }));
  }
}

/** A flagged metric's place among the "(error-adjusted)" rows: AIPerf's order, then display order. */
function adjustedRank(def: MetricDef): number {
  const i = ERROR_ADJUSTED_RANK.indexOf(def.tag);
  return i >= 0 ? i : ERROR_ADJUSTED_RANK.length + def.displayOrder;
}
