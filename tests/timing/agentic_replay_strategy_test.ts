import assert from "node:assert/strict";
import { AGENTIC_REPLAY_STRATEGY, planAgenticReplay } from "../../src/timing/agentic_replay_strategy.ts";
import type { DatasetShape, StrategyPlanInput, Tick } from "../../src/timing/load_strategy.ts";
import type { StreamShape } from "../../src/timing/trajectory.ts";
import { ManualClock } from "../../src/timing/clock.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { InputError } from "../../src/base/input_error.ts";
import { createSampler } from "../../src/dataset/dataset_sampler.ts";

/** Root r (0, 10, 20, 30 ms; turn 1 starts c, turn 3 joins it), sub-agent c (12, 15, 25 ms), root b (0, 4 ms). */
const STREAMS: StreamShape[] = [
  {
    id: "r",
    turns: [{ atMs: 0 }, { atMs: 10, spawns: [{ children: [1], joinAt: 3 }] }, { atMs: 20 }, { atMs: 30 }],
  },
  { id: "c", child: true, turns: [{ atMs: 12 }, { atMs: 15 }, { atMs: 25 }] },
  { id: "b", turns: [{ atMs: 0 }, { atMs: 4 }] },
];

const DATASET: DatasetShape = {
  startTimestamps: [],
  totalTurns: 9,
  conversations: 2,
  fromFile: true,
  streams: () => STREAMS,
};

function input(values: Record<string, unknown>, concurrency = 2): StrategyPlanInput {
  return {
    values: { trajectoryStartMinRatio: 0.5, trajectoryStartMaxRatio: 0.5, randomSeed: 1, ...values },
    given: () => false,
    concurrency,
    dataset: DATASET,
    stamped: false,
    phase: "profiling",
  };
}

Deno.test("agentic replay plan: each lane starts at its first live stream's offset, its streams keep theirs", () => {
  const { profiling } = planAgenticReplay(input({}));
  // Lane 0 replays r from t* = 15 ms: c's turn 1 is due at once, the root's turn 2 5 ms later. Lane 1 replays b
  // from t* = 2 ms: its turn 1 is due 2 ms later, so the lane starts then.
  assert.deepEqual(profiling.starts, [
    {
      atMs: 0,
      conversationIndex: 0,
      resume: { lane: 0, rootTurn: 2, rootDelayMs: 5, children: [{ conversation: 1, turn: 1, delayMs: 0, joinAt: 3 }] },
    },
    { atMs: 2, conversationIndex: 1, resume: { lane: 1, rootTurn: 1, rootDelayMs: 0, children: [] } },
  ]);
  assert.equal(profiling.lanes, 2);
});

Deno.test("agentic replay plan: the warm-up is aligned so every lane reaches t* together (max lead − lead)", () => {
  const { warmup } = planAgenticReplay(input({}));
  // Leads: r's turn 1 went 5 ms before t*, c's turn 0 3 ms before, b's turn 0 2 ms before; the largest lead is 5.
  assert.deepEqual(warmup.warm, [
    { atMs: 0, warm: { lane: 0, conversation: 0, turn: 1 } },
    { atMs: 2, warm: { lane: 0, conversation: 1, turn: 0 } },
    { atMs: 3, warm: { lane: 1, conversation: 2, turn: 0 } },
  ]);
  const own = AGENTIC_REPLAY_STRATEGY.ownWarmup!(input({ agenticWarmupGracePeriod: 7 }));
  assert.equal(own!.requests, 3);
  assert.equal(own!.gracePeriodMs, 7000);
  assert.equal(AGENTIC_REPLAY_STRATEGY.ownWarmup!(input({}))!.gracePeriodMs, Infinity, "the barrier waits for all");
});

Deno.test("agentic replay plan: --burst-phase-starts sends the warm-up and starts every lane at once", () => {
  const { profiling, warmup } = planAgenticReplay(input({ burstPhaseStarts: true }));
  assert.deepEqual(profiling.starts.map((s) => s.atMs), [0, 0]);
  assert.deepEqual(profiling.starts[0].resume.rootDelayMs, 5, "a lane's own streams keep their spacing");
  assert.deepEqual(warmup.warm.map((w) => w.atMs), [0, 0, 0]);
});

Deno.test("agentic replay plan: over-subscribing the traces needs --allow-dataset-wrap or a cache-bust target", () => {
  assert.throws(() => planAgenticReplay(input({ benchmarkDuration: 60 }, 3)), InputError);
  const wrapped = planAgenticReplay(input({ benchmarkDuration: 60, allowDatasetWrap: true }, 3)).profiling;
  assert.deepEqual(wrapped.starts.map((s) => s.conversationIndex).sort(), [0, 0, 1]);
  assert.equal(
    planAgenticReplay(input({ benchmarkDuration: 60, cacheBust: "first_turn_prefix" }, 3)).profiling.lanes,
    3,
  );
});

