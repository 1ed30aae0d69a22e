/**
 * A new load mode is one strategy declaration and one registry line: this test declares a toy mode ("bursts": B
 * requests at once every I ms) the way a strategy file would, registers it in a copy of `LOAD_STRATEGIES`, and
 * runs it end to end — its options parsed and checked by `profile`'s parser, listed in `--help`, planned by the
 * generic load plan (with the line it says at start) and run by the phase runner — without any other change.
 */
import assert from "node:assert/strict";
import { Registry } from "../../src/base/registry.ts";
import type { OptionSpec } from "../../src/base/option_spec.ts";
import { InputError } from "../../src/base/input_error.ts";
import { ConfigError } from "../../src/config/config_error.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { profileCommandFor } from "../../src/config/option_table.ts";
import { renderHelp } from "../../src/config/render_help.ts";
import { type PhaseSession, runPhase } from "../../src/engine/phase_runner.ts";
import { loadPlans } from "../../src/run/load_plans.ts";
import { ManualClock } from "../../src/timing/clock.ts";
import { LOAD_STRATEGIES } from "../../src/timing/load_strategies.ts";
import {
  defineLoadStrategy,
  type LoadStrategy,
  type LoadStrategyEntry,
  type StrategyContext,
  type Tick,
} from "../../src/timing/load_strategy.ts";
import { shardPhase } from "../../src/timing/phase_spec.ts";
import { SessionCap } from "../../src/timing/session_cap.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { fakeIo } from "../config/_fake_io.ts";

// ── What `src/timing/burst_strategy.ts` would hold ─────────────────────────────────────────────────────────────

interface BurstOptions {
  readonly intervalMs: number;
  readonly burst: number;
}

class BurstStrategy extends SessionCap implements LoadStrategy {
  readonly pacesContinuations = true;
  readonly #o: BurstOptions;
  readonly #ctx: StrategyContext;
  #sent = 0;

  constructor(o: BurstOptions, ctx: StrategyContext) {
    super(undefined);
    this.#o = o;
    this.#ctx = ctx;
  }

  async nextTick(stop: AbortSignal, deadline: number): Promise<Tick | undefined> {
    const scheduledAt = this.#ctx.startedAt + Math.floor(this.#sent / this.#o.burst) * this.#o.intervalMs;
    if (stop.aborted || scheduledAt >= deadline) return undefined;
    this.#sent++;
    await this.#ctx.clock.sleepUntil(scheduledAt, stop);
    return stop.aborted ? undefined : { scheduledAt };
  }
}

const BURST_OPTIONS = [
  {
    key: "burstInterval",
    type: "int",
    min: 1,
    max: 3_600_000,
    flags: ["--burst-interval"],
    group: "Load Generator",
    metavar: "<ms>",
    help: "Send --burst-size requests at once every this many milliseconds.",
  },
  {
    key: "burstSize",
    type: "int",
    default: 1,
    min: 1,
    max: 10_000,
    flags: ["--burst-size"],
    group: "Load Generator",
    metavar: "<int>",
    requires: [{ key: "burstInterval", why: "sizes the bursts of --burst-interval" }],
    help: "Requests in each burst.",
  },
] as const satisfies readonly OptionSpec[];

const BURST_STRATEGY = defineLoadStrategy({
  name: "burst",
  description: "Bursts: N requests at once every I ms.",
  options: BURST_OPTIONS,
  selectedBy: ["burstInterval"],
  openLoop: true,
  validate: (values) =>
    (values.value("burstSize") as number) > 100 && (values.value("burstInterval") as number) < 10
      ? { problems: [`${values.named("burstSize")} over 100 needs ${values.named("burstInterval")} ≥ 10 ms.`] }
      : {},
  plan: ({ values }) => ({ options: { intervalMs: values.burstInterval!, burst: values.burstSize } }),
  describe: (o: BurstOptions) => `bursts of ${o.burst} every ${o.intervalMs} ms`,
  split: (o: BurstOptions) => ({ options: o, weight: 1, layout: "interleaved" }),
  create: (o: BurstOptions, ctx: StrategyContext) => new BurstStrategy(o, ctx),
});

// ── The one registry line (here in a copy of the registry) ─────────────────────────────────────────────────────

const STRATEGIES = new Registry<LoadStrategyEntry>("load strategy", [
  ...LOAD_STRATEGIES.entries(),
  BURST_STRATEGY,
]);

const SYNTHETIC = { startTimestamps: [undefined, undefined], totalTurns: 2, conversations: 2, fromFile: false };

