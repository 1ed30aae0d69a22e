/**
 * A request rate that follows a series (AIPerf `--request-rate-series points.json`): control points `{time_s, qps}`
 * with strictly increasing times, the rate linear between them, the first rate before the first point and the last
 * after the last. As in AIPerf the rate is applied in 100 ms steps (each step runs at the series' value at its
 * start). Arrivals keep their pattern (constant, Poisson, gamma) by a change of time, like the rate ramp
 * (`rate_ramp.ts`): a schedule drawn at the first rate gives offsets `u`, and a request is sent when the stepped
 * rate has accumulated as many expected arrivals, so Poisson arrivals are exactly a Poisson process of the series'
 * rate and every shard keeps its share of one global stream.
 */
import { type ArrivalSchedule, createArrivalSchedule, type OpenLoopPattern } from "./arrival_pattern.ts";
import { SessionCap } from "./session_cap.ts";
import { RATE_RAMP_UPDATE_MS } from "./rate_ramp.ts";
import { splitCap } from "./split_evenly.ts";
import { definedFields, rateText, secondsText } from "./describe_load.ts";
import { defineLoadStrategy, type LoadStrategy, type StrategyContext, type Tick } from "./load_strategy.ts";
import type { Clock } from "./clock.ts";
import type { OptionSpec } from "../base/option_spec.ts";
import { InputError } from "../base/input_error.ts";
import { MAX_REQUEST_RATE } from "./load_limits.ts";

/** One control point: `atMs` after the phase start, `rate` requests per second. */
export interface RatePoint {
  readonly atMs: number;
  readonly rate: number;
}

export interface RateSeriesOptions {
  /** At least two, times strictly increasing. */
  readonly points: readonly RatePoint[];
  readonly pattern: OpenLoopPattern;
  /** Gamma shape. */
  readonly smoothness?: number;
  /** Most sessions in flight; undefined = no cap. */
  readonly concurrency?: number;
}

/** The series' rate `ms` after the phase start: linear between points, flat outside them. */
export function seriesRate(points: readonly RatePoint[], ms: number): number {
  if (ms <= points[0].atMs) return points[0].rate;
  const last = points[points.length - 1];
  if (ms >= last.atMs) return last.rate;
  let i = 1;
  while (points[i].atMs <= ms) i++;
  const a = points[i - 1];
  const b = points[i];
  return a.rate + (b.rate - a.rate) * (ms - a.atMs) / (b.atMs - a.atMs);
}

/** Maps offsets of a schedule drawn at `reference` req/s (non-decreasing) to send offsets under the stepped series. */
export class SeriesTimeMap {
  readonly #points: readonly RatePoint[];
  readonly #reference: number;
  readonly #stepMs: number;
  /** Start of the current step, in real time and in reference time. */
  #t = 0;
  #u = 0;

  constructor(points: readonly RatePoint[], reference: number, stepMs = RATE_RAMP_UPDATE_MS) {
    this.#points = points;
    this.#reference = reference;
    this.#stepMs = stepMs;
  }

  /** The send offset (ms) of the request the reference schedule sends at `u` ms. Calls must not go backwards. */
  timeFor(u: number): number {
    const end = this.#points[this.#points.length - 1].atMs;
    for (;;) {
      const share = seriesRate(this.#points, this.#t) / this.#reference;
      if (this.#t >= end) return this.#t + (u - this.#u) / share;
      const uEnd = this.#u + share * this.#stepMs;
      if (u <= uEnd) return this.#t + (u - this.#u) / share;
      this.#u = uEnd;
      this.#t += this.#stepMs;
    }
  }
}

class RateSeriesStrategy extends SessionCap implements LoadStrategy {
  readonly pacesContinuations = true;
  readonly #schedule: ArrivalSchedule;
  readonly #map: SeriesTimeMap;
  readonly #clock: Clock;
  readonly #start: number;

  constructor(o: RateSeriesOptions, ctx: StrategyContext) {
    super(o.concurrency);
    const reference = o.points[0].rate;
    this.#schedule = createArrivalSchedule({
      pattern: o.pattern,
      rate: reference,
      smoothness: o.smoothness,
      shardIndex: ctx.shardIndex,
      shardCount: ctx.shardCount,
    }, ctx.rng);
    this.#map = new SeriesTimeMap(o.points, reference);
    this.#clock = ctx.clock;
    this.#start = ctx.startedAt;
  }

  async nextTick(stop: AbortSignal, deadline: number): Promise<Tick | undefined> {
    const scheduledAt = this.#start + this.#map.timeFor(this.#schedule.next());
    if (scheduledAt >= deadline || stop.aborted) return undefined;
    await this.#clock.sleepUntil(scheduledAt, stop);
    return stop.aborted ? undefined : { scheduledAt };
  }
}

