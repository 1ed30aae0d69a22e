import assert from "node:assert/strict";
import { phaseConcurrency, phaseRate, type PhaseSpec, shardPhase } from "../../src/timing/phase_spec.ts";
import { splitEvenly } from "../../src/timing/split_evenly.ts";
import { SlotGate } from "../../src/timing/slot_gate.ts";

Deno.test("splitEvenly spreads the remainder over the first parts", () => {
  assert.deepStrictEqual(splitEvenly(10, 3), [4, 3, 3]);
  assert.deepStrictEqual(splitEvenly(2, 4), [1, 1, 0, 0]);
});

Deno.test("closed-loop shards split concurrency and count proportionally in contiguous blocks", () => {
  const phase: PhaseSpec = {
    name: "profiling",
    strategy: { name: "concurrency", options: { concurrency: 3 } },
    stops: { requestCount: 10, gracePeriodMs: 30_000 },
  };
  const parts = [0, 1].map((i) => shardPhase(phase, i, 2));
  assert.deepStrictEqual(parts.map((p) => phaseConcurrency(p.spec)), [2, 1]);
  assert.deepStrictEqual(parts.map((p) => p.spec.stops.requestCount), [6, 4]);
  assert.deepStrictEqual(parts.map((p) => p.firstIndex), [0, 6]);
  assert.deepStrictEqual(parts.map((p) => p.indexStride), [1, 1]);
});

Deno.test("closed-loop shards without a request count interleave indices, so none is used twice", () => {
  const phase: PhaseSpec = {
    name: "profiling",
    strategy: { name: "concurrency", options: { concurrency: 4 } },
    stops: { durationMs: 1000, gracePeriodMs: 0 },
  };
  const parts = [0, 1].map((i) => shardPhase(phase, i, 2));
  assert.deepStrictEqual(parts.map((p) => [p.firstIndex, p.indexStride]), [[0, 2], [1, 2]]);
  assert.deepStrictEqual(parts.map((p) => p.spec.stops.durationMs), [1000, 1000]);
});

Deno.test("open-loop shards keep the global rate and interleave request indices", () => {
  const phase: PhaseSpec = {
    name: "profiling",
    strategy: { name: "request_rate", options: { rate: 100, pattern: "constant", concurrency: 5 } },
    stops: { requestCount: 7, sessionCount: 3, gracePeriodMs: 0 },
  };
  const parts = [0, 1].map((i) => shardPhase(phase, i, 2));
  assert.deepStrictEqual(parts.map((p) => phaseRate(p.spec)), [100, 100]);
  assert.deepStrictEqual(parts.map((p) => phaseConcurrency(p.spec)), [3, 2]);
  assert.deepStrictEqual(parts.map((p) => p.spec.stops.requestCount), [4, 3]);
  assert.deepStrictEqual(parts.map((p) => p.spec.stops.sessionCount), [2, 1]);
  assert.deepStrictEqual(parts.map((p) => [p.firstIndex, p.indexStride, p.shardIndex]), [[0, 2, 0], [1, 2, 1]]);
});

Deno.test("trace-replay shards replay every other start, and share the budget by their starts", () => {
  const starts = [0, 1, 2, 3, 4].map((k) => ({ conversationIndex: k, atMs: k * 10 }));
  const phase: PhaseSpec = {
    name: "profiling",
    strategy: { name: "fixed_schedule", options: { starts } },
    stops: { requestCount: 5, gracePeriodMs: 0 },
  };
  const parts = [0, 1].map((i) => shardPhase(phase, i, 2));
  const shardStarts = parts.map((p) => (p.spec.strategy.options as { starts: { conversationIndex: number }[] }).starts);
  assert.deepStrictEqual(shardStarts.map((s) => s.map((x) => x.conversationIndex)), [[0, 2, 4], [1, 3]]);
  assert.deepStrictEqual(parts.map((p) => p.spec.stops.requestCount), [3, 2]);
});

Deno.test("one shard runs the phase as it is", () => {
  const phase: PhaseSpec = {
    name: "warmup",
    strategy: { name: "concurrency", options: { concurrency: 3 } },
    stops: { requestCount: 10, gracePeriodMs: 0 },
  };
  assert.deepStrictEqual(shardPhase(phase, 0, 1), {
    spec: phase,
    firstIndex: 0,
    indexStride: 1,
    shardIndex: 0,
    shardCount: 1,
  });
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