Deno.test("agentic replay: lanes start at their offsets, then freed lanes take the next traces in order", async () => {
  const clock = new ManualClock(1000);
  const { profiling } = planAgenticReplay(input({}));
  const stop = new AbortController();
  const strategy = AGENTIC_REPLAY_STRATEGY.create(profiling, {
    clock,
    rng: new SeededRandom(1),
    shardIndex: 0,
    shardCount: 1,
    startedAt: 1000,
    stop: stop.signal,
  });
  const ticks: Tick[] = [];
  const run = (async () => {
    for (let i = 0; i < 4; i++) {
      const tick = await strategy.nextTick(stop.signal, Infinity);
      if (tick === undefined) break;
      assert.equal(await strategy.acquireSession(), true);
      ticks.push(tick);
    }
  })();
  await clock.advanceTo(1001);
  assert.equal(ticks.length, 1, "lane 1 is due 2 ms in");
  await clock.advanceTo(1002);
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(ticks.map((t) => [t.scheduledAt, t.conversationIndex, t.resume?.lane]), [[1000, 0, 0], [
    1002,
    1,
    1,
  ]]);
  // Both lanes are busy: the next trace waits for a lane to end.
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(ticks.length, 2);
  strategy.releaseSession();
  strategy.releaseSession();
  await run;
  assert.deepEqual(ticks.slice(2).map((t) => [t.conversationIndex, t.resume]), [[0, undefined], [1, undefined]]);
  strategy.close();
});

Deno.test("agentic replay: shards split the lanes and their warm-up, and recycle disjoint traces", () => {
  const { profiling, warmup } = planAgenticReplay(input({}));
  const a = AGENTIC_REPLAY_STRATEGY.split(profiling, 0, 2).options;
  const b = AGENTIC_REPLAY_STRATEGY.split(profiling, 1, 2).options;
  assert.deepEqual([a.starts.map((s) => s.resume.lane), b.starts.map((s) => s.resume.lane)], [[0], [1]]);
  assert.deepEqual([a.lanes, b.lanes, a.recycleFrom, b.recycleFrom, a.recycleStride], [1, 1, 2, 3, 2]);
  const wa = AGENTIC_REPLAY_STRATEGY.split(warmup, 0, 2).options.warm;
  assert.deepEqual(wa.map((w) => w.warm.conversation), [0, 1]);
});

Deno.test("agentic replay plan: says where the lanes resumed, and when fewer lanes than asked could be filled", () => {
  assert.deepEqual(planAgenticReplay(input({})).notices, [
    "Agentic replay: 2 lanes over 2 traces, resumed 50–50% (median 50%) into them.",
  ]);
  const streams: StreamShape[] = [{ id: "empty", turns: [] }, STREAMS[2]];
  const few = planAgenticReplay({ ...input({}, 2), dataset: { ...DATASET, conversations: 2, streams: () => streams } });
  assert.equal(few.profiling.lanes, 2, "the one trace fills both lanes when the other has nothing to send");
  const none: StreamShape[] = [{ id: "empty", turns: [] }];
  assert.throws(() => planAgenticReplay({ ...input({}, 2), dataset: { ...DATASET, streams: () => none } }), InputError);
});

Deno.test("agentic replay plan: lanes and freed lanes draw traces from the run's dataset sampler", () => {
  // Six one-turn-pair traces, shuffled: the lanes take the sampler's first draws, freed lanes the next ones.
  const streams: StreamShape[] = Array.from(
    { length: 6 },
    (_, i) => ({ id: `t${i}`, turns: [{ atMs: 0 }, { atMs: 4 }] }),
  );
  const dataset = { ...DATASET, conversations: 6, streams: () => streams };
  const values = { datasetSamplingStrategy: "shuffle", randomSeed: 11 };
  const { profiling } = planAgenticReplay({ ...input(values, 3), dataset });
  const sampler = createSampler("shuffle", 6, new SeededRandom(11).derive("dataset-sampling"));
  assert.deepEqual(
    [...profiling.starts].sort((a, b) => a.resume.lane - b.resume.lane).map((s) => s.conversationIndex),
    [0, 1, 2].map((k) => sampler.indexAt(k)),
  );
  assert.equal(profiling.recycleFrom, 3);
  assert.notDeepEqual([0, 1, 2].map((k) => sampler.indexAt(k)), [0, 1, 2], "shuffled, not in order");
});
