import assert from "node:assert/strict";
import { type LoadPlan, shardPlan, splitEvenly } from "../../src/timing/load_plan.ts";
import { SlotGate } from "../../src/timing/slot_gate.ts";

Deno.test("splitEvenly spreads the remainder over the first parts", () => {
  assert.deepStrictEqual(splitEvenly(10, 3), [4, 3, 3]);
  assert.deepStrictEqual(splitEvenly(2, 4), [1, 1, 0, 0]);
});

Deno.test("closed-loop shards split concurrency and count proportionally in contiguous blocks", () => {
  const plan: LoadPlan = { mode: "closed", concurrency: 3, requestCount: 10, gracePeriodMs: 30_000 };
  const parts = [0, 1].map((i) => shardPlan(plan, i, 2));
  assert.deepStrictEqual(parts.map((p) => p.plan.concurrency), [2, 1]);
  assert.deepStrictEqual(parts.map((p) => p.plan.requestCount), [6, 4]);
  assert.deepStrictEqual(parts.map((p) => p.firstIndex), [0, 6]);
  assert.deepStrictEqual(parts.map((p) => p.indexStride), [1, 1]);
});

Deno.test("open-loop shards keep the global rate and interleave request indices", () => {
  const plan: LoadPlan = { mode: "open", rate: 100, pattern: "constant", requestCount: 7, gracePeriodMs: 0 };
  const parts = [0, 1].map((i) => shardPlan(plan, i, 2));
  assert.deepStrictEqual(parts.map((p) => p.plan.rate), [100, 100]);
  assert.deepStrictEqual(parts.map((p) => p.plan.requestCount), [4, 3]);
  assert.deepStrictEqual(parts.map((p) => [p.firstIndex, p.indexStride, p.shardIndex]), [[0, 2, 0], [1, 2, 1]]);
});

Deno.test("slot gate grants free slots at once and queues the rest in order", async () => {
  const gate = new SlotGate(1);
  assert.equal(await gate.acquire(), true);
  const order: number[] = [];
  const a = gate.acquire().then((ok) => order.push(ok ? 1 : -1));
  const b = gate.acquire().then((ok) => order.push(ok ? 2 : -2));
  assert.equal(gate.waiting, 2);
  gate.release();
  await a;
  gate.close();
  await b;
  assert.deepStrictEqual(order, [1, -2]);
  assert.equal(await gate.acquire(), false);
});
