import assert from "node:assert/strict";
import { parseSequenceDistribution, sampleSequencePair } from "../../src/dataset/sequence_distribution.ts";
import { inputBounds, outputBounds, parseRangeRatio } from "../../src/dataset/range_ratio.ts";
import { buildSyntheticDataset } from "../../src/dataset/synthetic_dataset.ts";
import { codingCorpus } from "../../src/dataset/coding_corpus.ts";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";

const tokenizer = await loadBuiltinTokenizer();

Deno.test("--seq-dist reads AIPerf's three spellings into the same pairs", () => {
  const want = [
    { isl: 256, osl: 128, prob: 40, islStddev: 10, oslStddev: 0 },
    { isl: 512, osl: 256, prob: 60, islStddev: 0, oslStddev: 5.5 },
  ];
  assert.deepEqual(parseSequenceDistribution("256|10,128:40; 512,256|5.5:60"), want);
  assert.deepEqual(parseSequenceDistribution("[(256|10,128):40,(512,256|5.5):60]"), want);
  assert.deepEqual(
    parseSequenceDistribution(
      '{"pairs": [{"isl": 256, "isl_stddev": 10, "osl": 128, "prob": 40}, ' +
        '{"isl": 512, "osl": 256, "osl_stddev": 5.5, "prob": 60}]}',
    ),
    want,
  );
});

Deno.test("--seq-dist refuses percentages not summing to 100 and malformed pairs, saying what it expects", () => {
  assert.throws(() => parseSequenceDistribution("128,64:50;256,128:40"), /sum to 90, not 100/);
  assert.throws(() => parseSequenceDistribution("128,64"), /'128,64' is not ISL\[\|STDDEV\],OSL\[\|STDDEV\]:PERCENT/);
  assert.throws(() => parseSequenceDistribution("0,64:100"), /must be positive/);
  assert.throws(() => parseSequenceDistribution('{"pairs": [{"isl": 1, "osl": 2}]}'), /pair 0 has no "prob"/);
});

Deno.test("--seq-dist picks the first pair whose cumulative share exceeds a uniform draw", () => {
  const pairs = parseSequenceDistribution("100,10:25;200,20:75");
  // A draw below 0.25 → the first pair, at or above it → the second (searchsorted side="right").
  const at = (u: number) => sampleSequencePair(pairs, { next: () => u, normal: () => NaN } as unknown as SeededRandom);
  assert.deepEqual(at(0), [100, 10]);
  assert.deepEqual(at(0.2499), [100, 10]);
  assert.deepEqual(at(0.25), [200, 20]);
  assert.deepEqual(at(0.9999), [200, 20]);
  // Over many seeded draws the shares come out near 25 / 75.
  const rng = new SeededRandom(1);
  let first = 0;
  for (let i = 0; i < 10_000; i++) if (sampleSequencePair(pairs, rng)[0] === 100) first++;
  assert.ok(Math.abs(first / 10_000 - 0.25) < 0.02, `${first}`);
});

Deno.test("--random-range-ratio windows are [floor(mean·(1−r)), ceil(mean·(1+r))]", () => {
  assert.deepEqual(parseRangeRatio("0.3"), { input: 0.3, output: 0.3 });
  assert.deepEqual(parseRangeRatio('{"input": 0.1, "output": 0.5}'), { input: 0.1, output: 0.5 });
  assert.throws(() => parseRangeRatio("1"), /must be in \[0, 1\)/);
  assert.throws(() => parseRangeRatio("wide"), /expected a float/);
  // 100·0.7 = 70, 100·1.3 = 130; 15·0.5 = 7.5 → 7, 15·1.5 = 22.5 → 23
  assert.deepEqual(inputBounds(100, 0.3), [70, 130]);
  assert.deepEqual(outputBounds(15, 0.5), [7, 23]);
  assert.deepEqual(outputBounds(1, 0.9), [1, 2]);
});

Deno.test("synthetic turns follow the --seq-dist mixture: exact prompt lengths and max tokens per pair", async () => {
  const seqDist = parseSequenceDistribution("40,8:50;90,16:50");
  const dataset = await buildSyntheticDataset({ tokenizer, numEntries: 40, seed: 3, seqDist });
  const pairs = dataset.conversations.map((c) => [c.turns[0].inputTokens, c.turns[0].maxTokens]);
  for (const [isl, osl] of pairs) assert.ok((isl === 40 && osl === 8) || (isl === 90 && osl === 16), `${isl},${osl}`);
  assert.ok(pairs.some(([isl]) => isl === 40) && pairs.some(([isl]) => isl === 90), "both pairs drawn");
  for (const c of dataset.conversations) assert.equal(tokenizer.count(c.turns[0].texts[0]), c.turns[0].inputTokens);
  const again = await buildSyntheticDataset({ tokenizer, numEntries: 40, seed: 3, seqDist });
  assert.deepEqual(again, dataset, "seeded");
});

Deno.test("synthetic turns under --random-range-ratio stay inside both windows and spread across them", async () => {
  const dataset = await buildSyntheticDataset({
    tokenizer,
    numEntries: 60,
    seed: 5,
    islMean: 50,
    oslMean: 20,
    rangeRatio: { input: 0.2, output: 0.5 },
  });
  const isl = dataset.conversations.map((c) => c.turns[0].inputTokens!);
  const osl = dataset.conversations.map((c) => c.turns[0].maxTokens!);
  assert.ok(isl.every((n) => n >= 40 && n <= 60) && osl.every((n) => n >= 10 && n <= 30));
  assert.ok(new Set(isl).size > 8 && new Set(osl).size > 8, "spread, not one value");
  await assert.rejects(
    () => buildSyntheticDataset({ tokenizer, rangeRatio: { input: 0.2, output: 0.2 } }),
    /needs --osl/,
  );
  await assert.rejects(
    () => buildSyntheticDataset({ tokenizer, oslMean: 5, seqDist: [], rangeRatio: { input: 0.2, output: 0.2 } }),
    /cannot be combined/,
  );
});

Deno.test("--prompt-corpus coding cuts exact-length prompts from seeded developer text", async () => {
  const corpus = codingCorpus(new SeededRandom(9), 20_000);
  assert.equal(corpus, codingCorpus(new SeededRandom(9), 20_000));
  assert.match(corpus, /def |function |SELECT |Traceback|diff --git/);
  const dataset = await buildSyntheticDataset({
    tokenizer,
    numEntries: 5,
    seed: 1,
    islMean: 64,
    promptCorpus: "coding",
  });
  for (const c of dataset.conversations) {
    assert.equal(tokenizer.count(c.turns[0].texts[0]), 64);
  }
  assert.ok(dataset.conversations.some((c) => /[{}()=:]/.test(c.turns[0].texts[0])), "code-like text");
});
