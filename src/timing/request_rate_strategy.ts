/**
 * Open loop (AIPerf `--request-rate`): send opportunities at absolute due times `phaseStart + schedule.next()` from
 * the arrival pattern (constant, Poisson, gamma), so a late wake-up never shifts later sends and lateness is
 * recorded per request. With a concurrency cap, a new session first sleeps to its due time and then waits for a
 * slot ("sleep then gate"; no catch-up burst is scheduled). With a ramp, the rate rises from a small start to the
 * target first (timing/rate_ramp.ts).
 */
import { createArrivalSchedule, type OpenLoopPattern } from "./arrival_pattern.ts";
import type { ArrivalSchedule } from "./arrival_pattern.ts";
import { SessionCap } from "./session_cap.ts";
import { RampTimeMap } from "./rate_ramp.ts";
import { splitCap } from "./split_evenly.ts";
import type { Clock } from "./clock.ts";
import { defineLoadStrategy, type LoadStrategy, type StrategyContext, type Tick } from "./load_strategy.ts";
import { definedFields, rateText, secondsText } from "./describe_load.ts";
import { scheduleSpanProblem } from "./schedule_limits.ts";
import type { OptionSpec } from "../base/option_spec.ts";
import { MAX_DURATION_SECONDS, MAX_REQUEST_RATE } from "./load_limits.ts";

export interface RequestRateOptions {
  /** Requests per second across all shards (each shard derives its own stream from the global rate). */
  readonly rate: number;
  readonly pattern: OpenLoopPattern;
  /** Gamma shape. */
  readonly smoothness?: number;
  /** Most sessions in flight; undefined = no cap. */
  readonly concurrency?: number;
  /** Ramp the rate up to `rate` over this many ms (timing/rate_ramp.ts). @default no ramp */
  readonly rampMs?: number;
}

class RequestRateStrategy extends SessionCap implements LoadStrategy {
  readonly pacesContinuations = true;
  readonly #schedule: ArrivalSchedule;
  readonly #clock: Clock;
  readonly #start: number;
  readonly #ramp: RampTimeMap | undefined;

  constructor(o: RequestRateOptions, ctx: StrategyContext) {
    super(o.concurrency);
    this.#schedule = createArrivalSchedule({
      pattern: o.pattern,
      rate: o.rate,
      smoothness: o.smoothness,
      shardIndex: ctx.shardIndex,
      shardCount: ctx.shardCount,
    }, ctx.rng);
    this.#clock = ctx.clock;
    this.#start = ctx.startedAt;
    this.#ramp = (o.rampMs ?? 0) > 0 ? new RampTimeMap(o.rate, o.rampMs!) : undefined;
  }

  async nextTick(stop: AbortSignal, deadline: number): Promise<Tick | undefined> {
    const offset = this.#schedule.next();
    const scheduledAt = this.#start + (this.#ramp === undefined ? offset : this.#ramp.timeFor(offset));
    if (scheduledAt >= deadline || stop.aborted) return undefined;
    await this.#clock.sleepUntil(scheduledAt, stop);
    return stop.aborted ? undefined : { scheduledAt };
  }
}

const PHASE = "benchmark.phases.profiling";

