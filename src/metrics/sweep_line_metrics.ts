/**
 * AIPerf 0.13's time-weighted metrics (`effective_*`, `active_*`, `tokens_in_flight`): curves over every
 * request's intervals, summarized over the profiling window. Per request (run clock, ms):
 * `start` (sent), `gen` = start + TTFT (first token; absent without streaming), `end` (last response),
 * `isl`, `osl`, and the inter-chunk gaps `icl` when streamed.
 *
 * - `effective_concurrency`: Σ 1 over [start, end) of every request, failed ones included.
 * - `effective_prefill_concurrency`: Σ 1 over [start, gen); `effective_decode_concurrency`: Σ 1 over [gen, end).
 * - `effective_prefill_throughput`: Σ isl / (gen − start) over [start, gen) (tokens/ms × 1000 → tokens/sec).
 * - `effective_decode_throughput`: with inter-chunk gaps, each gap g_k > 0 of a request carries
 *   ((osl − 1) / K) / g_k over that gap (K = number of non-zero gaps; the first token arrives at once at
 *   `gen`); without any gaps in the run, Σ (osl − 1) / (end − gen) over [gen, end).
 * - `effective_total_throughput`: Σ isl / (gen − start) over [start, gen) + Σ (osl − 1) / (end − gen) over
 *   [gen, end) (request-level, never chunk-level, as in AIPerf).
 * - `effective_decode_throughput_per_user` = decode throughput / decode concurrency (0 where none decodes);
 *   `effective_prefill_throughput_per_user` = prefill throughput / prefill concurrency.
 * - `tokens_in_flight` (KV-cache load): +isl at start, +1 at gen and +(osl − 1) / N at each chunk's arrival
 *   (N = all gaps, clamped before `end`), −(isl + osl) at end; without gaps in the run, +isl at start,
 *   +osl at gen, −(isl + osl) at end.
 * - `active_*`: the same rate curves, time-weighted only where their phase has a request in flight (decode:
 *   decode concurrency > 0; prefill: prefill concurrency > 0; total: concurrency > 0).
 *
 * Statistics (`sweep_line.ts`) are avg, min, max, p50, p90, p95, p99, std over the window
 * [phase start, last response]; the other percentile keys, count and sum do not exist for these metrics.
 * `sweepCurves`/`sweepMetricStats` build the curves whole (the definition, checked against AIPerf's output); a run's
 * end uses `sweepStatsByGroup`, the same numbers to the bit read from merges of the requests' events
 * (`sweep_stream.ts`), so that its memory does not grow with the chunk gaps.
 */
import { type ColumnData, ColumnReader, type ColumnStore, Float64Column } from "./float64_column.ts";
import type { ConsoleGroup, MetricUnit } from "./metric_def.ts";
import {
  activeWeightedStats,
  divideSteps,
  EventList,
  type StepFunction,
  type SweepStats,
  timeWeightedStats,
  ZERO_SWEEP_STATS,
} from "./sweep_line.ts";
import {
  BufferPool,
  type CurveSource,
  mergedSource,
  rateStats,
  type RequestEmitter,
  type Scratch,
  type ScratchFactory,
  streamedStats,
  windowSegments,
} from "./sweep_stream.ts";

/** One time-weighted metric's identity, in AIPerf's output order. */
export interface SweepMetricSpec {
  readonly tag: string;
  readonly header: string;
  readonly unit: MetricUnit;
  readonly consoleGroup: ConsoleGroup;
  readonly displayOrder: number;
}

function spec(tag: string, header: string, unit: MetricUnit, group: ConsoleGroup, order: number): SweepMetricSpec {
  return { tag, header, unit, consoleGroup: group, displayOrder: order };
}

