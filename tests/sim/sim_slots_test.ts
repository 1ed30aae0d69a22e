import assert from "node:assert/strict";
import { SimSlots } from "../../src/sim/sim_slots.ts";

Deno.test("SimSlots admits up to its slots at once, then in arrival order as slots free", async () => {
  const slots = new SimSlots(2);
  assert.equal(await slots.acquire(), "admitted");
  assert.equal(await slots.acquire(), "admitted");
  const order: string[] = [];
  const third = slots.acquire().then((w) => order.push(`c ${w}`));
  const fourth = slots.acquire().then((w) => order.push(`d ${w}`));
  assert.deepEqual([slots.busy, slots.waiting], [2, 2]);
  await Promise.resolve();
  assert.deepEqual(order, [], "nobody waiting is admitted while both slots are busy");
  slots.release();
  await third;
  assert.deepEqual(order, ["c admitted"]);
  assert.deepEqual([slots.busy, slots.waiting], [2, 1]);
  slots.release();
  await fourth;
  assert.deepEqual(order, ["c admitted", "d admitted"]);
  // A newcomer never overtakes a waiter: with one slot free and one waiting, the waiter goes first.
  const late = new SimSlots(1);
  await late.acquire();
  const first = late.acquire();
  late.release();
  assert.equal(await first, "admitted");
  assert.deepEqual([late.busy, late.waiting], [1, 0]);
});

Deno.test("SimSlots: a waiter whose client left gives up its place; shutdown turns every waiter away", async () => {
  const slots = new SimSlots(1);
  await slots.acquire();
  const gone = new AbortController();
  const leaving = slots.acquire(gone.signal);
  const staying = slots.acquire();
  gone.abort();
  assert.equal(await leaving, "gone");
  assert.equal(slots.waiting, 1);
  slots.release();
  assert.equal(await staying, "admitted");
  const waiting = slots.acquire();
  slots.close();
  assert.equal(await waiting, "closed");
  assert.equal(await slots.acquire(), "closed");
  // No limit: everyone at once.
  const open = new SimSlots(0);
  for (let i = 0; i < 100; i++) assert.equal(await open.acquire(), "admitted");
  assert.equal(open.waiting, 0);
});