/** The options of the open loop. */
const REQUEST_RATE_OPTIONS = [
  {
    key: "requestRate",
    type: "float",
    min: 0,
    max: MAX_REQUEST_RATE,
    exclusiveMin: true,
    flags: ["--request-rate"],
    group: "Load Generator",
    common: true,
    metavar: "<req/s>",
    yaml: [`${PHASE}.rate`],
    help: "Target request rate in requests per second (open loop); combine with --concurrency to cap in-flight.",
  },
  {
    key: "requestRateRampDuration",
    type: "float",
    min: 0,
    max: MAX_DURATION_SECONDS,
    exclusiveMin: true,
    flags: ["--request-rate-ramp-duration"],
    group: "Load Generator",
    metavar: "<seconds>",
    yaml: [`${PHASE}.rate_ramp`],
    requires: [{ key: "requestRate", why: "ramps a request rate" }],
    help: "Ramp the request rate up over this many seconds: it starts at target × (0.1 s / duration) and rises " +
      "linearly, updated every 0.1 s (with --request-rate).",
  },
  {
    key: "arrivalPattern",
    type: "enum",
    choices: ["constant", "poisson", "gamma", "concurrency_burst"],
    default: "poisson",
    flags: ["--arrival-pattern", "--request-rate-mode"],
    group: "Load Generator",
    offValues: ["concurrency_burst"],
    yaml: [`${PHASE}.type`],
    requires: [{
      key: ["requestRate", "requestRateSeries", "warmupRequestRate"],
      level: "warning",
      why: "has no effect without --request-rate: requests are sent as fast as --concurrency allows",
    }],
    help: "Spacing of request arrivals under --request-rate: even, exponential (Poisson) or gamma.",
  },
  {
    key: "arrivalSmoothness",
    type: "float",
    min: 0,
    max: 1_000,
    exclusiveMin: true,
    flags: ["--arrival-smoothness", "--vllm-burstiness"],
    group: "Load Generator",
    metavar: "<shape>",
    yaml: [`${PHASE}.smoothness`],
    requires: [{
      key: ["requestRate", "requestRateSeries", "warmupRequestRate"],
      why: "shapes request-rate arrivals",
    }],
    needs: [{ key: "arrivalPattern", value: "gamma", whenGiven: true, why: "only shapes gamma arrivals" }],
    help: "Gamma shape of arrivals (1 = Poisson, below 1 burstier, above 1 smoother); given alone it selects gamma.",
  },
] as const satisfies readonly OptionSpec[];

const PATTERN_TEXT: Readonly<Record<OpenLoopPattern, string>> = {
  constant: "evenly spaced",
  poisson: "Poisson arrivals",
  gamma: "gamma arrivals",
};

export const REQUEST_RATE_STRATEGY = defineLoadStrategy({
  name: "request_rate",
  description: "Open loop: send at a target rate with constant, Poisson or gamma arrivals, optionally capped.",
  options: REQUEST_RATE_OPTIONS,
  selectedBy: ["requestRate"],
  openLoop: true,
  validate(values) {
    const problems: string[] = [];
    if (values.value("arrivalPattern") === "concurrency_burst" && values.given("arrivalPattern")) {
      problems.push(
        `${values.named("arrivalPattern")} 'concurrency_burst' ignores ${values.named("requestRate")}; use ` +
          "constant, poisson or gamma, or remove the request rate.",
      );
    }
    const span = scheduleSpanProblem(values, "requestRate");
    if (span !== undefined) problems.push(span);
    return { problems };
  },
  /** Smoothness alone selects gamma (AIPerf); `concurrency_burst` is the closed loop's name, Poisson here. */
  plan: ({ values, concurrency }) => {
    const declared = values.arrivalPattern === "concurrency_burst" ? "poisson" : values.arrivalPattern;
    const pattern: OpenLoopPattern = values.arrivalSmoothness !== undefined ? "gamma" : declared;
    return {
      options: definedFields<RequestRateOptions>({
        rate: values.requestRate!,
        pattern,
        smoothness: values.arrivalSmoothness,
        concurrency,
        rampMs: values.requestRateRampDuration !== undefined ? values.requestRateRampDuration * 1000 : undefined,
      }),
    };
  },
  describe: (o) =>
    `open loop at ${rateText(o.rate)}, ${PATTERN_TEXT[o.pattern]}` +
    (o.pattern === "gamma" && o.smoothness !== undefined ? ` (shape ${o.smoothness})` : "") +
    (o.concurrency !== undefined ? `, at most ${o.concurrency} in flight` : "") +
    (o.rampMs !== undefined ? `, ramped up over ${secondsText(o.rampMs)}` : ""),
  /** Every shard keeps the global rate (its schedule is its part of it); a cap splits evenly. */
  split(o: RequestRateOptions, i: number, n: number) {
    const concurrency = splitCap(o.concurrency, i, n);
    return { options: { ...o, concurrency }, weight: 1, layout: "interleaved" as const };
  },
  create: (o: RequestRateOptions, ctx: StrategyContext) => new RequestRateStrategy(o, ctx),
});
