import assert from "node:assert/strict";
import { InputError } from "../../src/base/input_error.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import type { ConfigError } from "../../src/config/config_error.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { type PhaseSession, runPhase } from "../../src/engine/phase_runner.ts";
import { loadPlans } from "../../src/run/load_plans.ts";
import { ManualClock } from "../../src/timing/clock.ts";
import { shardPhase } from "../../src/timing/phase_spec.ts";
import { readRateSeries, seriesRate, SeriesTimeMap } from "../../src/timing/rate_series_strategy.ts";
import { fakeIo } from "../config/_fake_io.ts";

const POINTS = [{ atMs: 0, rate: 10 }, { atMs: 1000, rate: 20 }];

Deno.test("seriesRate is linear between points and flat outside them", () => {
  assert.equal(seriesRate(POINTS, -5), 10);
  assert.equal(seriesRate(POINTS, 250), 12.5);
  assert.equal(seriesRate(POINTS, 1000), 20);
  assert.equal(seriesRate(POINTS, 9999), 20);
});

Deno.test("SeriesTimeMap sends expected arrivals in 100 ms steps at the series' rate", () => {
  // Reference 10 req/s: u = 100·k ms is the k-th arrival. Step j (j·100 ms) runs at 10 + j req/s, so by hand:
  // step 0 holds u ∈ [0, 100], step 1 (11 req/s) u ∈ (100, 210], step 2 (12 req/s) u ∈ (210, 330].
  const map = new SeriesTimeMap(POINTS, 10);
  assert.equal(map.timeFor(0), 0);
  assert.equal(map.timeFor(100), 100);
  assert.ok(Math.abs(map.timeFor(200) - (100 + 100 / 1.1)) < 1e-9);
  assert.ok(Math.abs(map.timeFor(300) - (200 + 90 / 1.2)) < 1e-9);
  // After the last point: 20 req/s, i.e. reference time runs twice as fast.
  const late = new SeriesTimeMap(POINTS, 10);
  const a = late.timeFor(50_000);
  assert.ok(Math.abs(late.timeFor(50_200) - a - 100) < 1e-9);
});

Deno.test("readRateSeries reads AIPerf's two forms and names what is wrong", () => {
  const list = '[{"time_s": 0, "qps": 5}, {"time_s": 2.5, "qps": 8}]';
  assert.deepEqual(readRateSeries("s.json", list), [{ atMs: 0, rate: 5 }, { atMs: 2500, rate: 8 }]);
  assert.deepEqual(readRateSeries("s.json", `{"points": ${list}}`), readRateSeries("s.json", list));
  const problem = (text: string) => {
    try {
      readRateSeries("s.json", text);
    } catch (error) {
      assert.ok(error instanceof InputError);
      return error.message;
    }
    assert.fail("accepted");
  };
  assert.match(problem('[{"time_s": 0, "qps": 5}]'), /^--request-rate-series s\.json: needs at least two points$/);
  assert.match(problem('[{"time_s": 1, "qps": 5}, {"time_s": 1, "qps": 6}]'), /time_s must increase strictly/);
  assert.match(problem('[{"time_s": 0, "qps": 0}, {"time_s": 1, "qps": 6}]'), /point 0: qps must be > 0/);
  assert.match(problem('[{"time_s": 0, "qps": 1, "rate": 2}, {"time_s": 1, "qps": 6}]'), /unknown key rate/);
  assert.match(problem('{"pts": []}'), /exactly one key, points/);
  assert.match(problem("not json"), /is not valid JSON/);
});

Deno.test("--request-rate-series selects its mode, refuses --request-rate beside it, and runs on the phase runner", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/series.json`;
    await Deno.writeTextFile(file, JSON.stringify([{ time_s: 0, qps: 10 }, { time_s: 1, qps: 20 }]));
    const parsed = await parseProfileArgs(
      ["-m", "m", "--request-rate-series", file, "--arrival-pattern", "constant", "--request-count", "25"],
      fakeIo(),
    );
    assert.equal(parsed.config.concurrency, undefined, "an open loop is uncapped by default");
    await assert.rejects(
      () => parseProfileArgs(["-m", "m", "--request-rate-series", file, "--request-rate", "3"], fakeIo()),
      (error: ConfigError) => /each choose how requests are sent/.test(error.problems[0]),
    );
    const dataset = { startTimestamps: [undefined], totalTurns: 1, conversations: 1, fromFile: false };
    const plans = loadPlans(parsed.config, dataset, { concurrency: false });
    const phase = plans.phases[0];
    assert.equal(phase.strategy.name, "request_rate_series");
    assert.ok(
      plans.notices.includes(
        "Profiling: open loop following a rate series, 10 req/s → 20 req/s over 1 s, evenly spaced; stops after " +
          "25 requests.",
      ),
      plans.notices.join("\n"),
    );
    const clock = new ManualClock(0);
    const sentAt: number[] = [];
    const done = runPhase({
      shard: shardPhase(phase, 0, 1),
      clock,
      rng: new SeededRandom(1),
      signal: new AbortController().signal,
      openSession: (): PhaseSession => ({
        turnCount: 1,
        delayBefore: () => undefined,
        timestampOf: () => undefined,
        send: () => {
          sentAt.push(clock.now());
          return Promise.resolve();
        },
      }),
    });
    await clock.advanceTo(5000);
    assert.equal((await done).issued, 25);
    // In the first second the steps run at 10, 11, …, 19 req/s: (10 + … + 19) × 0.1 = 14.5 expected arrivals, so
    // the evenly spaced arrivals 0 … 14 fall in it.
    assert.equal(sentAt.filter((t) => t < 1000).length, 15);
    assert.ok(sentAt[24] < 1500, "after the last point, 20 req/s");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