/**
 * The control points of a series file: `[{"time_s": 0, "qps": 5}, …]` or `{"points": [...]}` (AIPerf's two forms).
 * @throws {InputError} naming the file and the point that is wrong.
 */
export function readRateSeries(path: string, text: string): RatePoint[] {
  const fail = (why: string): never => {
    throw new InputError(`--request-rate-series ${path}: ${why}`);
  };
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    fail(`is not valid JSON (${(error as Error).message}); write [{"time_s": 0, "qps": 5}, …]`);
  }
  let items: unknown = document;
  if (document !== null && typeof document === "object" && !Array.isArray(document)) {
    const keys = Object.keys(document);
    if (keys.length !== 1 || keys[0] !== "points") fail("an object must have exactly one key, points");
    items = (document as { points: unknown }).points;
  }
  if (!Array.isArray(items)) fail("must be an array of points, or an object with points");
  const points = (items as unknown[]).map((item, i): RatePoint => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) fail(`point ${i} is not an object`);
    const { time_s: time, qps, ...rest } = item as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length > 0) fail(`point ${i} has unknown key${extra.length === 1 ? "" : "s"} ${extra.join(", ")}`);
    if (typeof time !== "number" || !Number.isFinite(time) || time < 0) fail(`point ${i}: time_s must be ≥ 0`);
    if (typeof qps !== "number" || !Number.isFinite(qps) || qps <= 0 || qps > MAX_REQUEST_RATE) {
      fail(`point ${i}: qps must be > 0 and at most ${MAX_REQUEST_RATE.toLocaleString("en-US")}`);
    }
    return { atMs: (time as number) * 1000, rate: qps as number };
  });
  if (points.length < 2) fail("needs at least two points");
  for (let i = 1; i < points.length; i++) {
    if (points[i].atMs <= points[i - 1].atMs) fail(`time_s must increase strictly (point ${i})`);
  }
  return points;
}

/** The series' own option (the arrival pattern and smoothness are read from the request-rate mode's). */
const RATE_SERIES_OPTIONS = [
  {
    key: "requestRateSeries",
    type: "path",
    flags: ["--request-rate-series"],
    group: "Load Generator",
    metavar: "<file.json>",
    help: 'Open loop whose rate follows a JSON series of control points, [{"time_s": 0, "qps": 5}, ' +
      '{"time_s": 60, "qps": 20}, …]: linear between points, applied in 100 ms steps, flat after the last.',
  },
] as const satisfies readonly OptionSpec[];

export const RATE_SERIES_STRATEGY = defineLoadStrategy({
  name: "request_rate_series",
  description: "Open loop at a rate that follows a series of control points (piecewise linear).",
  options: RATE_SERIES_OPTIONS,
  selectedBy: ["requestRateSeries"],
  reads: ["arrivalPattern", "arrivalSmoothness"],
  openLoop: true,
  plan: ({ values, concurrency }) => {
    const path = values.requestRateSeries!;
    let text: string;
    try {
      text = Deno.readTextFileSync(path);
    } catch (error) {
      throw new InputError(`--request-rate-series ${path}: cannot be read (${(error as Error).message})`);
    }
    const declared = values.arrivalPattern === "concurrency_burst" || values.arrivalPattern === undefined
      ? "poisson"
      : values.arrivalPattern as OpenLoopPattern;
    const smoothness = typeof values.arrivalSmoothness === "number" ? values.arrivalSmoothness : undefined;
    return {
      options: definedFields<RateSeriesOptions>({
        points: readRateSeries(path, text),
        pattern: smoothness !== undefined ? "gamma" : declared,
        smoothness,
        concurrency,
      }),
    };
  },
  describe: (o: RateSeriesOptions) =>
    `open loop following a rate series, ${o.points.map((p) => rateText(p.rate)).join(" → ")} over ` +
    `${secondsText(o.points[o.points.length - 1].atMs - o.points[0].atMs)}, ${
      o.pattern === "constant" ? "evenly spaced" : `${o.pattern === "poisson" ? "Poisson" : "gamma"} arrivals`
    }` + (o.concurrency !== undefined ? `, at most ${o.concurrency} in flight` : ""),
  /** Every shard keeps the whole series (its schedule is its part of the stream); a cap splits evenly. */
  split(o: RateSeriesOptions, i: number, n: number) {
    return { options: { ...o, concurrency: splitCap(o.concurrency, i, n) }, weight: 1, layout: "interleaved" as const };
  },
  create: (o: RateSeriesOptions, ctx: StrategyContext) => new RateSeriesStrategy(o, ctx),
});
