import assert from "node:assert/strict";
import { type PhaseSession, runPhase, type SendMeta } from "../../src/engine/phase_runner.ts";
import { ManualClock } from "../../src/timing/clock.ts";
import { type PhaseSpec, shardPhase } from "../../src/timing/phase_spec.ts";
import type { StopSpec } from "../../src/timing/stop_conditions.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";

/** A conversation of the test's dataset, by name; children are started by name too. */
interface Node {
  readonly turns: number;
  readonly delays?: readonly (number | undefined)[];
  /** Turns that send nothing. */
  readonly free?: readonly number[];
  /** Per turn index (−1: before the first), the children it starts and the turn that joins them. */
  readonly spawns?: Readonly<Record<number, readonly { readonly child: string; readonly joinAt?: number }[]>>;
  /** Service time of this conversation's requests (ms). @default 100 */
  readonly serviceMs?: number;
}

interface Sent {
  readonly name: string;
  readonly meta: SendMeta;
  readonly startedAt: number;
  endedAt?: number;
}

const closed = (concurrency: number, stops: Partial<StopSpec>, prefill?: number): PhaseSpec => ({
  name: "profiling",
  strategy: { name: "concurrency", options: { concurrency } },
  stops: { gracePeriodMs: 0, ...stops },
  ...(prefill === undefined ? {} : { prefillConcurrency: prefill }),
});

const open = (rate: number, stops: Partial<StopSpec>): PhaseSpec => ({
  name: "profiling",
  strategy: { name: "request_rate", options: { rate, pattern: "constant" } },
  stops: { gracePeriodMs: 0, ...stops },
});

/** Runs a phase whose every session is the conversation `root` of `nodes`, on a virtual clock from 1000 ms. */
async function simulate(phase: PhaseSpec, nodes: Readonly<Record<string, Node>>, root: string, until = 10_000) {
  const clock = new ManualClock(1000);
  const sent: Sent[] = [];
  const open = (name: string): PhaseSession => {
    const node = nodes[name];
    const spawns = node.spawns !== undefined || (node.free?.length ?? 0) > 0;
    return {
      turnCount: node.turns,
      delayBefore: (k) => node.delays?.[k],
      timestampOf: () => undefined,
      send: async (_k, meta, signal) => {
        const rec: Sent = { name, meta, startedAt: clock.now() };
        sent.push(rec);
        await clock.sleepUntil(clock.now() + (node.serviceMs ?? 100), signal);
        rec.endedAt = clock.now();
      },
      ...(spawns
        ? {
          spawns: true,
          childrenAfter: (k: number) =>
            node.spawns?.[k]?.map((s) => ({
              session: open(s.child),
              ...(s.joinAt === undefined ? {} : { joinAt: s.joinAt }),
            })),
          requestFree: (k: number) => node.free?.includes(k) ?? false,
        }
        : {}),
    };
  };
  const done = runPhase({
    shard: shardPhase(phase, 0, 1),
    clock,
    rng: new SeededRandom(3),
    signal: new AbortController().signal,
    openSession: () => open(root),
  });
  await clock.advanceTo(until);
  return { outcome: await done, sent };
}

const row = (s: Sent) => `${s.name}.${s.meta.turnIndex}@${s.startedAt}`;

Deno.test("a turn's children run concurrently after its answer and the joining turn waits for all of them", async () => {
  const nodes: Record<string, Node> = {
    root: { turns: 2, spawns: { 0: [{ child: "a", joinAt: 1 }, { child: "b", joinAt: 1 }] } },
    a: { turns: 2 },
    b: { turns: 1, serviceMs: 50 },
  };
  const { outcome, sent } = await simulate(closed(1, { requestCount: 5 }), nodes, "root");
  // root.0 ends at 1100; a and b start together; a ends its second turn at 1300; root.1 goes then, not at 1150.
  assert.deepStrictEqual(sent.map(row), ["root.0@1000", "a.0@1100", "b.0@1100", "a.1@1200", "root.1@1300"]);
  assert.equal(outcome.issued, 5);
  assert.equal(outcome.sessionsStarted, 1, "children are no sessions of their own");
  assert.deepStrictEqual(sent.map((s) => s.meta.requestIndex), [0, 1, 2, 3, 4]);
  // Every request of the tree carries its root's session index (its target and its session_num).
  assert.ok(sent.every((s) => s.meta.sessionIndex === 0));
  assert.deepStrictEqual(sent.map((s) => s.meta.lastTurn), [false, false, true, true, true]);
});

Deno.test("a session holds its slot until its whole tree has ended, children of its last turn included", async () => {
  const nodes: Record<string, Node> = {
    root: { turns: 1, spawns: { 0: [{ child: "bg" }] } },
    bg: { turns: 2, delays: [50, 30] },
  };
  const { sent } = await simulate(closed(1, { requestCount: 6 }), nodes, "root");
  // The child starts 50 ms after the answer (its start offset), its second turn 30 ms after its first answer; the
  // next session starts only when the child has ended (1380).
  assert.deepStrictEqual(sent.map(row), [
    "root.0@1000",
    "bg.0@1150",
    "bg.1@1280",
    "root.0@1380",
    "bg.0@1530",
    "bg.1@1660",
  ]);
  // A child's think time is its due time, as a root turn's is.
  assert.equal(sent[1].meta.scheduledAt, 1150);
});

