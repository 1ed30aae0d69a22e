import assert from "node:assert/strict";
import { loadDataset } from "../../src/dataset/load_dataset.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";

const root = new URL("../../", import.meta.url).pathname;

Deno.test("the single_turn example loads with detection, sessions and per-line options", async () => {
  const dataset = await loadDataset({
    inputFile: `${root}datasets/examples/single_turn.jsonl`,
  });
  const turns = dataset.conversations.flatMap((c) => c.turns);
  assert.equal(turns.length, 6);
  assert.equal(dataset.conversations.length, 5, "the two support-1 lines form one session");
  const session = dataset.conversations.find((c) => c.id === "support-1");
  assert.equal(session?.contextMode, "message_array_with_responses", "session lines are sent as written");
  assert.equal(session?.turns[1].delayMs, 500);
  assert.ok(turns.some((t) => t.maxTokens === 40));
  assert.ok(turns.some((t) => t.extra?.temperature === 0.2));
});

Deno.test("the example YAML parses into the same options as its flags", async () => {
  const { config } = await parseProfileArgs(
    ["-f", `${root}datasets/examples/profile.yaml`, "--url", "localhost:8000"],
    {
      env: {},
      readTextFile: Deno.readTextFileSync,
      isTty: false,
    },
  );
  assert.deepEqual(config.modelNames, ["Qwen/Qwen3-0.6B"]);
  assert.equal(config.streaming, true);
  assert.equal(config.concurrency, 2);
  assert.equal(config.requestCount, 12);
  assert.equal(config.customDatasetType, "single_turn");
});

Deno.test("every example dataset is detected as its format and loads", async () => {
  const { loadBuiltinTokenizer } = await import("../../src/tokenizer/builtin_tokenizer.ts");
  const tokenizer = await loadBuiltinTokenizer();
  const expected: [string, string, number, number][] = [
    // file, format, conversations, turns
    ["single_turn.jsonl", "single_turn", 5, 6],
    ["multi_turn.jsonl", "multi_turn", 2, 4],
    ["mooncake_trace.jsonl", "mooncake_trace", 4, 4],
    ["bailian_trace.jsonl", "bailian_trace", 2, 3],
    ["burst_gpt.csv", "burst_gpt_trace", 3, 3],
    ["payloads.jsonl", "raw_payload", 3, 3],
    ["conversations", "raw_payload", 2, 4],
    ["random_pool", "random_pool", 100, 100],
    ["inputs.json", "inputs_json", 2, 3],
    ["speed_bench/qualitative.jsonl", "speed_bench_qualitative", 3, 5],
    ["sagemaker_capture", "sagemaker_data_capture", 3, 3],
    ["baseten_trace.parquet", "baseten_trace", 4, 6],
    ["agent_dag.jsonl", "dag_jsonl", 7, 12],
    ["weka_traces", "weka_trace", 5, 9],
    ["tracelab.jsonl", "tracelab", 4, 7],
  ];
  for (const [file, format, conversations, turns] of expected) {
    const dataset = await loadDataset({ inputFile: `${root}datasets/examples/${file}`, tokenizer, seed: 1 });
    assert.equal(dataset.format, format, file);
    assert.equal(dataset.conversations.length, conversations, file);
    assert.equal(dataset.conversations.flatMap((c) => c.turns).length, turns, file);
  }
});
