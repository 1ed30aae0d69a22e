import assert from "node:assert/strict";
import { loadDataset } from "../../src/dataset/load_dataset.ts";
import { DatasetError } from "../../src/dataset/dataset_error.ts";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";

const EXAMPLE = new URL("../../datasets/examples/weka_traces", import.meta.url).pathname;
const tokenizer = await loadBuiltinTokenizer();

const load = (inputFile: string, options: Record<string, unknown> = {}, more: Record<string, unknown> = {}) =>
  loadDataset({ inputFile, tokenizer, seed: 1, loaderOptions: { modelNames: ["big", "small"], ...options }, ...more });

Deno.test("weka_trace: each trace is a root with its sub-agents' streams as children, joined when they have ended", async () => {
  const dataset = await load(EXAMPLE);
  assert.equal(dataset.format, "weka_trace", "a directory of traces is detected");
  assert.equal(dataset.defaultSampling, "sequential");
  const byId = new Map(dataset.conversations.map((c) => [c.id, c]));
  assert.deepEqual([...byId.keys()], [
    "session_a",
    "session_a::sa:agent_001",
    "session_a::sa:agent_001:fa:000",
    "session_b",
    "session_b::fa:000",
  ]);
  const a = byId.get("session_a")!;
  assert.equal(a.contextMode, "deltas_with_responses");
  // The sub-agent (1.5 s → 4.0 s) starts after request 0 and is joined by the first request after it ended (4.5 s).
  assert.deepEqual(a.turns[0].spawns, [{
    children: ["session_a::sa:agent_001", "session_a::sa:agent_001:fa:000"],
    joinAt: 1,
  }]);
  // Idle gaps: 4.5 − (0 + 1.0) = 3.5 s; 9.0 − (4.5 + 1.2) = 3.3 s.
  assert.deepEqual(a.turns.map((t) => t.delayMs), [undefined, 3500, 3300]);
  assert.deepEqual(a.turns.map((t) => t.maxTokens), [40, 60, 25]);
  // The main model maps to the first --model, the next one seen to the second.
  assert.deepEqual(a.turns.map((t) => t.model), ["big", "big", "big"]);
  const sa = byId.get("session_a::sa:agent_001")!;
  assert.equal(sa.child, true);
  assert.equal(sa.turns[0].model, "small");
  // Start offsets from the spawn (1.5 s): 1.6 s and 2.5 s; then the idle gap 2.4 − (1.6 + 0.5).
  assert.deepEqual(sa.turns.map((t) => t.delayMs), [100, 300]);
  assert.equal(byId.get("session_a::sa:agent_001:fa:000")!.turns[0].delayMs, 1000);
  // Prompts: the declared tools + system prompt (128 tokens = 2 blocks) is the system message of turn 0.
  assert.deepEqual(a.turns[0].messages?.map((m) => m.role), ["system", "user"]);
  const systemTokens = tokenizer.count(String(a.turns[0].messages![0].content));
  assert.ok(Math.abs(systemTokens - 128) <= 2, `system prompt ${systemTokens} tokens`);
  // Request 1 keeps blocks 1–4, answers with 1 block (40 tokens out) and adds the rest as input.
  assert.deepEqual(a.turns[1].messages?.map((m) => m.role), ["system", "user", "assistant", "user"]);
  assert.equal(a.turns[1].messages![0].content, a.turns[0].messages![0].content, "the same blocks, the same text");
  // session_b's second request overlaps its first and shares none of its blocks: another agent, started after it.
  assert.deepEqual(byId.get("session_b")!.turns[0].spawns, [{ children: ["session_b::fa:000"], joinAt: 1 }]);
});

Deno.test("weka_trace options: think times only, idle gaps cut, traces over the context limit left out", async () => {
  const thinking = await load(EXAMPLE, { useThinkTimeOnly: true });
  // Request 2 recorded think_time 2.0 s; request 1 recorded none (the idle gap stays).
  assert.deepEqual(thinking.conversations[0].turns.map((t) => t.delayMs), [undefined, 3500, 2000]);
  const cut = await load(EXAMPLE, { traceIdleGapCapSeconds: 2 });
  // Starts 0, 1.5, 1.6, 2.4, 2.5, 4.5, 9.0: the 4.5 s gap before 9.0 is cut to 2 s (9.0 → 6.5).
  assert.deepEqual(cut.conversations[0].turns.map((t) => t.delayMs), [undefined, 3500, 800]);
  const warned: string[] = [];
  const small = await load(EXAMPLE, { maxContextLength: 400 }, { warn: (m: string) => warned.push(m) });
  assert.deepEqual(small.conversations.filter((c) => c.child !== true).map((c) => c.id), ["session_b"]);
  assert.match(warned.join("\n"), /1 of 2 traces left out: their peak context exceeds --max-context-length 400/);
  await assert.rejects(load(EXAMPLE, { maxContextLength: 10 }), /leaves out every trace/);
});

