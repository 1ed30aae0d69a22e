import assert from "node:assert/strict";
import { loadDataset } from "../../src/dataset/load_dataset.ts";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";

const EXAMPLE = new URL("../../datasets/examples/tracelab.jsonl", import.meta.url).pathname;
const tokenizer = await loadBuiltinTokenizer();

Deno.test("tracelab: rounds become traces; a session inside a long Task call is its sub-agent, joined after it", async () => {
  const dataset = await loadDataset({ inputFile: EXAMPLE, tokenizer, seed: 1 });
  assert.equal(dataset.format, "tracelab");
  const byId = new Map(dataset.conversations.map((c) => [c.id, c]));
  assert.deepEqual([...byId.keys()], [
    "claude_parent",
    "claude_parent::sa:claude_child",
    "claude_parent::sa:claude_child2",
    "codex_solo",
  ]);
  const parent = byId.get("claude_parent")!;
  // The Task call (6 s → 40 s) is spawned by round 1 (submitted at 5 s) and joined by round 2 (41 s).
  assert.deepEqual(parent.turns[1].spawns, [{
    children: ["claude_parent::sa:claude_child", "claude_parent::sa:claude_child2"],
    joinAt: 2,
  }]);
  assert.equal(byId.get("claude_parent::sa:claude_child2")!.turns[0].delayMs, 2000);
  // Idle gaps: 5 − (0 + 2) = 3 s; 41 − (5 + 1) = 35 s. Output tokens, reasoning included.
  assert.deepEqual(parent.turns.map((t) => t.delayMs), [undefined, 3000, 35000]);
  const child = byId.get("claude_parent::sa:claude_child")!;
  assert.equal(child.child, true);
  // Starts 1 s after the spawn; then 15 − (7 + 3) = 5 s.
  assert.deepEqual(child.turns.map((t) => t.delayMs), [1000, 5000]);
  assert.deepEqual(child.turns.map((t) => t.maxTokens), [40, 80]);
  // Block ids from the prefix split (64-token blocks): round 1 keeps 640 / 64 = 10 of round 0's blocks, so its
  // context keeps round 0's user text and adds an answer and new input.
  assert.deepEqual(parent.turns[1].messages?.map((m) => m.role), ["user", "assistant", "user"]);
});

Deno.test("tracelab: a gzipped corpus reads the same; a malformed round names its line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const gz = `${dir}/trace.jsonl.gz`;
    const plain = await Deno.readFile(EXAMPLE);
    const zipped = new Response(new Blob([plain]).stream().pipeThrough(new CompressionStream("gzip")));
    await Deno.writeFile(gz, new Uint8Array(await zipped.arrayBuffer()));
    const a = await loadDataset({ inputFile: EXAMPLE, tokenizer, seed: 1 });
    const b = await loadDataset({ inputFile: gz, tokenizer, seed: 1 });
    assert.equal(b.format, "tracelab");
    assert.deepEqual(b.conversations, a.conversations);
    const bad = `${dir}/bad.jsonl`;
    const lines = (await Deno.readTextFile(EXAMPLE)).trim().split("\n");
    const row = JSON.parse(lines[1]);
    row.timing_events[0].timestamp = "yesterday";
    lines[1] = JSON.stringify(row);
    await Deno.writeTextFile(bad, lines.join("\n"));
    await assert.rejects(
      loadDataset({ inputFile: bad, tokenizer, seed: 1 }),
      new RegExp(`^DatasetError: ${bad}:2: "timing_events"\\[0\\]\\.timestamp is not an ISO-8601 timestamp`),
    );
    await Deno.writeFile(`${dir}/broken.jsonl.gz`, new Uint8Array([31, 139, 8, 0, 1, 2, 3]));
    await assert.rejects(
      loadDataset({ inputFile: `${dir}/broken.jsonl.gz`, customDatasetType: "tracelab", tokenizer, seed: 1 }),
      /broken\.jsonl\.gz: is not a readable gzip file/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
