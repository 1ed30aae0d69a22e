/**
 * Format detection of the first record, with AIPerf's rejection rules: one format must accept it.
 */
import assert from "node:assert/strict";
import { datasetLoaders } from "../../src/dataset/dataset_loaders.ts";

const LOADERS = await datasetLoaders();
const accepting = (record: unknown) => LOADERS.filter((l) => l.canLoad(record)).map((l) => l.name);

Deno.test("a chat body is a raw payload, unless it is an agentic trajectory or an inputs.json", () => {
  const body = { messages: [{ role: "user", content: "hi" }], model: "m", max_tokens: 5 };
  assert.deepEqual(accepting(body), ["raw_payload"]);
  assert.deepEqual(accepting({ ...body, conversation_id: "c" }), []);
  assert.deepEqual(accepting({ ...body, data: [] }), []);
  assert.deepEqual(accepting({ messages: "not a list" }), []);
});

Deno.test("each format's first record is claimed by that format alone", () => {
  assert.deepEqual(accepting({ text: "hi" }), ["single_turn"]);
  assert.deepEqual(accepting({ turns: [{ text: "hi" }] }), ["multi_turn"]);
  assert.deepEqual(accepting({ input_length: 10, hash_ids: [1] }), ["mooncake_trace"]);
  assert.deepEqual(accepting({ text_input: "hi", timestamp: 0 }), ["mooncake_trace"]);
  assert.deepEqual(accepting({ type: "random_pool", text: "hi" }), ["random_pool"]);
  assert.deepEqual(
    accepting({
      chat_id: 1,
      parent_chat_id: -1,
      timestamp: 0,
      input_length: 4,
      output_length: 2,
      type: "text",
      turn: 1,
    }),
    ["bailian_trace"],
  );
  assert.deepEqual(accepting({ data: [{ session_id: "s", payloads: [{}] }] }), ["inputs_json"]);
  // A random pool line looks like a single_turn line: a file needs the type named.
  assert.deepEqual(accepting({ text: "pool entry" }), ["single_turn"]);
});
