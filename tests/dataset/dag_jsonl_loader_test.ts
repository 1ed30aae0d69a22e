import assert from "node:assert/strict";
import { loadDagJsonl } from "../../src/dataset/dag_jsonl_loader.ts";
import { loadDataset } from "../../src/dataset/load_dataset.ts";
import { DatasetError } from "../../src/dataset/dataset_error.ts";

const EXAMPLE = new URL("../../datasets/examples/agent_dag.jsonl", import.meta.url).pathname;

async function withFile(lines: readonly unknown[], run: (path: string) => Promise<void>) {
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    await Deno.writeTextFile(path, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    await run(path);
  } finally {
    await Deno.remove(path);
  }
}

const msg = (content: string, role = "user") => ({ messages: [{ role, content }] });

Deno.test("dag_jsonl: spawns join the next turn, forks carry the context, roots are the unnamed conversations", async () => {
  const dataset = await loadDagJsonl(EXAMPLE);
  assert.equal(dataset.defaultSampling, "random");
  const byId = new Map(dataset.conversations.map((c) => [c.id, c]));
  const lead = byId.get("lead")!;
  assert.equal(lead.child, undefined);
  assert.equal(lead.contextMode, "deltas_without_responses");
  assert.deepEqual(lead.turns[0].spawns, [{ children: ["search-src", "search-tests"], joinAt: 1 }]);
  assert.deepEqual(lead.turns[2].spawns, [{ children: ["review"], inheritContext: true }]);
  assert.equal(lead.turns[1].delayMs, 100);
  assert.equal(lead.turns[0].messages?.[0].role, "system");
  assert.equal(lead.turns[0].maxTokens, 64);
  assert.equal(byId.get("review")!.child, true);
  assert.deepEqual(byId.get("review")!.turns[0].extra, { temperature: 0.2 });
  assert.equal(byId.get("search-tests")!.turns[0].delayMs, 50, "a child's first delay is its start offset");
  // The orchestrator: a request-free step per round (joined by the next), then the end.
  const triage = byId.get("triage")!;
  assert.deepEqual(triage.turns.map((t) => [t.requestFree, t.delayMs, t.spawns]), [
    [true, undefined, [{ children: ["triage-logs"], joinAt: 1 }]],
    [true, 200, [{ children: ["triage-metrics"], joinAt: 2 }]],
    [true, undefined, undefined],
  ]);
  assert.deepEqual(dataset.conversations.filter((c) => c.child !== true).map((c) => c.id), ["lead", "triage"]);
});

Deno.test("dag_jsonl: delayed joins, background forks, pre-session spawns and think-time spreads", async () => {
  await withFile([
    {
      session_id: "p",
      pre_session_spawns: ["pre"],
      turns: [
        { ...msg("a"), spawns: [{ children: ["s1"], join_at: 2 }, "s2"], forks: [{ child: "bg", background: true }] },
        msg("b"),
        msg("c"),
      ],
    },
    { session_id: "s1", turns: [msg("x")] },
    { session_id: "s2", turns: [msg("y")] },
    { session_id: "bg", turns: [msg("z")] },
    { session_id: "pre", turns: [msg("w")] },
    {
      session_id: "o",
      orchestrator: true,
      spawns: ["s2"],
      rounds: 2,
      think_time_ms: 500,
      think_time_sigma: 0.4,
      think_time_max_ms: 900,
    },
  ], async (path) => {
    const { conversations } = await loadDagJsonl(path);
    const [p, , , , , o] = conversations;
    assert.deepEqual(p.spawnsFirst, [{ children: ["pre"] }]);
    assert.deepEqual(p.turns[0].spawns, [
      { children: ["bg"], inheritContext: true },
      { children: ["s1"], joinAt: 2 },
      { children: ["s2"], joinAt: 1 },
    ]);
    assert.deepEqual(o.thinkTime, { sigma: 0.4, maxMs: 900 });
    assert.deepEqual(o.turns.map((t) => t.delayMs), [500, 500, undefined]);
    // --inter-turn-delay-cap-seconds cuts the delays and the spread's bound alike.
    const capped = await loadDataset({ inputFile: path, customDatasetType: "dag_jsonl", turnDelayCapMs: 300 });
    const oc = capped.conversations.find((c) => c.id === "o")!;
    assert.deepEqual(oc.thinkTime, { sigma: 0.4, maxMs: 300 });
    assert.deepEqual(oc.turns.map((t) => t.delayMs), [300, 300, undefined]);
  });
});

