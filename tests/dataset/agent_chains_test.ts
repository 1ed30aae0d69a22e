import assert from "node:assert/strict";
import { type ChainRequest, detectChains, idleGapWarp } from "../../src/dataset/agent_chains.ts";

const r = (t: number, apiTime: number, hashIds: number[], model = "m"): ChainRequest => ({
  t,
  apiTime,
  model,
  hashIds,
});

Deno.test("agent streams: a sequential agent stays one stream through a compaction; overlapping or unrelated requests split off", () => {
  const chains = detectChains([
    r(0, 1, [1, 2]), // 0: main
    r(0.5, 1, [1, 2, 3]), // 1: overlaps 0 (still answering): another agent forked from its context
    r(1.2, 1, [1, 2, 4]), // 2: after 0 ended; shares 2 with 0 and 2 with 1 (1 still answering): main
    r(3, 1, [1, 7]), // 3: compaction of main (shares 1 block, main ended): main
    r(3.5, 0.2, [50, 51]), // 4: shares nothing: a one-off call
    r(4, 1, [], "other"), // 5: no ids: rides the main stream
    r(5, 1, [1, 7, 8], "other"), // 6: another model never continues a stream
  ]);
  assert.deepEqual(chains, [[0, 2, 3, 5], [1], [4], [6]]);
});

Deno.test("idle-gap warp: gaps between starts longer than the cap are cut, later times move earlier", () => {
  const warp = idleGapWarp([0, 10, 200, 205], 60);
  assert.deepEqual([0, 10, 50, 70, 150, 200, 205].map(warp), [0, 10, 50, 70, 70, 70, 75]);
});
