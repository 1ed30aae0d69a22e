import assert from "node:assert/strict";
import { WAKE_LEAD_MS, WakeThread } from "../../src/timing/wake_thread.ts";
import { preciseSleepUntil } from "../../src/timing/precise_timer.ts";

Deno.test("WakeThread wakes each waiter near its time, earliest first, whatever order they were asked in", async () => {
  const wake = new WakeThread();
  try {
    await wake.started;
    assert.equal(wake.ready, true);
    const t0 = performance.now();
    const order: number[] = [];
    const woke: number[] = [];
    const ask = (i: number, at: number) =>
      wake.wakeNear(at).then(() => {
        order.push(i);
        woke[i] = performance.now() - at;
      });
    // The latest first, then an earlier one that must re-arm the helper for its own time. A waiter the helper was
    // not re-armed for wakes with the next one, 400 ms late; a busy machine delays a wake by tens of ms, rarely
    // more than a hundred (220 ms seen at load 10 on 2 cores), so the bound sits between the two.
    await Promise.all([ask(2, t0 + 820), ask(0, t0 + 20), ask(1, t0 + 420)]);
    assert.deepEqual(order, [0, 1, 2]);
    for (const late of woke) {
      assert.ok(late >= -WAKE_LEAD_MS - 0.05, `woke ${(-late).toFixed(3)} ms before its time`);
      assert.ok(late < 350, `woke ${late.toFixed(1)} ms after its time`);
    }
  } finally {
    wake.close();
  }
});

Deno.test("WakeThread.close releases waiting callers at once and later calls resolve immediately", async () => {
  const wake = new WakeThread();
  await wake.started;
  const far = wake.wakeNear(performance.now() + 60_000);
  wake.close();
  assert.equal(wake.ready, false);
  const t = performance.now();
  await far;
  await wake.wakeNear(performance.now() + 60_000);
  assert.ok(performance.now() - t < 1_000);
});

Deno.test("A sleep with a WakeThread fires at (not before) its target and polls only its last stretch", async () => {
  const wake = new WakeThread();
  try {
    await wake.started;
    for (let i = 0; i < 5; i++) {
      let firstPoll: number | undefined;
      const yieldToIo = () => {
        firstPoll ??= performance.now();
        return new Promise<void>((resolve) => setImmediate(resolve));
      };
      const target = performance.now() + 20 + i;
      await preciseSleepUntil(target, undefined, undefined, yieldToIo, wake);
      assert.ok(performance.now() >= target, "fired before its target");
      // Without the wake thread the coarse timer hands over ~2.5 ms before the target (FINE_WINDOW_MS).
      if (firstPoll !== undefined) {
        assert.ok(
          firstPoll >= target - WAKE_LEAD_MS - 0.05,
          `polled from ${(target - firstPoll).toFixed(3)} ms before the target`,
        );
      }
    }
  } finally {
    wake.close();
  }
});

Deno.test("Until its helper runs, a sleep given a WakeThread times itself (and still fires on time)", async () => {
  const wake = new WakeThread();
  try {
    assert.equal(wake.ready, false, "the helper cannot have loaded the program yet");
    const target = performance.now() + 5;
    await preciseSleepUntil(target, undefined, undefined, undefined, wake);
    assert.ok(performance.now() >= target);
  } finally {
    wake.close();
  }
});
