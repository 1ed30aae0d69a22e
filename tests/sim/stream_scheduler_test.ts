import assert from "node:assert/strict";
import { type ScheduledTask, StreamScheduler } from "../../src/sim/stream_scheduler.ts";

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

Deno.test("stream scheduler runs ten thousand tasks on their due times with one shared timer", async () => {
  const scheduler = new StreamScheduler();
  const t0 = performance.now();
  const runs = new Array<number>(10_000).fill(0);
  let earliest = Infinity;
  const finished = Promise.withResolvers<void>();
  let left = runs.length;
  for (let i = 0; i < runs.length; i++) {
    let due = t0 + 10 + (i % 7);
    scheduler.add({
      run(horizon) {
        earliest = Math.min(earliest, performance.now() - due);
        assert.ok(horizon >= due);
        runs[i]++;
        if (runs[i] === 10) {
          if (--left === 0) finished.resolve();
          return undefined;
        }
        due += 5;
        return due;
      },
      abort() {},
    }, due);
  }
  assert.equal(scheduler.size, 10_000);
  await finished.promise;
  const elapsed = performance.now() - t0;
  assert.ok(runs.every((n) => n === 10));
  assert.equal(scheduler.size, 0);
  assert.ok(earliest > -1, `a task ran ${-earliest} ms early`);
  // Last due ~61 ms; generous bound against a loaded machine.
  assert.ok(elapsed < 2000, `took ${elapsed.toFixed(0)} ms`);
});

Deno.test("stream scheduler runs tasks in due order and skips cancelled ones", async () => {
  const scheduler = new StreamScheduler();
  const order: string[] = [];
  const t0 = performance.now();
  const task = (name: string): ScheduledTask => ({
    run() {
      order.push(name);
      return undefined;
    },
    abort() {},
  });
  scheduler.add(task("c"), t0 + 30);
  scheduler.add(task("a"), t0 + 5);
  const cancelled = scheduler.add(task("x"), t0 + 10);
  scheduler.add(task("b"), t0 + 20);
  cancelled.cancel();
  cancelled.cancel();
  assert.equal(scheduler.size, 3);
  await sleep(60);
  assert.deepEqual(order, ["a", "b", "c"]);
  assert.equal(scheduler.size, 0);
});

Deno.test("stream scheduler batches everything overdue into one wake-up", async () => {
  const scheduler = new StreamScheduler();
  const t0 = performance.now();
  const ran: number[] = [];
  for (let i = 0; i < 5; i++) {
    scheduler.add({
      run() {
        ran.push(performance.now());
        return undefined;
      },
      abort() {},
    }, t0 - 100 + i);
  }
  await sleep(20);
  assert.equal(ran.length, 5);
  assert.ok(Math.max(...ran) - Math.min(...ran) < 2);
});

Deno.test("stream scheduler abortAll aborts live tasks and clears its timer", async () => {
  const scheduler = new StreamScheduler();
  let aborted = 0;
  let ran = 0;
  for (let i = 0; i < 3; i++) {
    scheduler.add({
      run() {
        ran++;
        return undefined;
      },
      abort() {
        aborted++;
      },
    }, performance.now() + 50);
  }
  scheduler.abortAll();
  assert.equal(aborted, 3);
  assert.equal(scheduler.size, 0);
  await sleep(70);
  assert.equal(ran, 0);
});

Deno.test("stream scheduler survives a task that throws", async () => {
  const scheduler = new StreamScheduler();
  let ok = false;
  scheduler.add({
    run() {
      throw new Error("boom");
    },
    abort() {},
  }, performance.now());
  scheduler.add({
    run() {
      ok = true;
      return undefined;
    },
    abort() {},
  }, performance.now() + 1);
  await sleep(20);
  assert.ok(ok);
  assert.equal(scheduler.size, 0);
});