/** Every time-weighted metric, in AIPerf's order (effective table, then active table). */
export const SWEEP_METRIC_SPECS: readonly SweepMetricSpec[] = [
  spec("effective_concurrency", "Effective Concurrency", "requests", "effective", 3650),
  spec("effective_decode_throughput", "Effective Decode Throughput", "tokens/sec", "effective", 3651),
  spec("effective_prefill_throughput", "Effective Prefill Throughput", "tokens/sec", "effective", 3652),
  spec("effective_decode_concurrency", "Effective Decode Concurrency", "requests", "effective", 3653),
  spec("effective_prefill_concurrency", "Effective Prefill Concurrency", "requests", "effective", 3654),
  spec("effective_total_throughput", "Effective Total Throughput", "tokens/sec", "effective", 3655),
  spec(
    "effective_decode_throughput_per_user",
    "Effective Decode Throughput Per User",
    "tokens/sec/user",
    "effective",
    3656,
  ),
  spec(
    "effective_prefill_throughput_per_user",
    "Effective Prefill Throughput Per User",
    "tokens/sec/user",
    "effective",
    3657,
  ),
  spec("tokens_in_flight", "Tokens In Flight", "tokens", "effective", 3658),
  spec("active_decode_throughput", "Active Decode Throughput", "tokens/sec", "active", 3660),
  spec("active_prefill_throughput", "Active Prefill Throughput", "tokens/sec", "active", 3661),
  spec("active_decode_throughput_per_user", "Active Decode Throughput Per User", "tokens/sec/user", "active", 3662),
  spec("active_prefill_throughput_per_user", "Active Prefill Throughput Per User", "tokens/sec/user", "active", 3663),
  spec("active_total_throughput", "Active Total Throughput", "tokens/sec", "active", 3664),
];

/** One request's intervals; `gen`, `isl`, `osl` are NaN when unknown, `icl` empty when not streamed. */
export interface SweepRequest {
  readonly start: number;
  readonly gen: number;
  readonly end: number;
  readonly isl: number;
  readonly osl: number;
  readonly icl: readonly number[];
}

/** The curves every time-weighted metric reads. */
export interface SweepCurves {
  readonly concurrency: StepFunction;
  readonly decodeConcurrency: StepFunction;
  readonly prefillConcurrency: StepFunction;
  readonly decodeThroughput: StepFunction;
  readonly prefillThroughput: StepFunction;
  readonly totalThroughput: StepFunction;
  readonly decodePerUser: StepFunction;
  readonly prefillPerUser: StepFunction;
  readonly tokensInFlight: StepFunction;
}

const ok = (x: number) => !Number.isNaN(x);

/** The curves one pass over the requests builds (the others stay empty). */
type CurveName = keyof SweepCurves;

const ALL_CURVES: ReadonlySet<CurveName> = new Set<CurveName>([
  "concurrency",
  "decodeConcurrency",
  "prefillConcurrency",
  "decodeThroughput",
  "prefillThroughput",
  "totalThroughput",
  "decodePerUser",
  "prefillPerUser",
  "tokensInFlight",
]);

const EMPTY_CURVE: StepFunction = { times: new Float64Array(0), values: new Float64Array(0) };

/** Builds the curves from requests (see the module comment for each formula). */
export function sweepCurves(requests: Iterable<SweepRequest>): SweepCurves {
  return buildCurves(requests, ALL_CURVES);
}

/**
 * Builds the curves named in `which` (the rest are empty): one pass over the requests, events only for those
 * curves, so that a caller can build them a few at a time and never hold every curve's events at once.
 * `anyIcl`: whether any request of the run has chunk gaps (decides the chunk-level or request-level decode
 * throughput and tokens in flight); found in the same pass when not given.
 */
