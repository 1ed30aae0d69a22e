import assert from "node:assert/strict";
import { datasetShape } from "../../src/engine/dataset_shape.ts";
import type { PreparedConversation, PreparedTurn } from "../../src/engine/prepared_conversation.ts";

const turn = (over: Partial<PreparedTurn> = {}): PreparedTurn => ({
  conversationId: "c",
  turnIndex: 0,
  payload: {},
  ...over,
});
const conv = (id: string, turns: PreparedTurn[], over: Partial<PreparedConversation> = {}): PreparedConversation => ({
  id,
  turns,
  model: "m",
  withHistory: false,
  ...over,
});

Deno.test("a dataset without children is shaped by every conversation as before", () => {
  const { streams, ...shape } = datasetShape(
    [conv("a", [turn({ timestampMs: 5 }), turn()]), conv("b", [turn()])],
    true,
  );
  assert.deepEqual(streams!().map((s) => s.id), ["a", "b"]);
  assert.deepEqual(shape, {
    startTimestamps: [5, undefined],
    totalTurns: 3,
    conversations: 2,
    turnCounts: [2, 1],
    fromFile: true,
  });
});

Deno.test("a dataset with children is shaped by its roots, each counting its whole tree's requests", () => {
  const conversations = [
    // root 0: two requests, a request-free step, children 1 (twice: two spawns) and 2 (via 1), pre-started 3
    conv("root", [
      turn({ timestampMs: 100, spawns: [{ children: [1] }] }),
      turn({ requestFree: true, spawns: [{ children: [1] }] }),
      turn(),
    ], { tree: true, spawnsFirst: [{ children: [3] }] }),
    conv("mid", [turn({ spawns: [{ children: [2] }] })], { tree: true, child: true }),
    conv("leaf", [turn(), turn()], { child: true }),
    conv("pre", [turn()], { child: true }),
    conv("plain", [turn({ timestampMs: 7 })]),
  ];
  const shape = datasetShape(conversations, false);
  // root: 2 + pre 1 + 2 × (mid 1 + leaf 2) = 9
  assert.deepEqual(shape.turnCounts, [9, 1]);
  assert.equal(shape.totalTurns, 10);
  assert.equal(shape.conversations, 2);
  assert.deepEqual(shape.startTimestamps, [100, 7]);
  // What agentic replay samples from: every conversation with its spawns and think times.
  const streams = shape.streams!();
  assert.deepEqual(streams.map((s) => [s.id, s.child === true]), [
    ["root", false],
    ["mid", true],
    ["leaf", true],
    ["pre", true],
    ["plain", false],
  ]);
  assert.deepEqual(streams[0].spawnsFirst, [{ children: [3] }]);
  assert.deepEqual(streams[0].turns[1], { spawns: [{ children: [1] }], requestFree: true });
});

Deno.test("a conversation that starts itself through its children is an input error naming it", () => {
  const conversations = [
    conv("a", [turn({ spawns: [{ children: [1] }] })], { tree: true }),
    conv("b", [turn({ spawns: [{ children: [1] }] })], { tree: true, child: true }),
  ];
  assert.throws(() => datasetShape(conversations, true), /conversation b starts itself/);
});
