import assert from "node:assert/strict";
import { loadPublicDataset } from "../../src/dataset/public_datasets.ts";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import type { Dataset } from "../../src/dataset/conversation.ts";

const tokenizer = await loadBuiltinTokenizer();
const HUB = new URL("../fixtures/hf_hub", import.meta.url).pathname;
const FILES = new URL("../fixtures/public_datasets", import.meta.url).pathname;

async function load(name: string, options: Record<string, unknown> = {}, more: Record<string, unknown> = {}) {
  const env: Record<string, string> = { HF_HUB_CACHE: HUB, INFERMETER_DATASET_DIR: FILES };
  return await loadPublicDataset(
    name,
    { tokenizer, outputTokensGiven: false, rng: new SeededRandom(1), options, ...more },
    (n) => env[n],
  );
}

const ids = (d: Dataset) => d.conversations.map((c) => c.id);

Deno.test("the SemiAnalysis Weka datasets replay each row as a Weka trace, sub-agents as children", async () => {
  const d = await load("semianalysis_cc_traces_weka_062126", { modelNames: ["m"] });
  assert.deepEqual(ids(d), ["cc-1", "cc-1::sa:a1", "cc-2"]);
  const root = d.conversations[0];
  assert.deepEqual(root.turns[0].spawns, [{ children: ["cc-1::sa:a1"], joinAt: 1 }]);
  assert.equal(d.conversations[1].child, true);
  assert.equal(root.contextMode, "deltas_with_responses");
  // The undated alias of the same corpus reads the same rows.
  assert.deepEqual(ids(await load("semianalysis_cc_traces_weka_with_subagents")), ids(d));
  // --max-context-length leaves out cc-2 (5000 + 30 tokens); --conversation-num keeps the first N eligible traces.
  assert.deepEqual(ids(await load("semianalysis_cc_traces_weka_062126", { maxContextLength: 1000 })), [
    "cc-1",
    "cc-1::sa:a1",
  ]);
  assert.deepEqual(ids(await load("semianalysis_cc_traces_weka_062126", {}, { entries: 1 })), ["cc-1", "cc-1::sa:a1"]);
  // --synthesis-max-osl cuts the traces' own requests, not the sub-agents'; --synthesis-max-isl leaves out cc-2.
  const maxTokens = (x: Dataset) => x.conversations.map((c) => c.turns.map((t) => t.maxTokens));
  const cut = await load("semianalysis_cc_traces_weka_062126", { synthesisMaxOsl: 3 });
  assert.deepEqual(
    maxTokens(cut),
    maxTokens(d).map((turns, i) => d.conversations[i].child === true ? turns : turns.map((n) => Math.min(n!, 3))),
  );
  assert.ok(maxTokens(d).flat().some((n) => n! > 3), "the fixture has outputs above the cap");
  assert.deepEqual(ids(await load("semianalysis_cc_traces_weka_062126", { synthesisMaxIsl: 1000 })), [
    "cc-1",
    "cc-1::sa:a1",
  ]);
});

Deno.test("weka_hf reads the repository --hf-weka-dataset names, and asks for it when missing", async () => {
  const d = await load("weka_hf", { hfWekaDataset: "myorg/weka-mini" });
  assert.deepEqual(ids(d), ["cc-2", "cc-1", "cc-1::sa:a1"]);
  await assert.rejects(load("weka_hf"), /reads the repository --hf-weka-dataset names; give --hf-weka-dataset/);
  await assert.rejects(
    load("semianalysis_cc_traces_weka_061526"),
    /needs semianalysisai\/cc-traces-weka-061526 \(split train\) on this machine \(infermeter never downloads/,
  );
});

Deno.test("exgentic_v2: each session's recorded requests, sent as recorded, from the revision AIPerf pins", async () => {
  const d = await load("exgentic_v2");
  // The pinned snapshot is read although refs/main names another one (which holds only s2).
  assert.deepEqual(ids(d), ["s1", "s2"]);
  const [s1] = d.conversations;
  assert.equal(s1.contextMode, "message_array_with_responses");
  // Non-LLM and failed spans skipped; start order; each after the previous end (an overlap goes at once).
  assert.equal(s1.turns.length, 3);
  assert.deepEqual(s1.turns.map((t) => t.delayMs), [undefined, 3000, 0]);
  assert.deepEqual(s1.turns.map((t) => t.maxTokens), [20, 64, 20]);
  assert.deepEqual(s1.turns[1].messages, [
    { role: "system", content: "You are an agent." },
    { role: "user", content: "second" },
    {
      role: "assistant",
      content: "",
      reasoning_content: "hmm",
      tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: '{"path":"."}' } }],
    },
    { role: "tool", tool_call_id: "c1", content: '["a.py"]' },
  ]);
  assert.deepEqual(s1.turns[1].tools, [{
    type: "function",
    function: { name: "ls", description: "list", parameters: { type: "object" } },
  }]);
  assert.deepEqual(s1.turns[0].extra, { temperature: 0.3 });
  // --fixed-schedule: every request a session of its own at its offset, overlaps kept.
  const fixed = await load("exgentic_v2", { fixedSchedule: true });
  assert.deepEqual(ids(fixed), ["s1:0", "s1:2", "s1:3", "s2:0"]);
  assert.deepEqual(fixed.conversations.map((c) => c.turns[0].timestampMs), [0, 5000, 6000, 0]);
});

Deno.test("exgentic filters keep matching sessions and refuse what the version does not hold", async () => {
  assert.deepEqual(ids(await load("exgentic_v2", { datasetFilter: ["harness=tool_calling"] })), ["s2"]);
  // Provider prefixes are dropped from the recorded and the asked model alike.
  assert.deepEqual(ids(await load("exgentic_v2", { datasetFilter: ["source_model=aws/claude-opus-4-5"] })), ["s1"]);
  assert.deepEqual(ids(await load("exgentic_v2", { datasetFilter: ["benchmark=appworld"] })), ["s2"]);
  await assert.rejects(
    load("exgentic_v2", { datasetFilter: ["harness=claude_code", "source_model=gpt-4.1"] }),
    /holds no trace; source models for this harness: DeepSeek-V3.2, Kimi-K2.5, claude-opus-4-5/,
  );
  await assert.rejects(load("exgentic_v2", { datasetFilter: ["color=red"] }), /'color' is not a filter/);
  await assert.rejects(
    load("exgentic_v2", { datasetFilter: ["benchmark=swebench", "harness=openai_solo"] }),
    /no replayable session matching the filters .*combinations seen: claude_code\/claude-opus-4-5/,
  );
  // At most --conversation-num sessions.
  assert.deepEqual(ids(await load("exgentic_v2", {}, { entries: 1 })), ["s1"]);
});

Deno.test("exgentic (v1) reads its pinned revision and takes no benchmark filter", async () => {
  assert.deepEqual(ids(await load("exgentic")), ["s1", "s2"]);
  await assert.rejects(load("exgentic", { datasetFilter: ["benchmark=swebench"] }), /'benchmark' is not a filter/);
  await assert.rejects(
    load("exgentic", { datasetFilter: ["harness=openai_solo", "source_model=gpt-5.2-2025-12-11"] }),
    /holds no trace/,
  );
});