Deno.test("dag_jsonl is detected, and a multi_turn file is still multi_turn", async () => {
  const dataset = await loadDataset({ inputFile: EXAMPLE });
  assert.equal(dataset.format, "dag_jsonl");
  await withFile([{ session_id: "s", turns: [{ text: "hi" }] }], async (path) => {
    assert.equal((await loadDataset({ inputFile: path })).format, "multi_turn");
  });
});

Deno.test("dag_jsonl: what AIPerf rejects at load is an error naming file:line and the fix", async () => {
  const cases: [unknown[], RegExp][] = [
    [[{ session_id: "a", turns: [{ ...msg("x"), temprature: 1 }] }], /:1: .*unknown field "temprature"/],
    [[{ session_id: "a", turns: [{ messages: [] }] }], /:1: "turns"\[0\]\."messages" must be a non-empty list/],
    [[{ session_id: "a", turns: [{ messages: [{ content: "x" }] }] }], /:1: .*must be an object with a "role"/],
    [[{ session_id: "a", turns: [{ ...msg("x"), max_tokens: true }] }], /:1: .*"max_tokens" must be an integer/],
    [
      [{ session_id: "a", turns: [msg("x")] }, { session_id: "a", turns: [msg("y")] }],
      /:2: .*already declared on line 1/,
    ],
    [[{ session_id: "a", turns: [{ ...msg("x"), spawns: ["nope"] }] }], /:1: .*names 'nope', which no line declares/],
    [
      [{ session_id: "a", turns: [{ ...msg("x"), forks: ["b"] }, msg("y")] }, { session_id: "b", turns: [msg("z")] }],
      /:1: .*forks in the foreground but is not the last turn/,
    ],
    [
      [{ session_id: "a", turns: [{ ...msg("x"), spawns: [{ children: ["b"], join_at: 0 }] }, msg("y")] }, {
        session_id: "b",
        turns: [msg("z")],
      }],
      /:1: .*"join_at" 0 must be after the spawning turn/,
    ],
    [
      [
        { session_id: "a", turns: [{ ...msg("x"), forks: ["c"] }] },
        { session_id: "b", turns: [{ ...msg("x"), forks: ["c"] }] },
        { session_id: "c", turns: [msg("z")] },
      ],
      /:2: 'c' is forked by both 'a' turn 0 and 'b' turn 0/,
    ],
    [
      [
        { session_id: "r", turns: [{ ...msg("x"), spawns: ["a"] }] },
        { session_id: "a", turns: [{ ...msg("x"), spawns: ["b"] }] },
        { session_id: "b", turns: [{ ...msg("x"), spawns: ["a"] }] },
      ],
      /cycle: a -> b -> a/,
    ],
    [[{ session_id: "a", turns: [msg("x"), msg("be nice", "system")] }], /:1: .*turn 1: only the first turn/],
    [
      [{ session_id: "a", turns: [{ ...msg("x"), forks: ["b"] }] }, {
        session_id: "b",
        context_mode: "message_array_with_responses",
        turns: [msg("z")],
      }],
      /:2: 'b' is a fork's child and sends each turn alone/,
    ],
    [[{ session_id: "o", orchestrator: true, turns: [] }], /:1: an orchestrator needs a non-empty "spawns"/],
    [[{ session_id: "a", turns: [msg("x")], rounds: 2 }], /:1: "rounds" is only valid on an orchestrator/],
    [[{ session_id: "a", turns: [{ ...msg("x"), spawns: ["a"] }] }], /has no root conversation|cycle: a -> a/],
  ];
  for (const [lines, pattern] of cases) {
    await withFile(lines, async (path) => {
      await assert.rejects(loadDagJsonl(path), (e: Error) => {
        assert.ok(e instanceof DatasetError, `${pattern}: ${e}`);
        assert.match(e.message, pattern);
        return true;
      });
    });
  }
});
