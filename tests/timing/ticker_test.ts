import assert from "node:assert/strict";
import { Ticker } from "../../src/timing/ticker.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A ticker whose `onTick` counts its calls (`ticks()`) and answers `work()`. */
function countingTicker(periodMs: number, idleStopTicks: number, work: () => boolean) {
  let ticks = 0;
  const ticker = new Ticker(periodMs, () => {
    ticks++;
    return work();
  }, idleStopTicks);
  return { ticker, ticks: () => ticks };
}

/** Waits (2 s at most) until the ticker has stopped itself. */
async function untilStopped(t: Ticker): Promise<void> {
  for (let waited = 0; t.running && waited < 2000; waited += 5) await sleep(5);
}

Deno.test("Ticker calls onTick every period while it reports work, then stops after the idle ticks", async () => {
  let work = 3;
  const { ticker: t, ticks } = countingTicker(5, 2, () => work-- > 0);
  assert.equal(t.running, false);
  t.start();
  assert.equal(t.running, true);
  // 3 ticks with work, then 2 idle ones stop it.
  await untilStopped(t);
  assert.equal(t.running, false);
  assert.equal(ticks(), 5);
  await sleep(30);
  assert.equal(ticks(), 5, "no tick after it stopped");
});

Deno.test("Ticker.start on a running ticker keeps one interval and starts the idle count over", async () => {
  const { ticker: t, ticks } = countingTicker(5, 4, () => false);
  t.start();
  await sleep(12);
  t.start(); // idle count back to 0: four more idle ticks before it stops
  t.start();
  const before = ticks();
  await untilStopped(t);
  assert.equal(ticks() - before, 4, "one interval, idle count restarted");
});

Deno.test("Ticker.stop stops it at once", async () => {
  const { ticker: t, ticks } = countingTicker(2, 1000, () => true);
  t.start();
  await sleep(10);
  t.stop();
  assert.equal(t.running, false);
  const at = ticks();
  assert.ok(at > 0);
  await sleep(20);
  assert.equal(ticks(), at);
  t.stop(); // a second stop is harmless
});