function buildCurves(
  requests: Iterable<SweepRequest>,
  which: ReadonlySet<CurveName>,
  anyIcl?: boolean,
): SweepCurves {
  const want = (name: CurveName) => which.has(name);
  const perUserDecode = want("decodePerUser"), perUserPrefill = want("prefillPerUser");
  const wConc = want("concurrency"), wDec = want("decodeConcurrency") || perUserDecode;
  const wPre = want("prefillConcurrency") || perUserPrefill;
  const wDecTput = want("decodeThroughput") || perUserDecode;
  const wPreTput = want("prefillThroughput") || perUserPrefill;
  const wTotal = want("totalThroughput"), wTif = want("tokensInFlight");
  const conc = new EventList(), dec = new EventList(), pre = new EventList();
  const decTput = new EventList(), decTputReq = new EventList();
  const preTput = new EventList(), total = new EventList();
  const tif = new EventList(), tifReq = new EventList();
  // Which variant of the chunk-or-request curves to fill: both until it is known.
  const chunkLevel = anyIcl;
  let sawIcl = false;
  let runningGaps = 0;
  for (const r of requests) {
    if (wConc && ok(r.start) && ok(r.end)) conc.interval(r.start, r.end, 1);
    if (wDec && ok(r.gen) && ok(r.end)) dec.interval(r.gen, r.end, 1);
    if (wPre && ok(r.start) && ok(r.gen)) pre.interval(r.start, r.gen, 1);
    const prefill = ok(r.start) && ok(r.gen) && ok(r.isl) && r.gen > r.start;
    if (prefill) {
      const rate = r.isl / (r.gen - r.start);
      if (wPreTput) preTput.interval(r.start, r.gen, rate);
      if (wTotal) total.interval(r.start, r.gen, rate);
    }
    const decodes = ok(r.gen) && ok(r.osl) && r.osl >= 1 && r.end - r.gen > 0;
    if (decodes) {
      const rate = (r.osl - 1) / (r.end - r.gen);
      if (wDecTput && chunkLevel !== true) decTputReq.interval(r.gen, r.end, rate);
      if (wTotal) total.interval(r.gen, r.end, rate);
    }
    // Request-level tokens in flight (used when no request of the run has chunk gaps).
    const held = ok(r.gen) && ok(r.osl) && r.end - r.gen > 0;
    const pfHeld = ok(r.start) && ok(r.isl) && ok(r.gen) && r.gen > r.start;
    if (wTif && chunkLevel !== true) {
      if (pfHeld) tifReq.add(r.start, r.isl);
      if (held) tifReq.add(r.gen, r.osl);
      if (ok(r.end) && (pfHeld || held)) tifReq.add(r.end, -((pfHeld ? r.isl : 0) + (held ? r.osl : 0)));
    }
    // Chunk-level decode throughput and tokens in flight.
    if (r.icl.length > 0) sawIcl = true;
    if (chunkLevel !== false && (wDecTput || wTif)) {
      const icl = ColumnReader.of(Float64Array.from(r.icl));
      if (wDecTput) chunkDecodeEvents(decTput, r.gen, r.osl, icl, 0, r.icl.length, runningGaps);
      if (wTif) chunkTokenEvents(tif, r.start, r.gen, r.end, r.isl, r.osl, icl, 0, r.icl.length, runningGaps);
    }
    for (const g of r.icl) runningGaps += g;
  }
  const icl = anyIcl ?? sawIcl;
  const concurrency = wConc ? conc.build() : EMPTY_CURVE;
  const decodeConcurrency = wDec ? dec.build() : EMPTY_CURVE;
  const prefillConcurrency = wPre ? pre.build() : EMPTY_CURVE;
  const decodeThroughput = wDecTput ? (icl ? decTput : decTputReq).build() : EMPTY_CURVE;
  const prefillThroughput = wPreTput ? preTput.build() : EMPTY_CURVE;
  return {
    concurrency,
    decodeConcurrency,
    prefillConcurrency,
    decodeThroughput,
    prefillThroughput,
    totalThroughput: wTotal ? total.build() : EMPTY_CURVE,
    decodePerUser: perUserDecode ? divideSteps(decodeThroughput, decodeConcurrency) : EMPTY_CURVE,
    prefillPerUser: perUserPrefill ? divideSteps(prefillThroughput, prefillConcurrency) : EMPTY_CURVE,
    tokensInFlight: wTif ? (icl ? tif : tifReq).build() : EMPTY_CURVE,
  };
}

/**
 * The run's requests by index, as columns: request i's chunk gaps are `gaps[iclEnd[i − 1] .. iclEnd[i])` (from 0 for
 * the first).
 */
export interface SweepTable {
  readonly length: number;
  readonly start: ColumnReader;
  readonly gen: ColumnReader;
  readonly end: ColumnReader;
  readonly isl: ColumnReader;
  readonly osl: ColumnReader;
  readonly iclEnd: ColumnReader;
  readonly gaps: ColumnReader;
}

