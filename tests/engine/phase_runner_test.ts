import assert from "node:assert/strict";
import { type LaunchMeta, runPhase } from "../../src/engine/phase_runner.ts";
import { ManualClock } from "../../src/timing/clock.ts";
import { type LoadPlan, shardPlan } from "../../src/timing/load_plan.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { IoYield } from "../../src/runtime/io_yield.ts";
import { busy, readyRead } from "../runtime/ready_read.ts";

interface Launched {
  readonly meta: LaunchMeta;
  readonly startedAt: number;
  endedAt?: number;
  cancelled?: boolean;
}

/** Runs a phase on a virtual clock where every request takes `serviceMs`. */
async function simulate(plan: LoadPlan, serviceMs: number, until: number, signal = new AbortController().signal) {
  const clock = new ManualClock(1000);
  const launched: Launched[] = [];
  const done = runPhase({
    shard: shardPlan(plan, 0, 1),
    clock,
    rng: new SeededRandom(3),
    signal,
    launch: async (meta, reqSignal) => {
      const rec: Launched = { meta, startedAt: clock.now() };
      launched.push(rec);
      await clock.sleepUntil(clock.now() + serviceMs, reqSignal);
      rec.endedAt = clock.now();
      rec.cancelled = reqSignal.aborted;
    },
  });
  await clock.advanceTo(until);
  return { outcome: await done, launched, clock };
}

Deno.test("closed loop keeps exactly `concurrency` requests in flight until the count is reached", async () => {
  const { outcome, launched } = await simulate(
    { mode: "closed", concurrency: 2, requestCount: 5, gracePeriodMs: 0 },
    100,
    5000,
  );
  assert.equal(outcome.issued, 5);
  assert.deepStrictEqual(launched.map((l) => l.startedAt), [1000, 1000, 1100, 1100, 1200]);
  assert.deepStrictEqual(launched.map((l) => l.meta.requestIndex), [0, 1, 2, 3, 4]);
  // Closed loop: the credit is issued when the slot frees, and there is no schedule.
  assert.deepStrictEqual(launched.map((l) => l.meta.creditIssuedAt), [1000, 1000, 1100, 1100, 1200]);
  assert.ok(launched.every((l) => l.meta.scheduledAt === undefined));
  assert.equal(outcome.endedAt, 1300);
});

Deno.test("open loop sends on the absolute schedule regardless of response times", async () => {
  const { outcome, launched } = await simulate(
    { mode: "open", rate: 10, pattern: "constant", requestCount: 4, gracePeriodMs: 0 },
    250,
    5000,
  );
  assert.equal(outcome.issued, 4);
  assert.deepStrictEqual(launched.map((l) => l.meta.scheduledAt), [1000, 1100, 1200, 1300]);
  assert.deepStrictEqual(launched.map((l) => l.startedAt), [1000, 1100, 1200, 1300]);
});

Deno.test("open loop with a concurrency cap waits for a slot and records the lateness", async () => {
  const { launched } = await simulate(
    { mode: "open", rate: 10, pattern: "constant", concurrency: 1, requestCount: 3, gracePeriodMs: 0 },
    250,
    5000,
  );
  // Due at 1000, 1100, 1200 but each must wait for the previous one to finish (250 ms service).
  assert.deepStrictEqual(launched.map((l) => l.meta.scheduledAt), [1000, 1100, 1200]);
  assert.deepStrictEqual(launched.map((l) => l.startedAt), [1000, 1250, 1500]);
});

Deno.test("duration stops issuing, waits the grace period, then cancels stragglers", async () => {
  const { outcome, launched } = await simulate(
    { mode: "closed", concurrency: 1, durationMs: 250, gracePeriodMs: 30 },
    100,
    5000,
  );
  // Requests at 1000, 1100, 1200 (the one at 1200 runs past the 1250 deadline; grace ends at 1280).
  assert.equal(outcome.issued, 3);
  assert.equal(outcome.durationReached, true);
  assert.equal(outcome.cancelledInFlight, 1);
  assert.equal(launched[2].cancelled, true);
  assert.equal(launched[2].endedAt, 1280);
});

Deno.test("cancellation stops issuing and aborts requests in flight", async () => {
  const ac = new AbortController();
  const clock = new ManualClock(0);
  const seen: boolean[] = [];
  const done = runPhase({
    shard: shardPlan({ mode: "closed", concurrency: 2, requestCount: 100, gracePeriodMs: 0 }, 0, 1),
    clock,
    rng: new SeededRandom(1),
    signal: ac.signal,
    launch: async (_meta, reqSignal) => {
      await clock.sleepUntil(clock.now() + 100, reqSignal);
      seen.push(reqSignal.aborted);
    },
  });
  await clock.advanceTo(250);
  ac.abort();
  const outcome = await done;
  assert.equal(outcome.cancelled, true);
  assert.equal(outcome.issued, 6);
  assert.deepStrictEqual(seen, [false, false, false, false, true, true]);
});

Deno.test("a concurrency ramp opens slots evenly from 1 to the target over the ramp duration", async () => {
  const { launched } = await simulate(
    { mode: "closed", concurrency: 5, requestCount: 5, gracePeriodMs: 0, concurrencyRampMs: 400 },
    1000,
    5000,
  );
  // One slot at the start, then one more every 400/4 = 100 ms (checked at ≥ 10 ms intervals).
  assert.deepStrictEqual(launched.map((l) => l.startedAt), [1000, 1100, 1200, 1300, 1400]);
});

Deno.test("a burst of closed-loop issues lets a pending socket read complete before the burst ends", async () => {
  // The read's data has arrived, like the last token of a stream still running while others are re-issued.
  const io = new IoYield();
  const read = await readyRead();
  try {
    let issuedBefore = 0;
    const outcome = await runPhase({
      shard: shardPlan({ mode: "closed", concurrency: 40, requestCount: 40, gracePeriodMs: 0 }, 0, 1),
      clock: new ManualClock(0),
      rng: new SeededRandom(1),
      signal: new AbortController().signal,
      yieldToIo: io.wait,
      launch: () => {
        busy(0.2); // ~the CPU cost of issuing a request
        if (!read.done()) issuedBefore++;
        return Promise.resolve();
      },
    });
    assert.equal(outcome.issued, 40);
    assert.ok(read.done());
    assert.ok(issuedBefore >= 1 && issuedBefore < 40, `issued ${issuedBefore} of 40 before the read completed`);
  } finally {
    read.close();
    io.close();
  }
});
