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
 */
import { Float64Column } from "./float64_column.ts";
import type { ConsoleGroup, MetricUnit } from "./metric_def.ts";
import {
  activeWeightedStats,
  divideSteps,
  EventList,
  type StepFunction,
  type SweepStats,
  timeWeightedStats,
} from "./sweep_line.ts";

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

/** How many requests the run has and how many chunk gaps they have in all: bounds on each curve's events. */
export interface SweepSizes {
  readonly requests: number;
  readonly gaps: number;
}

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
  sizes?: SweepSizes,
): SweepCurves {
  const want = (name: CurveName) => which.has(name);
  const perUserDecode = want("decodePerUser"), perUserPrefill = want("prefillPerUser");
  const wConc = want("concurrency"), wDec = want("decodeConcurrency") || perUserDecode;
  const wPre = want("prefillConcurrency") || perUserPrefill;
  const wDecTput = want("decodeThroughput") || perUserDecode;
  const wPreTput = want("prefillThroughput") || perUserPrefill;
  const wTotal = want("totalThroughput"), wTif = want("tokensInFlight");
  // Each list sized for its most events when the run's size is known (what a list not built here needs: none).
  const cap = (wanted: boolean, events: (s: SweepSizes) => number) =>
    sizes === undefined || !wanted ? undefined : events(sizes);
  const n2 = (s: SweepSizes) => 2 * s.requests;
  const conc = new EventList(cap(wConc, n2)), dec = new EventList(cap(wDec, n2)), pre = new EventList(cap(wPre, n2));
  const decTput = new EventList(cap(wDecTput && anyIcl === true, (s) => 2 * s.gaps));
  const decTputReq = new EventList(cap(wDecTput && anyIcl === false, n2));
  const preTput = new EventList(cap(wPreTput, n2)), total = new EventList(cap(wTotal, (s) => 4 * s.requests));
  const tif = new EventList(cap(wTif && anyIcl === true, (s) => s.gaps + 3 * s.requests));
  const tifReq = new EventList(cap(wTif && anyIcl === false, (s) => 3 * s.requests));
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
    const chunked = ok(r.gen) && ok(r.osl) && r.osl >= 1 && r.icl.length > 0;
    const chunkCurves = chunkLevel !== false && (wDecTput || wTif);
    if (chunked && chunkCurves) {
      let nonZero = 0;
      for (const g of r.icl) if (g > 0) nonZero++;
      const perGap = nonZero > 0 ? (r.osl - 1) / nonZero : 0;
      const perChunk = (r.osl - 1) / r.icl.length;
      if (wTif) tif.add(r.gen, 1);
      // Chunk times as AIPerf computes them (a running sum over every gap of the run), so that chunks landing on
      // another request's event order the same way to the last bit.
      const before = runningGaps;
      for (const g of r.icl) {
        runningGaps += g;
        const at = r.gen + (runningGaps - before);
        if (wDecTput && g > 0) decTput.interval(at - g, at, perGap / g);
        if (wTif && g >= 0) tif.add(ok(r.end) && at >= r.end ? prevFloat(r.end) : at, perChunk);
      }
    } else for (const g of r.icl) runningGaps += g;
    if (wTif && chunkLevel !== false) {
      if (pfHeld) tif.add(r.start, r.isl);
      if (ok(r.end) && (pfHeld || chunked)) tif.add(r.end, -((pfHeld ? r.isl : 0) + (chunked ? r.osl : 0)));
    }
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
 * Every time-weighted metric's statistics, its curves built a few at a time (one pass over the requests per
 * group, each group's events dropped before the next is built), so the end of a long run holds one group's events
 * rather than all of them at once: the decode group (chunk-level events, two per gap) is the largest.
 * `requests` gives the requests afresh for each pass; `window` (run-clock ms) defaults to the first request's start
 * to the last request's end. Exactly the statistics of {@linkcode sweepMetricStats} over {@linkcode sweepCurves}.
 */
export function sweepStatsByGroup(
  requests: () => Iterable<SweepRequest>,
  window?: { readonly start: number; readonly end: number },
  sizes?: SweepSizes,
): Map<string, SweepStats> {
  let anyIcl = false;
  for (const r of requests()) {
    if (r.icl.length > 0) {
      anyIcl = true;
      break;
    }
  }
  const a = buildCurves(requests(), new Set<CurveName>(["concurrency", "totalThroughput"]), anyIcl, sizes);
  const t = a.concurrency.times;
  const ws = window?.start ?? t[0];
  const we = window?.end ?? t[t.length - 1];
  const out = new Map<string, SweepStats>();
  const add = (curves: SweepCurves, tags: readonly string[]) => {
    const stats = sweepMetricStats(curves, ws, we, new Set(tags));
    for (const tag of tags) out.set(tag, stats.get(tag)!);
  };
  add(a, ["effective_concurrency", "effective_total_throughput", "active_total_throughput"]);
  add(
    buildCurves(
      requests(),
      new Set<CurveName>(["decodeConcurrency", "decodeThroughput", "decodePerUser"]),
      anyIcl,
      sizes,
    ),
    [
      "effective_decode_throughput",
      "effective_decode_concurrency",
      "effective_decode_throughput_per_user",
      "active_decode_throughput",
      "active_decode_throughput_per_user",
    ],
  );
  add(
    buildCurves(
      requests(),
      new Set<CurveName>(["prefillConcurrency", "prefillThroughput", "prefillPerUser"]),
      anyIcl,
      sizes,
    ),
    [
      "effective_prefill_throughput",
      "effective_prefill_concurrency",
      "effective_prefill_throughput_per_user",
      "active_prefill_throughput",
      "active_prefill_throughput_per_user",
    ],
  );
  add(buildCurves(requests(), new Set<CurveName>(["tokensInFlight"]), anyIcl, sizes), ["tokens_in_flight"]);
  // In AIPerf's order.
  return new Map(SWEEP_METRIC_SPECS.map((spec) => [spec.tag, out.get(spec.tag)!]));
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
  readonly #start = new Float64Column(256);
  readonly #gen = new Float64Column(256);
  readonly #end = new Float64Column(256);
  readonly #isl = new Float64Column(256);
  readonly #osl = new Float64Column(256);
  readonly #iclEnd = new Float64Column(256);

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

  get bytes(): number {
    return [this.#start, this.#gen, this.#end, this.#isl, this.#osl, this.#iclEnd].reduce((n, c) => n + c.bytes, 0);
  }

  /** The stored requests in the order added, their gaps read from `gaps` (the gap column, in arrival order). */
  *requests(gaps: ArrayLike<number>): Generator<SweepRequest> {
    const start = this.#start.view(), gen = this.#gen.view(), end = this.#end.view();
    const isl = this.#isl.view(), osl = this.#osl.view(), iclEnd = this.#iclEnd.view();
    let from = 0;
    for (let i = 0; i < start.length; i++) {
      const to = iclEnd[i];
      const icl = new Array<number>(to - from);
      for (let k = from; k < to; k++) icl[k - from] = gaps[k];
      yield { start: start[i], gen: gen[i], end: end[i], isl: isl[i], osl: osl[i], icl };
      from = to;
    }
  }
}
