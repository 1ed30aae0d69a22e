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
  assert.deepEqual(closed.phases[0].strategy, { name: "concurrency", options: { concurrency: 8 } });
  assert.deepEqual(closed.phases[0].stops, { requestCount: 20, gracePeriodMs: 30_000 });
  const open = loadPlans(config({ requestRate: 5, concurrency: 3, arrivalPattern: "constant" }), synthetic, notGiven);
  assert.deepEqual(open.phases[0].strategy, {
    name: "request_rate",
    options: { rate: 5, pattern: "constant", concurrency: 3 },
  });
});

Deno.test("load plans: a file sends AIPerf's 10 requests by default, unless a count, duration or conversation number says", () => {
  const file = { startTimestamps: [undefined, undefined, undefined], totalTurns: 5, conversations: 3, fromFile: true };
  const plans = loadPlans(config({ concurrency: 1 }), file, notGiven);
  const first = plans.phases[0];
  assert.deepEqual(first.stops, { requestCount: 10, gracePeriodMs: 30_000 });
  assert.equal(first.expectedRequests, undefined);
  assert.match(plans.notices.at(-1)!, /sending 10 requests/);
  assert.equal(loadPlans(config({ requestCount: 9 }), file, notGiven).phases[0].stops.requestCount, 9);
  const timed = loadPlans(config({ benchmarkDuration: 2 }), file, notGiven).phases[0].stops;
  assert.deepEqual([timed.requestCount, timed.sessionCount, timed.durationMs], [undefined, undefined, 2000]);
  const sessions = loadPlans(config({ conversationNum: 4 }), file, notGiven).phases[0].stops;
  assert.deepEqual([sessions.requestCount, sessions.sessionCount], [undefined, 4]);
});

