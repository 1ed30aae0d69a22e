import assert from "node:assert/strict";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";
import { buildSyntheticDataset } from "../../src/dataset/synthetic_dataset.ts";

const tokenizer = await loadBuiltinTokenizer();

Deno.test("shared system prompt: one text of exactly N tokens on every conversation, counted in each turn's ISL", async () => {
  const dataset = await buildSyntheticDataset({
    tokenizer,
    numEntries: 6,
    islMean: 40,
    turnMean: 2,
    sharedSystemPromptLength: 50,
    seed: 3,
  });
  const systems = new Set(dataset.conversations.map((c) => c.systemMessage));
  assert.equal(systems.size, 1);
  assert.equal(tokenizer.count([...systems][0]!), 50);
  for (const c of dataset.conversations) for (const t of c.turns) assert.equal(t.inputTokens, 90);
});

Deno.test("user context prompt: a first-turn text of exactly N tokens, different for each conversation", async () => {
  const dataset = await buildSyntheticDataset({
    tokenizer,
    numEntries: 5,
    islMean: 30,
    turnMean: 2,
    userContextPromptLength: 20,
    seed: 4,
  });
  const contexts = dataset.conversations.map((c) => c.turns[0].texts[0]);
  assert.equal(new Set(contexts).size, 5);
  for (const c of dataset.conversations) {
    const [first, second] = c.turns;
    assert.equal(first.texts.length, 2);
    assert.equal(tokenizer.count(first.texts[0]), 20);
    assert.equal(tokenizer.count(first.texts[1]), 30);
    assert.equal(first.inputTokens, 50);
    assert.deepEqual([second.texts.length, second.inputTokens], [1, 30]);
  }
});

Deno.test("prefix pool: first-turn prompts start with one of P prefixes of L tokens, and count L + ISL", async () => {
  const dataset = await buildSyntheticDataset({
    tokenizer,
    numEntries: 40,
    islMean: 25,
    prefixPoolSize: 3,
    prefixLength: 15,
    seed: 5,
  });
  const prefixes = new Set<string>();
  for (const { turns: [turn] } of dataset.conversations) {
    const ids = tokenizer.encode(turn.texts[0]);
    assert.equal(turn.inputTokens, ids.length);
    assert.equal(turn.inputTokens, 40);
    prefixes.add(tokenizer.decode(ids.slice(0, 15)));
  }
  assert.equal(prefixes.size, 3);
  await assert.rejects(
    buildSyntheticDataset({
      tokenizer,
      numEntries: 1,
      prefixPoolSize: 2,
      prefixLength: 5,
      sharedSystemPromptLength: 9,
    }),
    /cannot be combined/,
  );
  await assert.rejects(buildSyntheticDataset({ tokenizer, numEntries: 1, prefixPoolSize: 2 }), /go together/);
});
