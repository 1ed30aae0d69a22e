import assert from "node:assert/strict";
import {
  buildLanes,
  datasetWrapProblem,
  sampleInstant,
  snapshotAt,
  type StreamShape,
  traceTimes,
} from "../../src/timing/trajectory.ts";

/**
 * A hand-made agent trace: root `r` sends at 0, 10, 20 and 30 ms; its turn 1 starts sub-agent `c` (sends at 12, 15
 * and 25 ms), which its turn 3 joins. Trace `b` is a plain two-turn conversation (0, 4 ms). Stream indices: r = 0,
 * c = 1, b = 2.
 */
const TRACE: StreamShape[] = [
  {
    id: "r",
    turns: [{ atMs: 0 }, { atMs: 10, spawns: [{ children: [1], joinAt: 3 }] }, { atMs: 20 }, { atMs: 30 }],
  },
  { id: "c", child: true, turns: [{ atMs: 12 }, { atMs: 15 }, { atMs: 25 }] },
  { id: "b", turns: [{ atMs: 0 }, { atMs: 4 }] },
];

Deno.test("trajectory: send times are the recorded ones when every turn of the trace has one", () => {
  const times = traceTimes(TRACE, 0);
  assert.deepEqual(times.get(0), [0, 10, 20, 30]);
  assert.deepEqual(times.get(1), [12, 15, 25]);
  assert.equal(times.has(2), false, "another trace is not part of it");
});

Deno.test("trajectory: without recorded times, each turn goes its think time after the previous, a child after its spawning turn", () => {
  const streams: StreamShape[] = [
    { id: "r", turns: [{}, { delayMs: 100, spawns: [{ children: [1] }] }, { delayMs: 50 }] },
    { id: "c", child: true, turns: [{ delayMs: 7 }, { delayMs: 3 }] },
  ];
  const times = traceTimes(streams, 0);
  assert.deepEqual(times.get(0), [0, 100, 150]);
  assert.deepEqual(times.get(1), [107, 110]); // 100 + 7, then + 3
});

Deno.test("trajectory: at t* = 14 ms the root resumes at turn 2 in 6 ms and the live sub-agent at its turn 1 in 1 ms", () => {
  const s = snapshotAt(TRACE, 0, 14)!;
  assert.deepEqual(s.root, { turn: 2, offsetMs: 6, gated: false });
  assert.deepEqual(s.children, [{ stream: 1, turn: 1, offsetMs: 1, joinAt: 3 }]);
  // The warm-up replays each live stream's last request before t*: root turn 1 (4 ms before), c's turn 0 (2 ms).
  assert.deepEqual(s.warm, [{ stream: 0, turn: 1, leadMs: 4 }, { stream: 1, turn: 0, leadMs: 2 }]);
  assert.equal(s.position, 14 / 30);
});

Deno.test("trajectory: a root whose next turn joins a live sub-agent waits for it (gated)", () => {
  const s = snapshotAt(TRACE, 0, 22)!;
  assert.deepEqual(s.root, { turn: 3, offsetMs: 8, gated: true });
  assert.deepEqual(s.children, [{ stream: 1, turn: 2, offsetMs: 3, joinAt: 3 }]);
  assert.deepEqual(s.warm, [{ stream: 0, turn: 2, leadMs: 2 }, { stream: 1, turn: 1, leadMs: 7 }]);
});

Deno.test("trajectory: a finished sub-agent is not live; one not spawned yet is left to its spawning turn", () => {
  const after = snapshotAt(TRACE, 0, 26)!;
  assert.deepEqual(after.root, { turn: 3, offsetMs: 4, gated: false });
  assert.deepEqual(after.children, []);
  const before = snapshotAt(TRACE, 0, 5)!;
  assert.deepEqual(before.root, { turn: 1, offsetMs: 5, gated: false });
  assert.deepEqual(before.children, []);
  assert.deepEqual(before.warm, [{ stream: 0, turn: 0, leadMs: 5 }]);
  // Past the last request nothing is left to send.
  assert.equal(snapshotAt(TRACE, 0, 31), undefined);
});

Deno.test("trajectory: t* is the window's start when min = max, and drawn inside it, per lane, from the seed", () => {
  const o = { lanes: 1, seed: 42, minRatio: 0.5, maxRatio: 0.5 };
  assert.equal(sampleInstant(0, 30, o, "r", 0), 15);
  const wide = { ...o, minRatio: 0.25, maxRatio: 0.75 };
  const draws = [0, 1, 2, 3].map((lane) => sampleInstant(100, 200, wide, "r", lane));
  for (const t of draws) assert.ok(t >= 125 && t <= 175, `t* ${t} inside [125, 175]`);
  assert.equal(new Set(draws).size, 4, "lanes replaying one trace start at different instants");
  assert.deepEqual(
    [0, 1, 2, 3].map((lane) => sampleInstant(100, 200, wide, "r", lane)),
    draws,
    "same seed, same draws",
  );
  assert.notDeepEqual([0, 1, 2, 3].map((lane) => sampleInstant(100, 200, { ...wide, seed: 43 }, "r", lane)), draws);
});

Deno.test("trajectory: lanes take traces in dataset order and wrap; each lane samples its own t*", () => {
  const lanes = buildLanes(TRACE, [0, 2], { lanes: 3, seed: 1, minRatio: 0.5, maxRatio: 0.5 });
  assert.deepEqual(lanes.map((l) => [l.lane, l.conversation, l.snapshot.tStarMs]), [[0, 0, 15], [1, 2, 2], [2, 0, 15]]);
  // r at 15 ms: root next is turn 2 (20 ms); c's turn 1 is sent at 15 ms, at t* itself.
  assert.deepEqual(lanes[0].snapshot.root, { turn: 2, offsetMs: 5, gated: false });
  assert.deepEqual(lanes[0].snapshot.children, [{ stream: 1, turn: 1, offsetMs: 0, joinAt: 3 }]);
});

Deno.test("trajectory: a trace with nothing to send is skipped, and a pool of none gives no lane", () => {
  const streams: StreamShape[] = [{ id: "empty", turns: [] }, ...TRACE];
  const lanes = buildLanes(streams, [0, 1, 3], { lanes: 2, seed: 1, minRatio: 0, maxRatio: 0 });
  assert.deepEqual(lanes.map((l) => streams[l.conversation].id), ["r", "b"]);
  assert.deepEqual(buildLanes([{ id: "empty", turns: [] }], [0], { lanes: 2, seed: 1, minRatio: 0, maxRatio: 1 }), []);
});

Deno.test("trajectory: more lanes than traces is refused on a bounded run unless wrapping or a cache-bust target allows it", () => {
  const base = { distinct: 2, concurrency: 3, allowWrap: false, cacheBust: false, durationMs: 60_000 };
  assert.match(datasetWrapProblem(base)!, /--concurrency 3 exceeds the 2 distinct traces/);
  assert.equal(datasetWrapProblem({ ...base, allowWrap: true }), undefined);
  assert.equal(datasetWrapProblem({ ...base, cacheBust: true }), undefined);
  assert.equal(datasetWrapProblem({ ...base, durationMs: undefined }), undefined, "one pass over the dataset");
  assert.equal(datasetWrapProblem({ ...base, durationMs: undefined, sessions: 2 }), undefined, "sessions within it");
  assert.equal(datasetWrapProblem({ ...base, concurrency: 2 }), undefined);
});