Deno.test("load plans: a replayed trace is sent once, each conversation at its timestamp", () => {
  const trace = { startTimestamps: [300, 0, 100], totalTurns: 4, conversations: 3, fromFile: true };
  const once = loadPlans(config({ concurrency: 1 }), trace, notGiven).phases[0];
  assert.equal(once.stops.sessionCount, 3);
  assert.equal(once.stops.requestCount, undefined);
  assert.equal(once.expectedRequests, 4);
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
      offsetMs: 0,
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

Deno.test("load plans: fixed-schedule offsets window the trace and say where it starts", () => {
  const trace = {
    startTimestamps: [300, 0, 100, 500],
    totalTurns: 6,
    turnCounts: [1, 2, 1, 2],
    conversations: 4,
    fromFile: true,
  };
  const windowed = loadPlans(
    config({ fixedScheduleStartOffset: 100, fixedScheduleEndOffset: 300 }),
    trace,
    notGiven,
  ).phases[0];
  const options = windowed.strategy.options as { starts: { conversationIndex: number }[]; offsetMs: number };
  assert.deepEqual(options.starts.map((s) => s.conversationIndex), [2, 0], "100 and 300 are in [100, 300]");
  assert.equal(options.offsetMs, 100, "the start offset is sent at once");
  assert.equal(windowed.stops.sessionCount, 2);
  assert.equal(windowed.expectedRequests, 2, "the turns of the conversations in the window");
  const auto = loadPlans(
    config({ fixedScheduleAutoOffset: true }),
    { ...trace, startTimestamps: [900, 700] },
    notGiven,
  );
  assert.equal((auto.phases[0].strategy.options as { offsetMs: number }).offsetMs, 700);
  // --no-fixed-schedule keeps the load options; --fixed-schedule without timestamps is refused.
  const off = loadPlans(config({ fixedSchedule: false }), trace, { concurrency: false, fixedSchedule: true });
  assert.equal(off.phases[0].strategy.name, "concurrency");
  assert.throws(
    () =>
      loadPlans(config({ fixedSchedule: true }), { ...trace, startTimestamps: [0, undefined] }, {
        concurrency: false,
        fixedSchedule: true,
      }),
    /--fixed-schedule replays timestamps, but not every conversation's first turn has one/,
  );
});

Deno.test("load plans: warmup by duration, sessions, its own concurrency or rate, with its grace period", () => {
  const byTime = loadPlans(
    config({ concurrency: 4, warmupDuration: 2, warmupConcurrency: 2, warmupGracePeriod: 1 }),
    synthetic,
    notGiven,
  );
  assert.deepEqual(byTime.phases[0].stops, { durationMs: 2000, gracePeriodMs: 1000 });
  assert.deepEqual(byTime.phases[0].strategy, { name: "concurrency", options: { concurrency: 2 } });
  const bySessions = loadPlans(
    config({ requestRate: 5, concurrency: 3, numWarmupSessions: 4, warmupRequestRate: 50 }),
    synthetic,
    notGiven,
  );
  assert.deepEqual(bySessions.phases[0].stops, { sessionCount: 4, gracePeriodMs: Infinity });
  assert.deepEqual(bySessions.phases[0].strategy.options, { rate: 50, pattern: "poisson", concurrency: 3 });
  assert.equal(loadPlans(config({ concurrency: 2 }), synthetic, notGiven).phases.length, 1, "no bound, no warmup");
});

Deno.test("load plans: user-centric users, prefill limit and cancellation on profiling only, rate ramp", () => {
  const file = { startTimestamps: [undefined, undefined], totalTurns: 8, conversations: 2, fromFile: true };
  const users = loadPlans(
    config({ userCentricRate: 4, numUsers: 2, requestCount: 8, benchmarkDuration: 5, warmupRequestCount: 2 }),
    file,
    notGiven,
  );
  const profiling = users.phases[1];
  assert.deepEqual(profiling.strategy, { name: "user_centric_rate", options: { rate: 4, users: 2, sessionTurns: 4 } });
  assert.equal(profiling.stops.gracePeriodMs, Infinity, "user-centric waits for its users unless a grace is given");
  const capped = loadPlans(
    config({
      requestRate: 10,
      requestRateRampDuration: 3,
      prefillConcurrency: 2,
      requestCancellationRate: 10,
      requestCancellationDelay: 0.5,
      warmupRequestCount: 3,
    }),
    synthetic,
    notGiven,
  );
  assert.equal((capped.phases[1].strategy.options as { rampMs: number }).rampMs, 3000);
  assert.deepEqual(capped.phases[1].cancellation, { percent: 10, delayMs: 500 });
  assert.equal(capped.phases[1].prefillConcurrency, 2);
  assert.equal(capped.phases[0].cancellation, undefined, "never cancelled on purpose during warmup");
  assert.equal(capped.phases[0].prefillConcurrency, 2);
});

Deno.test("load plans: warmup options replace their profiling twins, which the warmup otherwise inherits", () => {
  const inherits = loadPlans(
    config({ requestRate: 10, requestRateRampDuration: 3, arrivalPattern: "constant", warmupRequestCount: 4 }),
    synthetic,
    notGiven,
  );
  assert.deepEqual(inherits.phases[0].strategy.options, { rate: 10, pattern: "constant", rampMs: 3000 });
  const own = loadPlans(
    config({
      requestRate: 10,
      requestRateRampDuration: 3,
      arrivalPattern: "constant",
      warmupRequestCount: 4,
      warmupRequestRate: 50,
      warmupRequestRateRampDuration: 1,
      warmupArrivalPattern: "poisson",
      prefillConcurrency: 4,
      prefillConcurrencyRampDuration: 2,
      warmupPrefillConcurrencyRampDuration: 0.5,
    }),
    synthetic,
    notGiven,
  );
  assert.deepEqual(own.phases[0].strategy.options, { rate: 50, pattern: "poisson", rampMs: 1000 });
  assert.equal(own.phases[0].prefillRampMs, 500);
  assert.equal(own.phases[1].prefillRampMs, 2000);
  const closed = loadPlans(
    config({
      concurrency: 8,
      requestCount: 10,
      concurrencyRampDuration: 4,
      warmupRequestCount: 4,
      warmupConcurrencyRampDuration: 1,
    }),
    synthetic,
    { concurrency: true },
  );
  assert.deepEqual(closed.phases[0].strategy.options, { concurrency: 8, rampMs: 1000 });
  assert.deepEqual(closed.phases[1].strategy.options, { concurrency: 8, rampMs: 4000 });
  assert.deepEqual(closed.notices.slice(-2), [
    "Warmup: closed loop, 8 sessions in flight (ramped up from 1 over 1 s); stops after 4 requests.",
    "Profiling: closed loop, 8 sessions in flight (ramped up from 1 over 4 s); stops after 10 requests.",
  ]);
});
