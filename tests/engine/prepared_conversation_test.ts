import assert from "node:assert/strict";
import { buildTurnRequest, prepareConversations } from "../../src/engine/prepared_conversation.ts";
import { CHAT_ADAPTER } from "../../src/endpoints/openai/chat.ts";
import { COMPLETIONS_ADAPTER } from "../../src/endpoints/openai/completions.ts";
import type { Dataset } from "../../src/dataset/conversation.ts";
import type { Tokenizer } from "../../src/tokenizer/tokenizer.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";

/** Counts words: enough to see which text the ISL was taken from. */
const words: Tokenizer = {
  name: "words",
  encode: (t) => t.split(/\s+/).filter((w) => w !== "").map((_, i) => i),
  decode: () => "",
  count: (t) => t.split(/\s+/).filter((w) => w !== "").length,
};

const SETTINGS = { streaming: false, useLegacyMaxTokens: false, useServerTokenCount: false, extraInputs: {} };
const options = (over: Partial<Parameters<typeof prepareConversations>[1]> = {}) => ({
  ...SETTINGS,
  adapter: CHAT_ADAPTER,
  modelNames: ["a", "b"],
  modelSelectionStrategy: "round_robin" as const,
  outputTokensStddev: 0,
  rng: new SeededRandom(1),
  tokenizer: words,
  ...over,
});

const dataset = (conversations: Dataset["conversations"]): Dataset => ({
  conversations,
  defaultSampling: "sequential",
  source: "file",
});

Deno.test("prepared turns count ISL from the adapter's input text: the system message and the texts", async () => {
  const [c] = await prepareConversations(
    dataset([{ id: "x", systemMessage: "be brief", turns: [{ texts: ["one two", "three"] }] }]),
    options(),
  );
  assert.equal(c.turns[0].inputTokens, 5, "be brief / one two / three");
  const [given] = await prepareConversations(
    dataset([{ id: "y", turns: [{ texts: ["a"], inputTokens: 99 }] }]),
    options(),
  );
  assert.equal(given.turns[0].inputTokens, 99, "a turn that carries its ISL keeps it (synthetic prompts)");
});

Deno.test("prepareConversations needs a tokenizer only when a turn's ISL must be counted", async () => {
  await assert.rejects(
    prepareConversations(dataset([{ id: "x", turns: [{ texts: ["a"] }] }]), options({ tokenizer: undefined })),
    /needs a tokenizer/,
  );
  const ok = await prepareConversations(
    dataset([{ id: "x", turns: [{ texts: ["a"], inputTokens: 1 }] }]),
    options({ tokenizer: undefined }),
  );
  assert.equal(ok.length, 1);
});

Deno.test("models go round robin per conversation, every turn of one conversation on the same model", async () => {
  const prepared = await prepareConversations(
    dataset([
      { id: "s1", turns: [{ texts: ["a"] }, { texts: ["b"] }] },
      { id: "s2", turns: [{ texts: ["c"] }] },
      { id: "s3", turns: [{ texts: ["d"] }] },
    ]),
    options(),
  );
  assert.deepEqual(prepared.map((c) => c.model), ["a", "b", "a"]);
  assert.deepEqual(prepared[0].turns.map((t) => t.payload.model), ["a", "a"]);
});

Deno.test("turns sent as written are prebuilt; later turns that carry the conversation are built when sent", async () => {
  const [asWritten, withHistory] = await prepareConversations(
    dataset([
      {
        id: "w",
        contextMode: "message_array_with_responses",
        turns: [{ texts: ["a"] }, { texts: ["b"], delayMs: 10 }],
      },
      { id: "h", turns: [{ texts: ["first"] }, { texts: ["second"] }] },
    ]),
    options(),
  );
  assert.equal(asWritten.withHistory, false);
  assert.ok(asWritten.turns.every((t) => t.body !== undefined));
  assert.equal(asWritten.turns[1].delayMs, 10);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(asWritten.turns[1].body)).messages, [{
    role: "user",
    content: "b",
  }]);

  assert.equal(withHistory.withHistory, true);
  assert.ok(withHistory.turns[0].body !== undefined, "a first turn has no history");
  assert.equal(withHistory.turns[1].body, undefined);
  const { body, inputPrompt } = buildTurnRequest(CHAT_ADAPTER, SETTINGS, withHistory, withHistory.turns[1], [
    { turn: withHistory.turns[0].turn!, reply: "the real reply" },
  ]);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(body)).messages, [
    { role: "user", content: "first" },
    { role: "assistant", content: "the real reply" },
    { role: "user", content: "second" },
  ]);
  // Its ISL is what the body carries: the earlier turn, the reply and this turn (AIPerf counts the wire payload).
  assert.deepEqual(inputPrompt, {
    texts: ["first", "the real reply", "second"],
    messages: [
      { role: "user", content: "first" },
      { role: "assistant", content: "the real reply" },
      { role: "user", content: "second" },
    ],
  });
  const serverCounts = buildTurnRequest(
    CHAT_ADAPTER,
    { ...SETTINGS, useServerTokenCount: true },
    withHistory,
    withHistory.turns[1],
    [{ turn: withHistory.turns[0].turn!, reply: "r" }],
  );
  assert.equal(serverCounts.inputPrompt, undefined, "server counts: nothing to count on the client");
});