/** A table of `requests` (their gaps copied into one column). */
export function sweepTable(requests: readonly SweepRequest[]): SweepTable {
  const col = (f: (r: SweepRequest) => number) => ColumnReader.of(Float64Array.from(requests, f));
  let n = 0;
  const iclEnd = col((r) => (n += r.icl.length));
  return {
    length: requests.length,
    start: col((r) => r.start),
    gen: col((r) => r.gen),
    end: col((r) => r.end),
    isl: col((r) => r.isl),
    osl: col((r) => r.osl),
    iclEnd,
    gaps: ColumnReader.of(Float64Array.from(requests.flatMap((r) => r.icl))),
  };
}

const perSec = (s: SweepStats): SweepStats => ({
  avg: s.avg * 1000,
  min: s.min * 1000,
  max: s.max * 1000,
  p50: s.p50 * 1000,
  p90: s.p90 * 1000,
  p95: s.p95 * 1000,
  p99: s.p99 * 1000,
  std: s.std * 1000,
});

/**
 * Every time-weighted metric's statistics, exactly those of {@linkcode sweepMetricStats} over
 * {@linkcode sweepCurves}, without building a curve: each curve is read as a merge of the requests' events
 * (`sweep_stream.ts`), a rate with its phase concurrency in the same reads, and summarized a bounded part at a time.
 * What a long run's end holds is then the requests being merged and each statistic's budget of segments, whatever
 * the number of requests and chunk gaps.
 * `window` (run-clock ms) defaults to the first request's start to the last request's end; `budget`: the segments a
 * percentile keeps at once (`sweep_stream.ts`); `scratch`: where a statistic with many value ranges sets them aside,
 * so that its curve is read twice rather than once per range (the run's time to write its results then grows with
 * its length, not with its square), and where the requests' chunk-gap origins are kept (`originsSpillAt` of them in
 * memory at most).
 */
export function sweepStatsByGroup(
  table: SweepTable,
  window?: { readonly start: number; readonly end: number },
  budget?: number,
  scratch?: ScratchFactory,
  originsSpillAt = ORIGINS_SPILL_AT,
): Map<string, SweepStats> {
  const { length: n, iclEnd } = table;
  let anyIcl = false;
  for (let i = 0, from = 0; i < n && !anyIcl; from = iclEnd.at(i++)) anyIcl = iclEnd.at(i) > from;
  // Each request's running sum of earlier gaps (the chunk times' origin, as `buildCurves` computes it): 8 bytes a
  // request, set aside in a scratch file when there is one (read back by pages, in about the order written).
  const aside = anyIcl ? scratch?.() : undefined;
  const store = aside && scratchStore(aside);
  const origins = new Float64Column(store === undefined ? Math.max(1, n) : 1024, false, store, originsSpillAt);
  try {
    return summarizeGroups(table, origins, anyIcl, window, budget, scratch);
  } finally {
    aside?.close();
  }
}

/** Chunk-gap origins per segment of their scratch file (512 KB). */
const ORIGINS_SPILL_AT = 1 << 16;

