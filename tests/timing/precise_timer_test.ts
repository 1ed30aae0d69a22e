import assert from "node:assert/strict";
import { FINE_WINDOW_MS, preciseSleepUntil, PreciseTimer } from "../../src/timing/precise_timer.ts";
import { IoYield } from "../../src/runtime/io_yield.ts";
import { readyRead } from "../runtime/ready_read.ts";

Deno.test("preciseSleepUntil resolves at, not before, its target, and at once when aborted", async () => {
  const target = performance.now() + 6;
  await preciseSleepUntil(target);
  assert.ok(performance.now() >= target);
  const aborted = new AbortController();
  aborted.abort();
  const t = performance.now();
  await preciseSleepUntil(t + 10_000, aborted.signal);
  assert.ok(performance.now() - t < 1_000);
});

Deno.test("PreciseTimer polling its last stretch on an IoYield lets a pending socket read complete first", async () => {
  const io = new IoYield();
  await io.wait();
  const read = await readyRead();
  try {
    // Inside the fine window from the start: the timer polls on yields until it fires.
    const target = performance.now() + FINE_WINDOW_MS * 0.8;
    let readDoneAtFire: boolean | undefined;
    const fired = Promise.withResolvers<void>();
    const timer = new PreciseTimer(
      () => {
        readDoneAtFire = read.done();
        fired.resolve();
      },
      undefined,
      { yieldToIo: io.wait },
    );
    timer.fireAt(target);
    await fired.promise;
    assert.ok(performance.now() >= target);
    assert.equal(readDoneAtFire, true);
    timer.close();
  } finally {
    read.close();
    io.close();
  }
});