Deno.test("a later turn joins children started several turns earlier while the turns between go on", async () => {
  const nodes: Record<string, Node> = {
    root: { turns: 3, spawns: { 0: [{ child: "slow", joinAt: 2 }] } },
    slow: { turns: 1, serviceMs: 350 },
  };
  const { sent } = await simulate(closed(1, { requestCount: 4 }), nodes, "root");
  assert.deepStrictEqual(sent.map(row), ["root.0@1000", "slow.0@1100", "root.1@1100", "root.2@1450"]);
});

Deno.test("a join waits for the child's own children", async () => {
  const nodes: Record<string, Node> = {
    root: { turns: 2, spawns: { 0: [{ child: "mid", joinAt: 1 }] } },
    mid: { turns: 1, spawns: { 0: [{ child: "leaf" }] } },
    leaf: { turns: 1, serviceMs: 200 },
  };
  const { sent } = await simulate(closed(1, { requestCount: 4 }), nodes, "root");
  assert.deepStrictEqual(sent.map(row), ["root.0@1000", "mid.0@1100", "leaf.0@1200", "root.1@1400"]);
});

Deno.test("request-free turns send nothing, count nothing and wait their think time after the round's join", async () => {
  // An orchestrator: round 0 fires w0 after a 20 ms pre-delay; round 1 fires w1 40 ms after w0 ended; then the end.
  const nodes: Record<string, Node> = {
    spine: {
      turns: 3,
      free: [0, 1, 2],
      delays: [20, 40, 0],
      spawns: { 0: [{ child: "w0", joinAt: 1 }], 1: [{ child: "w1", joinAt: 2 }] },
    },
    w0: { turns: 1 },
    w1: { turns: 1 },
  };
  const { outcome, sent } = await simulate(closed(1, { requestCount: 3 }), nodes, "spine");
  assert.deepStrictEqual(sent.map(row), ["w0.0@1020", "w1.0@1160", "w0.0@1280"]);
  assert.equal(outcome.issued, 3);
  assert.equal(outcome.sessionsStarted, 2);
});

Deno.test("children started before the first turn run alongside it", async () => {
  const nodes: Record<string, Node> = {
    root: { turns: 1, spawns: { [-1]: [{ child: "pre" }] } },
    pre: { turns: 1, serviceMs: 300 },
  };
  const { sent } = await simulate(closed(1, { requestCount: 3 }), nodes, "root");
  assert.deepStrictEqual(sent.map(row), ["root.0@1000", "pre.0@1000", "root.0@1300"]);
});

Deno.test("open loop: children take no ticks; their turns follow their answers", async () => {
  const nodes: Record<string, Node> = {
    root: { turns: 1, spawns: { 0: [{ child: "c" }] }, serviceMs: 10 },
    c: { turns: 3, serviceMs: 10 },
  };
  // One tick every 1000 ms: a child paced by ticks would send at 2000, 3000, ….
  const { sent } = await simulate(open(1, { requestCount: 8 }), nodes, "root");
  assert.deepStrictEqual(sent.map(row), [
    "root.0@1000",
    "c.0@1010",
    "c.1@1020",
    "c.2@1030",
    "root.0@2000",
    "c.0@2010",
    "c.1@2020",
    "c.2@2030",
  ]);
});

Deno.test("the request budget stops children too, and a parent waiting on them then ends", async () => {
  const nodes: Record<string, Node> = {
    root: { turns: 2, spawns: { 0: [{ child: "c", joinAt: 1 }] } },
    c: { turns: 5 },
  };
  const { outcome, sent } = await simulate(closed(1, { requestCount: 3 }), nodes, "root");
  assert.deepStrictEqual(sent.map(row), ["root.0@1000", "c.0@1100", "c.1@1200"]);
  assert.equal(outcome.issued, 3);
  assert.equal(outcome.endedAt, 1300);
});

Deno.test("a duration stop ends children waiting to start and the phase ends with the last answer", async () => {
  const nodes: Record<string, Node> = {
    root: { turns: 2, spawns: { 0: [{ child: "late", joinAt: 1 }] } },
    late: { turns: 1, delays: [500] },
  };
  const { outcome, sent } = await simulate(closed(1, { durationMs: 300 }), nodes, "root");
  assert.deepStrictEqual(sent.map(row), ["root.0@1000"]);
  assert.equal(outcome.durationReached, true);
  assert.equal(outcome.endedAt, 1300);
});

Deno.test("children's requests take prefill slots like every request", async () => {
  const nodes: Record<string, Node> = {
    root: { turns: 1, spawns: { 0: [{ child: "a" }, { child: "b" }] } },
    a: { turns: 1 },
    b: { turns: 1 },
  };
  // One prefill slot, freed only when the request ends (the test's requests have no first response).
  const { sent } = await simulate(closed(1, { requestCount: 3 }, 1), nodes, "root");
  assert.deepStrictEqual(sent.map(row), ["root.0@1000", "a.0@1100", "b.0@1200"]);
});
