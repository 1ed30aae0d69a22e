import assert from "node:assert/strict";
import { join } from "node:path";
import { loadDataset } from "../../src/dataset/load_dataset.ts";

async function trace(lines: readonly unknown[]): Promise<string> {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "trace.jsonl");
  await Deno.writeTextFile(path, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return path;
}

Deno.test("mooncake messages lines: sent as written with their tools, a session without history added", async () => {
  const tools = [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }];
  const path = await trace([
    { session_id: "a", timestamp: 0, messages: [{ role: "user", content: "hi" }], output_length: 5 },
    {
      session_id: "a",
      timestamp: 500,
      messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }, {
        role: "user",
        content: [{ type: "text", text: "look it up" }],
      }],
      tools,
    },
  ]);
  // A messages line looks like a chat body too (raw_payload), as in AIPerf: the format is named.
  const dataset = await loadDataset({ inputFile: path, customDatasetType: "mooncake_trace" });
  assert.equal(dataset.format, "mooncake_trace");
  const [conversation] = dataset.conversations;
  assert.equal(conversation.contextMode, "message_array_with_responses");
  const [first, second] = conversation.turns;
  assert.equal(first.maxTokens, 5);
  assert.equal(second.messages?.length, 3);
  assert.deepEqual(second.tools, tools);
  assert.equal(second.texts[0], "hi\nhello\nlook it up");
  assert.equal(second.timestampMs, 500);
});

Deno.test("mooncake messages lines: malformed messages and tools without messages are refused with file:line", async () => {
  const cases: [unknown, RegExp][] = [
    [{ timestamp: 0, messages: [] }, /:1: "messages" must be a non-empty list/],
    [{ timestamp: 0, messages: [{ content: "x" }] }, /:1: "messages"\[0\] must be an object with a "role"/],
    [{ timestamp: 0, messages: [{ role: "user", content: "x" }], tools: [] }, /:1: "tools" must be a non-empty list/],
    [{ timestamp: 0, input_length: 10, tools: [{}] }, /:1: "tools" is only allowed with "messages"/],
  ];
  for (const [line, message] of cases) {
    await assert.rejects(
      loadDataset({ inputFile: await trace([line]), customDatasetType: "mooncake_trace" }),
      message,
    );
  }
});
