import assert from "node:assert/strict";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";
import { buildSyntheticDataset, syntheticSessionId } from "../../src/dataset/synthetic_dataset.ts";
import { lazyTokenizer } from "../../src/tokenizer/tokenizer.ts";

const tokenizer = await loadBuiltinTokenizer();

Deno.test("buildSyntheticDataset defaults to 100 shuffled entries of 550 tokens without max tokens", async () => {
  const dataset = await buildSyntheticDataset({ tokenizer });
  assert.equal(dataset.source, "synthetic");
  assert.equal(dataset.defaultSampling, "shuffle");
  assert.equal(dataset.conversations.length, 100);
  for (const conversation of dataset.conversations) {
    assert.equal(conversation.turns.length, 1);
    const [turn] = conversation.turns;
    assert.equal(turn.texts.length, 1);
    assert.equal(turn.inputTokens, 550);
    assert.equal(tokenizer.count(turn.texts[0]), 550);
    assert.equal(turn.maxTokens, undefined);
    assert.equal("maxTokens" in turn, false);
  }
});

Deno.test("buildSyntheticDataset with stddev 0 makes every entry exactly the mean", async () => {
  const dataset = await buildSyntheticDataset({ tokenizer, numEntries: 30, islMean: 128, oslMean: 64, seed: 9 });
  for (const { turns: [turn] } of dataset.conversations) {
    assert.equal(turn.inputTokens, 128);
    assert.equal(tokenizer.count(turn.texts[0]), 128);
    assert.equal(turn.maxTokens, 64);
  }
});

Deno.test("buildSyntheticDataset samples lengths around the mean and records the exact ISL", async () => {
  const dataset = await buildSyntheticDataset({
    tokenizer,
    numEntries: 200,
    islMean: 300,
    islStddev: 50,
    oslMean: 100,
    oslStddev: 20,
    seed: 11,
  });
  const isl = dataset.conversations.map((c) => c.turns[0].inputTokens!);
  const osl = dataset.conversations.map((c) => c.turns[0].maxTokens!);
  for (const c of dataset.conversations) assert.equal(tokenizer.count(c.turns[0].texts[0]), c.turns[0].inputTokens);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  assert.ok(Math.abs(mean(isl) - 300) < 15, `ISL mean ${mean(isl)}`);
  assert.ok(Math.abs(mean(osl) - 100) < 6, `OSL mean ${mean(osl)}`);
  assert.ok(new Set(isl).size > 50);
  assert.ok(isl.every((n) => Number.isInteger(n) && n >= 1));
  assert.ok(osl.every((n) => Number.isInteger(n) && n >= 1));
});

Deno.test("buildSyntheticDataset clamps sampled lengths to at least one token", async () => {
  const dataset = await buildSyntheticDataset({
    tokenizer,
    numEntries: 50,
    islMean: 2,
    islStddev: 10,
    oslMean: 1,
    oslStddev: 10,
  });
  for (const { turns: [turn] } of dataset.conversations) {
    assert.ok(turn.inputTokens! >= 1);
    assert.ok(turn.maxTokens! >= 1);
    assert.equal(tokenizer.count(turn.texts[0]), turn.inputTokens);
  }
});

Deno.test("buildSyntheticDataset gives the same dataset for the same seed and another for another seed", async () => {
  const options = { tokenizer, numEntries: 20, islMean: 100, islStddev: 30, oslMean: 50, oslStddev: 5 };
  const a = await buildSyntheticDataset({ ...options, seed: 1 });
  const b = await buildSyntheticDataset({ ...options, seed: 1 });
  const c = await buildSyntheticDataset({ ...options, seed: 2 });
  assert.deepEqual(a, b);
  assert.notDeepEqual(a.conversations.map((x) => x.turns[0].texts), c.conversations.map((x) => x.turns[0].texts));
});

Deno.test("buildSyntheticDataset keeps ISL draws independent of the OSL settings", async () => {
  const withOsl = await buildSyntheticDataset({
    tokenizer,
    numEntries: 10,
    islMean: 80,
    islStddev: 20,
    oslMean: 10,
    oslStddev: 3,
    seed: 4,
  });
  const without = await buildSyntheticDataset({ tokenizer, numEntries: 10, islMean: 80, islStddev: 20, seed: 4 });
  assert.deepEqual(
    withOsl.conversations.map((c) => c.turns[0].texts),
    without.conversations.map((c) => c.turns[0].texts),
  );
});

Deno.test("buildSyntheticDataset names conversations session_000000 onwards", async () => {
  const dataset = await buildSyntheticDataset({ tokenizer, numEntries: 3, islMean: 5 });
  assert.deepEqual(dataset.conversations.map((c) => c.id), ["session_000000", "session_000001", "session_000002"]);
  assert.equal(syntheticSessionId(1234567), "session_1234567");
});

Deno.test("buildSyntheticDataset uses a given corpus", async () => {
  const corpus = "Lighthouses guide ships along rocky coasts at night. ".repeat(20);
  const dataset = await buildSyntheticDataset({ tokenizer, numEntries: 5, islMean: 20, corpus });
  for (const { turns: [turn] } of dataset.conversations) assert.match(turn.texts[0], /ight|ship|coast|rock/);
});

Deno.test("buildSyntheticDataset rejects invalid options with the value and the fix", async () => {
  await assert.rejects(
    () => buildSyntheticDataset({ tokenizer, numEntries: 0 }),
    /numEntries must be a positive integer, got 0/,
  );
  await assert.rejects(
    () => buildSyntheticDataset({ tokenizer, islMean: 0 }),
    /islMean must be at least 1 token, got 0/,
  );
  await assert.rejects(() => buildSyntheticDataset({ tokenizer, islStddev: -1 }), /islStddev must be ≥ 0, got -1/);
  await assert.rejects(
    () => buildSyntheticDataset({ tokenizer, oslMean: 0 }),
    /oslMean must be at least 1 token, got 0/,
  );
  await assert.rejects(() => buildSyntheticDataset({ tokenizer, oslMean: 5, oslStddev: -2 }), /oslStddev must be ≥ 0/);
});

Deno.test("buildSyntheticDataset with the builtin tokenizer and bundled corpus never loads the tokenizer", async () => {
  let loads = 0;
  const lazy = lazyTokenizer("builtin", () => {
    loads++;
    return Promise.resolve(tokenizer);
  });
  const dataset = await buildSyntheticDataset({ tokenizer: lazy, numEntries: 100, islMean: 550, islStddev: 50 });
  assert.equal(loads, 0);
  for (const { turns: [turn] } of dataset.conversations) assert.equal(tokenizer.count(turn.texts[0]), turn.inputTokens);
});