Deno.test("weka_trace: a malformed trace is an error naming the file and where in it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const base = {
      id: "x",
      models: ["m"],
      block_size: 64,
      hash_id_scope: "local",
      requests: [{ t: 0, type: "n", model: "m", in: 10, out: 1, hash_ids: [] }],
    };
    const cases: [unknown, RegExp][] = [
      [{ ...base, hash_id_scope: "global" }, /hash_id_scope must be "local"/],
      [{ ...base, extra: 1 }, /the trace has an unknown field "extra"/],
      [{ ...base, requests: [{ ...base.requests[0], in: "10" }] }, /requests\[0\]\.in must be an integer/],
      [
        { ...base, requests: [{ ...base.requests[0], type: "x" }] },
        /requests\[0\]\.type must be "n", "s" or "subagent"/,
      ],
      [{ ...base, tool_tokens: 200 }, /stream x: the first request's tools and system prompt \(200 tokens\) need 4/],
    ];
    for (const [trace, pattern] of cases) {
      const file = `${dir}/t.json`;
      await Deno.writeTextFile(file, JSON.stringify(trace));
      await assert.rejects(load(file, {}, { customDatasetType: "weka_trace" }), (e: Error) => {
        assert.ok(e instanceof DatasetError, String(e));
        assert.ok(e.message.startsWith(file), e.message);
        assert.match(e.message, pattern);
        return true;
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("weka_trace: the idle-gap cap takes precedence over the per-delay cap, which applies alone otherwise", async () => {
  const both = await load(EXAMPLE, { traceIdleGapCapSeconds: 2 }, { turnDelayCapMs: 100 });
  assert.deepEqual(both.conversations[0].turns.map((t) => t.delayMs), [undefined, 3500, 800]);
  const perDelay = await load(EXAMPLE, {}, { turnDelayCapMs: 100 });
  assert.deepEqual(perDelay.conversations[0].turns.map((t) => t.delayMs), [undefined, 100, 100]);
});

Deno.test("weka_trace with --synthesis-max-isl/-osl: the trace's own requests filtered and cut, its sub-agents' kept", async () => {
  const byId = async (options: Record<string, unknown>) =>
    new Map((await load(EXAMPLE, options)).conversations.map((c) => [c.id, c.turns.map((t) => t.maxTokens)]));
  // Main and flat chains cut at 11; the sub-agent's streams (30, 20 and 10 recorded) keep theirs, as in AIPerf.
  assert.deepEqual(
    Object.fromEntries(await byId({ synthesisMaxOsl: 11 })),
    {
      "session_a": [11, 11, 11],
      "session_a::sa:agent_001": [30, 20],
      "session_a::sa:agent_001:fa:000": [10],
      "session_b": [11, 11],
      "session_b::fa:000": [11],
    },
  );
  // session_a's 460-token request is left out: its other two remain, 9.0 − (0 + 1.0) s apart; sub-agent requests
  // are not filtered (280 tokens would be kept anyway; AIPerf filters only the trace's own requests).
  const filtered = await load(EXAMPLE, { synthesisMaxIsl: 400 });
  const a = filtered.conversations.find((c) => c.id === "session_a")!;
  assert.deepEqual(a.turns.map((t) => [t.maxTokens, t.delayMs]), [[40, undefined], [25, 8000]]);
  // The peak context counts the cut outputs: 460 + 15 fits in 480 where 460 + 60 does not.
  const roots = async (options: Record<string, unknown>) =>
    (await load(EXAMPLE, options)).conversations.filter((c) => c.child !== true).map((c) => c.id);
  assert.deepEqual(await roots({ maxContextLength: 480 }), ["session_b"]);
  assert.deepEqual(await roots({ maxContextLength: 480, synthesisMaxOsl: 15 }), ["session_a", "session_b"]);
  await assert.rejects(load(EXAMPLE, { synthesisMaxIsl: 50 }), /--synthesis-max-isl: 50 leaves out every trace/);
});