async function parse(args: readonly string[]) {
  return await parseProfileArgs(["-m", "m", ...args], fakeIo(), { strategies: STRATEGIES });
}

async function problemsOf(args: readonly string[]): Promise<readonly string[]> {
  try {
    await parse(args);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  assert.fail(`${args.join(" ")} was accepted`);
}

Deno.test("a registered toy strategy's options are parsed, typed, bounded and listed in --help", async () => {
  const { config } = await parse(["--burst-interval", "250", "--burst-size", "3"]);
  const values = config as unknown as Record<string, unknown>;
  assert.equal(values.burstInterval, 250);
  assert.equal(values.burstSize, 3);
  assert.equal(config.concurrency, undefined, "an open-loop mode leaves sessions uncapped by default");
  assert.match((await problemsOf(["--burst-interval", "0"]))[0], /--burst-interval/);
  const help = renderHelp(profileCommandFor(STRATEGIES), { filter: "burst" });
  assert.match(help, /--burst-interval <ms>\n\s+Send --burst-size requests at once/);
  await assert.rejects(
    () => parseProfileArgs(["-m", "m", "--burst-interval", "5"], fakeIo()),
    /unknown option '--burst-interval'/i,
    "the real registry does not know the toy",
  );
});

Deno.test("a toy strategy gets the generic checks: its relations, one mode at a time, its own validation", async () => {
  assert.match(
    (await problemsOf(["--burst-size", "4"]))[0],
    /^--burst-size sizes the bursts of --burst-interval; add --burst-interval <ms> or remove --burst-size\.$/,
  );
  assert.match(
    (await problemsOf(["--burst-interval", "50", "--request-rate", "5"]))[0],
    /--request-rate and --burst-interval each choose how requests are sent/,
  );
  assert.match(
    (await problemsOf(["--burst-interval", "50", "--arrival-smoothness", "2"])).join("\n"),
    /--arrival-smoothness applies to the request_rate load mode, but --burst-interval selects burst/,
  );
  assert.deepEqual(await problemsOf(["--burst-interval", "5", "--burst-size", "200"]), [
    "--burst-size over 100 needs --burst-interval ≥ 10 ms.",
  ]);
});

Deno.test("a toy strategy is planned by the generic load plan and runs in the phase runner", async () => {
  const { config, sources } = await parse(["--burst-interval", "100", "--burst-size", "2", "--request-count", "6"]);
  const given = Object.fromEntries(Object.entries(sources).map(([key, source]) => [key, source !== "default"]));
  const plans = loadPlans(config, SYNTHETIC, given, STRATEGIES);
  const phase = plans.phases[0];
  assert.deepEqual(phase.strategy, { name: "burst", options: { intervalMs: 100, burst: 2 } });
  assert.ok(
    plans.notices.includes("Profiling: bursts of 2 every 100 ms; stops after 6 requests."),
    plans.notices.join("\n"),
  );

  const clock = new ManualClock(1000);
  const sentAt: number[] = [];
  const done = runPhase({
    shard: shardPhase(phase, 0, 1, STRATEGIES),
    clock,
    rng: new SeededRandom(1),
    signal: new AbortController().signal,
    strategies: STRATEGIES,
    openSession: (): PhaseSession => ({
      turnCount: 1,
      delayBefore: () => undefined,
      timestampOf: () => undefined,
      send: async (_k, _meta, signal) => {
        sentAt.push(clock.now() - 1000);
        await clock.sleepUntil(clock.now() + 10, signal);
      },
    }),
  });
  await clock.advanceTo(2000);
  const outcome = await done;
  assert.equal(outcome.issued, 6);
  assert.deepEqual(sentAt, [0, 0, 100, 100, 200, 200]);
});

Deno.test("the toy strategy's plan errors reach the user as input errors, like any strategy's", () => {
  const failing: LoadStrategyEntry = {
    ...BURST_STRATEGY,
    plan: () => {
      throw new InputError("bursts need a dataset of at least 3 conversations");
    },
  } as LoadStrategyEntry;
  const registry = new Registry<LoadStrategyEntry>("load strategy", [...LOAD_STRATEGIES.entries(), failing]);
  const config = { burstInterval: 5, burstSize: 1, benchmarkGracePeriod: 30 } as unknown as Parameters<
    typeof loadPlans
  >[0];
  assert.throws(() => loadPlans(config, SYNTHETIC, { burstInterval: true }, registry), InputError);
});
