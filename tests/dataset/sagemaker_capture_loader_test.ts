import assert from "node:assert/strict";
import { join } from "node:path";
import { loadDataset } from "../../src/dataset/load_dataset.ts";
import { DatasetError } from "../../src/dataset/dataset_error.ts";
import { CHAT_ADAPTER } from "../../src/endpoints/openai/chat.ts";

const EXAMPLE = new URL("../../datasets/examples/sagemaker_capture", import.meta.url).pathname;

function capture(body: unknown, time = "2024-05-01T12:00:00Z", encoding = "JSON"): Record<string, unknown> {
  const text = JSON.stringify(body);
  const data = encoding === "BASE64" ? new TextEncoder().encode(text).toBase64() : text;
  return { captureData: { endpointInput: { data, encoding } }, eventMetadata: { eventId: "e", inferenceTime: time } };
}

async function file(lines: readonly unknown[]): Promise<string> {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "capture.jsonl");
  await Deno.writeTextFile(path, lines.map((l) => typeof l === "string" ? l : JSON.stringify(l)).join("\n") + "\n");
  return path;
}

Deno.test("SageMaker capture: a partitioned directory is detected, read recursively, aligned to 0 and sorted", async () => {
  const dataset = await loadDataset({ inputFile: EXAMPLE });
  assert.equal(dataset.format, "sagemaker_data_capture");
  assert.deepEqual(dataset.conversations.map((c) => c.turns[0].timestampMs), [0, 750, 2250]);
  const [first, second, third] = dataset.conversations.map((c) => c.turns[0]);
  assert.equal(first.maxTokens, 48);
  assert.equal(first.messages?.length, 2, "the system message is sent as captured");
  assert.equal(first.texts[0], "You answer in one sentence.\nWhat does a load balancer do?");
  assert.equal(second.maxTokens, 32, "max_completion_tokens, base64-encoded");
  assert.equal(second.texts[0], "Summarize: caching keeps hot data close to the CPU.");
  assert.equal(third.tools?.length, 1);
  assert.match(dataset.description ?? "", /3 requests in 3 sessions, first turns over 2\.25 s/);
});

Deno.test("SageMaker capture: the chat body sends the captured messages and tools, with the run's model and cap", async () => {
  const dataset = await loadDataset({ inputFile: EXAMPLE });
  const turn = dataset.conversations[2].turns[0];
  const body = CHAT_ADAPTER.buildRequest(turn, {
    model: "run-model",
    streaming: true,
    maxTokens: turn.maxTokens,
    useLegacyMaxTokens: false,
    useServerTokenCount: false,
    extraInputs: {},
  }, []);
  assert.equal(body.model, "run-model");
  assert.equal(body.max_completion_tokens, 40);
  assert.deepEqual(body.messages, turn.messages);
  assert.deepEqual(body.tools, turn.tools);
  const messages = body.messages as { role: string }[];
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "tool"]);
});

Deno.test("SageMaker capture: records that cannot be replayed are refused with file:line and the reason", async () => {
  const good = capture({ messages: [{ role: "user", content: "hi" }] });
  const cases: [unknown, RegExp][] = [
    [{ captureData: {}, eventMetadata: { inferenceTime: "2024-05-01T12:00:00Z" } }, /:2: "captureData\.endpointInput"/],
    [capture({ prompt: "x" }), /:2: the captured request has no 'messages' list/],
    [capture({ messages: [] }, "yesterday"), /:2: "eventMetadata\.inferenceTime" is not an ISO 8601 time/],
    [
      { ...good, captureData: { endpointInput: { data: "%%", encoding: "BASE64" } } },
      /:2: captureData\.endpointInput\.data is not valid base64/,
    ],
    [
      { ...good, captureData: { endpointInput: { data: "a,b", encoding: "CSV" } } },
      /:2: captureData\.endpointInput is CSV-encoded/,
    ],
    [capture({ messages: [{ role: "user", content: "x" }], max_tokens: 0 }), /:2: the captured max_tokens/],
  ];
  for (const [bad, message] of cases) {
    const path = await file([good, bad]);
    const error = await loadDataset({ inputFile: path, customDatasetType: "sagemaker_data_capture" }).then(
      () => undefined,
      (e) => e,
    );
    assert.ok(error instanceof DatasetError, String(error));
    assert.match(error.message, message);
  }
});

Deno.test("SageMaker capture: captured messages go to chat only; another endpoint type is refused", async () => {
  const { prepareConversations } = await import("../../src/engine/prepared_conversation.ts");
  const { COMPLETIONS_ADAPTER } = await import("../../src/endpoints/openai/completions.ts");
  const { SeededRandom } = await import("../../src/base/seeded_random.ts");
  const { loadBuiltinTokenizer } = await import("../../src/tokenizer/builtin_tokenizer.ts");
  const dataset = await loadDataset({ inputFile: EXAMPLE });
  const opts = {
    modelNames: ["m"],
    modelSelectionStrategy: "round_robin" as const,
    outputTokensStddev: 0,
    rng: new SeededRandom(1),
    tokenizer: await loadBuiltinTokenizer(),
    streaming: false,
    useLegacyMaxTokens: false,
    useServerTokenCount: false,
    extraInputs: {},
  };
  await assert.rejects(
    prepareConversations(dataset, { ...opts, adapter: COMPLETIONS_ADAPTER }),
    /--endpoint-type completions cannot send the messages written in the dataset.*--endpoint-type chat/,
  );
  const prepared = await prepareConversations(dataset, { ...opts, adapter: CHAT_ADAPTER });
  assert.ok(prepared[0].turns[0].inputTokens! > 10, "the ISL counts the captured messages' text");
});
