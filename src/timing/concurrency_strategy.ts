/**
 * Closed loop (AIPerf's concurrency burst): `concurrency` sessions in flight; a slot freed by a finished session is
 * taken by the next one at once. With a ramp, the limit grows from 1 to `concurrency` in even steps over `rampMs`
 * (AIPerf `--concurrency-ramp-duration`) instead of opening every stream at once.
 */
import { SlotGate } from "./slot_gate.ts";
import { splitEvenly } from "./split_evenly.ts";
import type { Clock } from "./clock.ts";
import { defineLoadStrategy, type LoadStrategy, type StrategyContext, type Tick } from "./load_strategy.ts";
import { definedFields, plural, secondsText } from "./describe_load.ts";
import type { OptionSpec } from "../base/option_spec.ts";
import { MAX_DURATION_SECONDS } from "./load_limits.ts";

export interface ConcurrencyOptions {
  readonly concurrency: number;
  /** Grow the limit from 1 to `concurrency` over this many ms. @default no ramp */
  readonly rampMs?: number;
}

const NOW: Tick = {};

class ConcurrencyStrategy implements LoadStrategy {
  readonly pacesContinuations = false;
  readonly #gate: SlotGate;

  constructor(o: ConcurrencyOptions, ctx: StrategyContext) {
    const ramping = (o.rampMs ?? 0) > 0 && o.concurrency > 1;
    this.#gate = new SlotGate(ramping ? 1 : o.concurrency);
    if (ramping) rampUp(this.#gate, o.concurrency, ctx.startedAt, o.rampMs!, ctx.clock, ctx.stop);
  }

  nextTick(stop: AbortSignal): Promise<Tick | undefined> {
    return Promise.resolve(stop.aborted ? undefined : NOW);
  }

  acquireSession(): Promise<boolean> {
    return this.#gate.acquire();
  }

  releaseSession(): void {
    this.#gate.release();
  }

  close(): void {
    this.#gate.close();
  }
}

/**
 * Adds slots to `gate` so that `target` are open by `start + rampMs`: slot k (of target − 1 added) at
 * `start + k·rampMs/(target − 1)`, checked every ≥ 10 ms so a 20k-stream ramp is not 20k timers.
 */
export async function rampUp(
  gate: SlotGate,
  target: number,
  start: number,
  rampMs: number,
  clock: Clock,
  signal: AbortSignal,
): Promise<void> {
  const steps = target - 1;
  let added = 0;
  while (added < steps && !signal.aborted) {
    const due = Math.min(steps, Math.floor((clock.now() - start) / rampMs * steps));
    for (; added < due; added++) gate.release();
    if (added >= steps) break;
    const next = start + (added + 1) * rampMs / steps;
    await clock.sleepUntil(Math.max(next, clock.now() + 10), signal);
  }
}

/** The options the closed loop owns (`--concurrency` itself caps every mode and is declared with the load options). */
const CONCURRENCY_OPTIONS = [
  {
    key: "concurrencyRampDuration",
    type: "float",
    min: 0,
    max: MAX_DURATION_SECONDS,
    flags: ["--concurrency-ramp-duration"],
    group: "Load Generator",
    metavar: "<seconds>",
    yaml: ["benchmark.phases.profiling.concurrency_ramp"],
    help: "Grow the concurrency from 1 to --concurrency in even steps over this many seconds instead of opening " +
      "every stream at once (large runs: a server accepts connections only so fast).",
  },
] as const satisfies readonly OptionSpec[];

export const CONCURRENCY_STRATEGY = defineLoadStrategy({
  name: "concurrency",
  description: "Closed loop: keep N sessions in flight, the next one starting as soon as one ends.",
  options: CONCURRENCY_OPTIONS,
  selectedBy: [],
  /** The closed loop is what a run does when nothing else is asked. */
  fallback: () => true,
  plan: ({ values, concurrency }) => ({
    options: definedFields<ConcurrencyOptions>({
      concurrency: concurrency ?? 1,
      rampMs: values.concurrencyRampDuration !== undefined ? values.concurrencyRampDuration * 1000 : undefined,
    }),
  }),
  describe: (o) =>
    `closed loop, ${plural(o.concurrency, "session")} in flight` +
    (o.rampMs !== undefined && o.rampMs > 0 ? ` (ramped up from 1 over ${secondsText(o.rampMs)})` : ""),
  /** Concurrency splits evenly; budgets follow it, so shards finish together. */
  split(o: ConcurrencyOptions, i: number, n: number) {
    const concurrency = splitEvenly(o.concurrency, n)[i];
    return { options: { ...o, concurrency: Math.max(1, concurrency) }, weight: concurrency, layout: "blocks" as const };
  },
  create: (o: ConcurrencyOptions, ctx: StrategyContext) => new ConcurrencyStrategy(o, ctx),
});