/** A column store on a scratch (written now, read back on demand); a segment it cannot write stays in memory. */
function scratchStore(scratch: Scratch): ColumnStore {
  const made = new WeakSet<ArrayBuffer>();
  return {
    put(data: ColumnData) {
      const at = scratch.append(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      if (at === undefined) return { read: () => data };
      const count = data.length;
      return {
        read(reuse?: ColumnData): ColumnData {
          // In the form it was handed over in (whole numbers come as 4-byte integers).
          const own = reuse !== undefined && reuse.constructor === data.constructor && reuse.length === count &&
            made.has(reuse.buffer as ArrayBuffer);
          const out = own
            ? reuse
            : data instanceof Int32Array
            ? new Int32Array(count)
            : data instanceof Float32Array
            ? new Float32Array(count)
            : new Float64Array(count);
          if (!own) made.add(out.buffer as ArrayBuffer);
          scratch.read(at, new Uint8Array(out.buffer, out.byteOffset, out.byteLength));
          return out;
        },
      };
    },
  };
}

/** `sweepStatsByGroup` once the run has chunk gaps or not (`anyIcl`), with the column of their origins to fill. */
function summarizeGroups(
  table: SweepTable,
  origins: Float64Column,
  anyIcl: boolean,
  window: { readonly start: number; readonly end: number } | undefined,
  budget: number | undefined,
  scratch: ScratchFactory | undefined,
): Map<string, SweepStats> {
  const n = table.length;
  const { start, gen, end, isl, osl, iclEnd, gaps } = table;
  let running = 0, first = Infinity, last = -Infinity;
  for (let i = 0, from = 0; i < n; from = iclEnd.at(i++)) {
    if (anyIcl) origins.push(running);
    for (let k = from; k < iclEnd.at(i); k++) running += gaps.at(k);
    // The concurrency curve's first and last event times: the default window.
    if (ok(start.at(i)) && ok(end.at(i))) {
      first = Math.min(first, start.at(i), end.at(i));
      last = Math.max(last, start.at(i), end.at(i));
    }
  }
  const before = origins.reader();
  const from = (i: number) => (i > 0 ? iclEnd.at(i - 1) : 0);
  const ws = window?.start ?? (first <= last ? first : NaN);
  const we = window?.end ?? (first <= last ? last : NaN);
  // Each curve's events per request, in the order `buildCurves` adds them.
  const curve = (emit: RequestEmitter) => mergedSource(n, emit);
  const prefillRate = (i: number) => isl.at(i) / (gen.at(i) - start.at(i));
  const prefills = (i: number) => ok(start.at(i)) && ok(gen.at(i)) && ok(isl.at(i)) && gen.at(i) > start.at(i);
  const decodes = (i: number) => ok(gen.at(i)) && ok(osl.at(i)) && osl.at(i) >= 1 && end.at(i) - gen.at(i) > 0;
  const decodeRate = (i: number) => (osl.at(i) - 1) / (end.at(i) - gen.at(i));
  const interval = (o: Pick<EventList, "add">, from: number, to: number, delta: number) => {
    o.add(from, delta);
    o.add(to, -delta);
  };
  const out = new Map<string, SweepStats>();
  // One group's buffers are the next one's.
  const pool = new BufferPool();
  const total = rateStats(
    curve((i, o) => {
      if (prefills(i)) interval(o, start.at(i), gen.at(i), prefillRate(i));
      if (decodes(i)) interval(o, gen.at(i), end.at(i), decodeRate(i));
    }),
    curve((i, o) => ok(start.at(i)) && ok(end.at(i)) && interval(o, start.at(i), end.at(i), 1)),
    ws,
    we,
    false,
    budget,
    pool,
    scratch,
  );
  out.set("effective_concurrency", total.mask);
  out.set("effective_total_throughput", perSec(total.rate));
  out.set("active_total_throughput", perSec(total.activeRate));
  // A phase's rate and its concurrency: the five statistics AIPerf reports for it.
  const phase = (name: "decode" | "prefill", rate: CurveSource, mask: CurveSource) => {
    const s = rateStats(rate, mask, ws, we, true, budget, pool, scratch);
    out.set(`effective_${name}_throughput`, perSec(s.rate));
    out.set(`effective_${name}_concurrency`, s.mask);
    out.set(`effective_${name}_throughput_per_user`, perSec(s.perUser));
    out.set(`active_${name}_throughput`, perSec(s.activeRate));
    out.set(`active_${name}_throughput_per_user`, perSec(s.activePerUser));
  };
  phase(
    "decode",
    anyIcl
      ? curve((i, o) => chunkDecodeEvents(o, gen.at(i), osl.at(i), gaps, from(i), iclEnd.at(i), before.at(i)))
      : curve((i, o) => decodes(i) && interval(o, gen.at(i), end.at(i), decodeRate(i))),
    curve((i, o) => ok(gen.at(i)) && ok(end.at(i)) && interval(o, gen.at(i), end.at(i), 1)),
  );
  phase(
    "prefill",
    curve((i, o) => prefills(i) && interval(o, start.at(i), gen.at(i), prefillRate(i))),
    curve((i, o) => ok(start.at(i)) && ok(gen.at(i)) && interval(o, start.at(i), gen.at(i), 1)),
  );
  const tif = anyIcl
    ? curve((i, o) =>
      chunkTokenEvents(
        o,
        start.at(i),
        gen.at(i),
        end.at(i),
        isl.at(i),
        osl.at(i),
        gaps,
        from(i),
        iclEnd.at(i),
        before.at(i),
      )
    )
    : curve((i, o) => {
      const held = ok(gen.at(i)) && ok(osl.at(i)) && end.at(i) - gen.at(i) > 0, pfHeld = prefills(i);
      if (pfHeld) o.add(start.at(i), isl.at(i));
      if (held) o.add(gen.at(i), osl.at(i));
      if (ok(end.at(i)) && (pfHeld || held)) o.add(end.at(i), -((pfHeld ? isl.at(i) : 0) + (held ? osl.at(i) : 0)));
    });
  out.set(
    "tokens_in_flight",
    tif.empty || we - ws <= 0
      ? ZERO_SWEEP_STATS
      : streamedStats(windowSegments(tif, ws, we), we - ws, budget, tif.steps + 1, pool, scratch),
  );
  // In AIPerf's order.
  return new Map(SWEEP_METRIC_SPECS.map((spec) => [spec.tag, out.get(spec.tag)!]));
}

/**
 * A streamed request's chunk-level decode throughput events: each gap g > 0 carries ((osl − 1) / K) / g over it.
 * `gaps` at `from..to` are its gaps; `before`: the running sum of every earlier request's gaps (chunk times are computed
 * from it as AIPerf does, so that chunks landing on another request's event order the same way to the last bit).
 */
function chunkDecodeEvents(
  out: Pick<EventList, "add">,
  gen: number,
  osl: number,
  gaps: ColumnReader,
  from: number,
  to: number,
  before: number,
): void {
  if (!(ok(gen) && ok(osl) && osl >= 1 && to > from)) return;
  let nonZero = 0;
  for (let k = from; k < to; k++) if (gaps.at(k) > 0) nonZero++;
  const perGap = nonZero > 0 ? (osl - 1) / nonZero : 0;
  let running = before;
  for (let k = from; k < to; k++) {
    const g = gaps.at(k);
    running += g;
    const at = gen + (running - before);
    if (g > 0) {
      out.add(at - g, perGap / g);
      out.add(at, -(perGap / g));
    }
  }
}

/**
 * A request's chunk-level tokens-in-flight events: +1 at `gen` and +(osl − 1) / N at each chunk (N = all gaps,
 * clamped before `end`) when streamed, +isl at `start`, −(isl + osl) at `end` (arguments as in
 * {@linkcode chunkDecodeEvents}).
 */
function chunkTokenEvents(
  out: Pick<EventList, "add">,
  start: number,
  gen: number,
  end: number,
  isl: number,
  osl: number,
  gaps: ColumnReader,
  from: number,
  to: number,
  before: number,
): void {
  const chunked = ok(gen) && ok(osl) && osl >= 1 && to > from;
  const pfHeld = ok(start) && ok(isl) && ok(gen) && gen > start;
  if (chunked) {
    const perChunk = (osl - 1) / (to - from);
    out.add(gen, 1);
    let running = before;
    for (let k = from; k < to; k++) {
      const g = gaps.at(k);
      running += g;
      const at = gen + (running - before);
      if (g >= 0) out.add(ok(end) && at >= end ? prevFloat(end) : at, perChunk);
    }
  }
  if (pfHeld) out.add(start, isl);
  if (ok(end) && (pfHeld || chunked)) out.add(end, -((pfHeld ? isl : 0) + (chunked ? osl : 0)));
}

/** The largest double below `x` (a chunk stamped at or after its request's end is counted just before it). */
function prevFloat(x: number): number {
  if (x === 0) return -Number.MIN_VALUE;
  const buf = new Float64Array([x]);
  const bits = new BigInt64Array(buf.buffer);
  bits[0] += x > 0 ? -1n : 1n;
  return buf[0];
}

/** Each metric's statistics over `[ws, we]` (ms on the run clock), scaled to its display unit; only `only`'s when given. */
export function sweepMetricStats(
  curves: SweepCurves,
  ws: number,
  we: number,
  only?: ReadonlySet<string>,
): Map<string, SweepStats> {
  const c = curves;
  const tw = (f: StepFunction) => timeWeightedStats(f, ws, we);
  const act = (f: StepFunction, mask: StepFunction) => perSec(activeWeightedStats(f, mask, ws, we));
  const all: [string, () => SweepStats][] = [
    ["effective_concurrency", () => tw(c.concurrency)],
    ["effective_decode_throughput", () => perSec(tw(c.decodeThroughput))],
    ["effective_prefill_throughput", () => perSec(tw(c.prefillThroughput))],
    ["effective_decode_concurrency", () => tw(c.decodeConcurrency)],
    ["effective_prefill_concurrency", () => tw(c.prefillConcurrency)],
    ["effective_total_throughput", () => perSec(tw(c.totalThroughput))],
    ["effective_decode_throughput_per_user", () => perSec(tw(c.decodePerUser))],
    ["effective_prefill_throughput_per_user", () => perSec(tw(c.prefillPerUser))],
    ["tokens_in_flight", () => tw(c.tokensInFlight)],
    ["active_decode_throughput", () => act(c.decodeThroughput, c.decodeConcurrency)],
    ["active_prefill_throughput", () => act(c.prefillThroughput, c.prefillConcurrency)],
    ["active_decode_throughput_per_user", () => act(c.decodePerUser, c.decodeConcurrency)],
    ["active_prefill_throughput_per_user", () => act(c.prefillPerUser, c.prefillConcurrency)],
    ["active_total_throughput", () => act(c.totalThroughput, c.concurrency)],
  ];
  return new Map(all.filter(([tag]) => only === undefined || only.has(tag)).map(([tag, stats]) => [tag, stats()]));
}

/**
 * Per-request columns for the curves: 6 doubles per request. The chunk gaps are not copied: each request keeps
 * where its gaps end in the run's `inter_chunk_latency` column (kept in arrival order), which is read at the end.
 */
export class SweepColumns {
  readonly #start: Float64Column;
  readonly #gen: Float64Column;
  readonly #end: Float64Column;
  readonly #isl: Float64Column;
  readonly #osl: Float64Column;
  readonly #iclEnd: Float64Column;

  /** `store`, `spillAt`: where long columns' segments go (see `Float64Column`). */
  constructor(store?: ColumnStore, spillAt?: number) {
    const column = () => new Float64Column(256, false, store, spillAt);
    this.#start = column();
    this.#gen = column();
    this.#end = column();
    this.#isl = column();
    this.#osl = column();
    this.#iclEnd = column();
  }

  /** `iclEnd`: the length of the gap column once this request's gaps are in it. */
  add(r: Omit<SweepRequest, "icl">, iclEnd: number): void {
    this.#start.push(r.start);
    this.#gen.push(r.gen);
    this.#end.push(r.end);
    this.#isl.push(r.isl);
    this.#osl.push(r.osl);
    this.#iclEnd.push(iclEnd);
  }

  get length(): number {
    return this.#start.length;
  }

  /** Hands what the columns hold in memory to their store (`Float64Column.seal`). */
  seal(): void {
    for (const c of [this.#start, this.#gen, this.#end, this.#isl, this.#osl, this.#iclEnd]) c.seal();
  }

  get bytes(): number {
    return [this.#start, this.#gen, this.#end, this.#isl, this.#osl, this.#iclEnd].reduce((n, c) => n + c.bytes, 0);
  }

  /** The stored requests as a table, their gaps read from `gaps` (the gap column, in arrival order). */
  table(gaps: ColumnReader): SweepTable {
    return {
      length: this.length,
      start: this.#start.reader(),
      gen: this.#gen.reader(),
      end: this.#end.reader(),
      isl: this.#isl.reader(),
      osl: this.#osl.reader(),
      iclEnd: this.#iclEnd.reader(),
      gaps,
    };
  }
}
