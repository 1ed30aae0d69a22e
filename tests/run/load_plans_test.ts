import assert from "node:assert/strict";
import { loadPlans } from "../../src/run/load_plans.ts";
import type { ProfileConfig } from "../../src/config/profile_config.ts";

/** The load fields of a config (the rest is not read). */
const config = (over: Partial<ProfileConfig>): ProfileConfig =>
  ({ arrivalPattern: "poisson", benchmarkGracePeriod: 30, ...over }) as ProfileConfig;
const synthetic = { startTimestamps: [undefined, undefined], totalTurns: 2, conversations: 2, fromFile: false };
const notGiven = { concurrency: false };

Deno.test("load plans: concurrency alone is a closed loop; a rate is an open loop capped by a concurrency", () => {
  const closed = loadPlans(config({ concurrency: 8, requestCount: 20 }), synthetic, { concurrency: true });
  assert.deepEqual(closed.phases.map((p) => p.name), ["profiling"]);
  assert.deepEqual(closed.phases[0].strategy, { name: "concurrency", options: { concurrency: 8, rampMs: undefined } });
  assert.deepEqual(closed.phases[0].stops, {
    requestCount: 20,
    sessionCount: undefined,
    durationMs: undefined,
    gracePeriodMs: 30_000,
  });
  const open = loadPlans(config({ requestRate: 5, concurrency: 3, arrivalPattern: "constant" }), synthetic, notGiven);
  assert.deepEqual(open.phases[0].strategy, {
    name: "request_rate",
    options: { rate: 5, pattern: "constant", concurrency: 3 },
  });
});

Deno.test("load plans: a file is sent once by default — each conversation, every turn — unless a count or duration says", () => {
  const file = { startTimestamps: [undefined, undefined, undefined], totalTurns: 5, conversations: 3, fromFile: true };
  const once = loadPlans(config({ concurrency: 1 }), file, notGiven).phases[0];
  assert.equal(once.stops.sessionCount, 3);
  assert.equal(once.stops.requestCount, undefined);
  assert.equal(once.expectedRequests, 5);
  assert.equal(loadPlans(config({ requestCount: 9 }), file, notGiven).phases[0].stops.sessionCount, undefined);
  assert.equal(loadPlans(config({ benchmarkDuration: 2 }), file, notGiven).phases[0].stops.sessionCount, undefined);
});

Deno.test("load plans: a timestamped dataset is replayed on its schedule, capped only by a given concurrency", () => {
  const trace = { startTimestamps: [300, 0, 100], totalTurns: 3, conversations: 3, fromFile: true };
  const plans = loadPlans(config({ concurrency: 1 }), trace, notGiven);
  assert.deepEqual(plans.phases[0].strategy, {
    name: "fixed_schedule",
    options: {
      starts: [{ conversationIndex: 1, atMs: 0 }, { conversationIndex: 2, atMs: 100 }, {
        conversationIndex: 0,
        atMs: 300,
      }],
      concurrency: undefined,
    },
  });
  assert.match(plans.notices[0], /trace replay/);
  const capped = loadPlans(config({ concurrency: 2 }), trace, { concurrency: true }).phases[0];
  assert.equal((capped.strategy.options as { concurrency?: number }).concurrency, 2);
  const rate = loadPlans(config({ requestRate: 2 }), trace, notGiven);
  assert.equal(rate.phases[0].strategy.name, "request_rate");
  assert.match(rate.notices[0], /timestamps are not used/);
});

Deno.test("load plans: warmup inherits the load with its own count, waits for every warmup answer; a trace warms up closed-loop", () => {
  const plans = loadPlans(
    config({ concurrency: 4, warmupRequestCount: 6, benchmarkDuration: 10 }),
    synthetic,
    notGiven,
  );
  assert.deepEqual(plans.phases.map((p) => p.name), ["warmup", "profiling"]);
  assert.deepEqual(plans.phases[0].strategy, plans.phases[1].strategy);
  assert.deepEqual(plans.phases[0].stops, { requestCount: 6, gracePeriodMs: Infinity });
  const trace = { startTimestamps: [0], totalTurns: 1, conversations: 1, fromFile: true };
  const traced = loadPlans(config({ concurrency: 1, warmupRequestCount: 2 }), trace, notGiven);
  assert.deepEqual(traced.phases[0].strategy, { name: "concurrency", options: { concurrency: 1 } });
});
