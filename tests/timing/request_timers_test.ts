import assert from "node:assert/strict";
import { ManualClock } from "../../src/timing/clock.ts";
import { RequestTimers } from "../../src/timing/request_timers.ts";

Deno.test("system idle cap: with nothing in flight, pending requests move earlier so idle time stays under the cap", async () => {
  const clock = new ManualClock(0);
  const timers = new RequestTimers(clock, 10, 0);
  const stop = new AbortController();
  // Idle since the phase start at 0: a request due at 100 goes at 10 instead.
  const first = timers.sleepUntil(100, stop.signal);
  await clock.advanceTo(10);
  assert.equal(await first, 10);
  timers.requestStarted();
  // While a request is in flight nothing moves: a think time due at 80 stays there until the answer arrives.
  const second = timers.sleepUntil(80, stop.signal);
  await clock.advanceTo(30);
  timers.requestEnded(); // idle from 30: 80 moves to 40, a shift of 40
  await clock.advanceTo(40);
  assert.equal(await second, 40);
  assert.deepEqual(timers.skipped, { shifts: 2, ms: 130 });
  // Still idle since 30: two requests scheduled together move together, keeping their spacing (200, 205 → 40, 45).
  const a = timers.sleepUntil(200, stop.signal);
  const b = timers.sleepUntil(205, stop.signal);
  await clock.advanceTo(45);
  assert.deepEqual([await a, await b], [40, 45]);
  assert.equal(timers.skippedMs, 290);
});

Deno.test("system idle cap: without a cap a request sleeps until its own due time", async () => {
  const clock = new ManualClock(0);
  const timers = new RequestTimers(clock, undefined, 0);
  const due = timers.sleepUntil(100, new AbortController().signal);
  await clock.advanceTo(99);
  let done = false;
  due.then(() => done = true);
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(done, false);
  await clock.advanceTo(100);
  assert.equal(await due, 100);
});
