import assert from "node:assert/strict";
import { DeadlineQueue } from "../../src/timing/deadline_queue.ts";

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

Deno.test("DeadlineQueue fires deadlines in time order, whatever order they were added in", async () => {
  const q = new DeadlineQueue();
  const t0 = performance.now();
  const fired: [string, number][] = [];
  const at = (name: string, ms: number) => q.add(t0 + ms, () => fired.push([name, performance.now() - t0]));
  at("c", 60);
  at("a", 20);
  at("d", 60);
  at("b", 40);
  assert.equal(q.size, 4);
  await delay(120);
  assert.deepEqual(fired.map(([n]) => n), ["a", "b", "c", "d"]);
  const due: Record<string, number> = { a: 20, b: 40, c: 60, d: 60 };
  for (const [name, t] of fired) assert.ok(t >= due[name], `${name} fired at ${t} ms, before its deadline`);
  assert.equal(q.size, 0);
});

Deno.test("DeadlineQueue.cancel removes deadlines, the first included; the rest still fire, not before their time", async () => {
  const q = new DeadlineQueue();
  const t0 = performance.now();
  const fired: [string, number][] = [];
  const add = (name: string, ms: number) => q.add(t0 + ms, () => fired.push([name, performance.now() - t0]));
  const first = add("first", 15);
  const middle = add("middle", 30);
  const last = add("last", 45);
  q.cancel(first);
  q.cancel(middle);
  q.cancel(middle); // twice: a no-op
  assert.equal(q.size, 1);
  await delay(90);
  assert.deepEqual(fired.map(([name]) => name), ["last"]);
  assert.ok(fired[0][1] >= 45, `fired at ${fired[0][1]} ms, before its deadline`);
  q.cancel(last); // after firing: a no-op
  q.cancel(first);
  assert.equal(q.size, 0);
});

Deno.test("DeadlineQueue: a deadline added by a firing callback, and one earlier than the armed timer", async () => {
  const q = new DeadlineQueue();
  const t0 = performance.now();
  const fired: string[] = [];
  q.add(t0 + 200, () => fired.push("late"));
  // Earlier than the armed timer: must re-arm, not wait 200 ms.
  q.add(t0 + 10, () => {
    fired.push("early");
    // Added while firing, later than the pending "soon": "soon" must still fire at its own time.
    q.add(performance.now() + 150, () => fired.push("added"));
  });
  q.add(t0 + 30, () => fired.push("soon"));
  await delay(60);
  assert.deepEqual(fired, ["early", "soon"]);
  await delay(200);
  assert.deepEqual(fired, ["early", "soon", "added", "late"]);
});

Deno.test("DeadlineQueue: an emptied queue holds no timer, so the test's op sanitizer sees none left", () => {
  const q = new DeadlineQueue();
  const a = q.add(performance.now() + 60_000, () => {});
  const b = q.add(performance.now() + 30_000, () => {});
  q.cancel(a);
  q.cancel(b);
  assert.equal(q.size, 0);
});

Deno.test("DeadlineQueue re-arms when the timer fires before the first deadline is due by its clock", async () => {
  let skew = 0;
  const q = new DeadlineQueue(() => performance.now() - skew);
  const fired: number[] = [];
  const t0 = performance.now();
  q.add(t0 + 10, () => fired.push(performance.now() - t0)); // armed for 10 ms
  skew = 25; // when the timer fires, the queue's clock reads ~15 ms short of the deadline
  await delay(20);
  assert.deepEqual(fired, []);
  skew = 0;
  await delay(40);
  assert.equal(fired.length, 1);
});