Deno.test("an adapter without a conversation API prebuilds every turn", async () => {
  const [c] = await prepareConversations(
    dataset([{ id: "h", turns: [{ texts: ["first"] }, { texts: ["second"] }] }]),
    options({ adapter: COMPLETIONS_ADAPTER }),
  );
  assert.equal(c.withHistory, false);
  assert.ok(c.turns.every((t) => t.body !== undefined));
});

Deno.test("a first turn's delay is dropped (think time comes between turns); timestamps are kept", async () => {
  const [c] = await prepareConversations(
    dataset([{ id: "t", turns: [{ texts: ["a"], delayMs: 70, timestampMs: 5 }, { texts: ["b"], timestampMs: 9 }] }]),
    options(),
  );
  assert.deepEqual(c.turns.map((t) => [t.delayMs, t.timestampMs]), [[undefined, 5], [undefined, 9]]);
});

Deno.test("output lengths: a turn's own, else drawn from --osl, and what the body asks is recorded", async () => {
  const [c] = await prepareConversations(
    dataset([{ id: "o", turns: [{ texts: ["a"], maxTokens: 7 }, { texts: ["b"] }] }]),
    options({ outputTokensMean: 20 }),
  );
  assert.deepEqual(c.turns.map((t) => t.requestedOutputTokens), [7, 20]);
  assert.deepEqual(c.turns.map((t) => t.payload.max_completion_tokens), [7, 20]);
});

Deno.test("spawns name children by index; a fork's child and a forking parent keep their history; first delays stay", async () => {
  const prepared = await prepareConversations(
    dataset([
      {
        id: "root",
        turns: [{ texts: ["a"], spawns: [{ children: ["f"], inheritContext: true, joinAt: 1 }] }, { texts: ["b"] }],
        spawnsFirst: [{ children: ["s"] }],
      },
      { id: "f", child: true, turns: [{ texts: ["x"], delayMs: 25 }] },
      { id: "s", child: true, turns: [{ texts: ["y"], delayMs: 40 }] },
      { id: "spine", turns: [{ texts: [], requestFree: true, delayMs: 10, spawns: [{ children: ["s"] }] }] },
    ]),
    options(),
  );
  const [root, fork, spawned, spine] = prepared;
  assert.equal(root.tree, true);
  assert.deepEqual(root.turns[0].spawns, [{ children: [1], inheritContext: true, joinAt: 1 }]);
  assert.deepEqual(root.spawnsFirst, [{ children: [2] }]);
  assert.equal(fork.child, true);
  assert.equal(fork.withHistory, true, "a fork's child is built with its parent's conversation");
  assert.equal(fork.turns[0].body, undefined, "even its first turn is built when sent");
  assert.equal(fork.turns[0].delayMs, 25, "a child's first delay is its start offset");
  assert.equal(spawned.withHistory, false);
  assert.ok(spawned.turns[0].body !== undefined, "a spawn's one-turn child is prebuilt");
  assert.equal(spine.turns[0].requestFree, true);
  assert.equal(spine.turns[0].delayMs, 10);
  assert.deepEqual(spine.turns[0].payload, {});
  assert.equal(spine.tree, true);
});

Deno.test("a spawn naming a missing conversation, or one not marked as a child, is an input error", async () => {
  await assert.rejects(
    prepareConversations(
      dataset([{ id: "r", turns: [{ texts: ["a"], spawns: [{ children: ["nope"] }] }] }]),
      options(),
    ),
    /names conversation nope, which the dataset does not have/,
  );
  await assert.rejects(
    prepareConversations(
      dataset([{ id: "r", turns: [{ texts: ["a"], spawns: [{ children: ["o"] }] }] }, {
        id: "o",
        turns: [{ texts: ["b"] }],
      }]),
      options(),
    ),
    /not marked as a child/,
  );
});
