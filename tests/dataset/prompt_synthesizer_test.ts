import assert from "node:assert/strict";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";
import { PromptSynthesizer } from "../../src/dataset/prompt_synthesizer.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { DEFAULT_CORPUS } from "../../src/dataset/default_corpus.ts";
import { HfTokenizer } from "../../src/tokenizer/hf_library_tokenizer.ts";
import { lazyTokenizer } from "../../src/tokenizer/tokenizer.ts";

const tokenizer = await loadBuiltinTokenizer();

Deno.test("PromptSynthesizer makes prompts that encode to exactly n tokens for many n and seeds", async () => {
  for (let seed = 0; seed < 12; seed++) {
    const synthesizer = new PromptSynthesizer(tokenizer, DEFAULT_CORPUS, new SeededRandom(seed));
    const lengths = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 128, 144, 233, 377, 550, 610, 1024, 2048];
    for (let i = 0; i < 40; i++) lengths.push(1 + ((seed * 7919 + i * 104729) % 700));
    for (const n of lengths) {
      const prompt = await synthesizer.prompt(n);
      assert.equal(prompt.tokens, n, `seed ${seed}, n ${n}`);
      assert.equal(tokenizer.encode(prompt.text).length, n, `seed ${seed}, n ${n}: reported length is real`);
    }
  }
});

Deno.test("PromptSynthesizer wraps around the corpus for prompts longer than the corpus", async () => {
  const corpus = "A short corpus about bread, salt, and the patience of dough.";
  const synthesizer = new PromptSynthesizer(tokenizer, corpus, new SeededRandom(3));
  assert.ok(tokenizer.count(corpus) < 20);
  for (const n of [1, 7, 50, 333]) {
    const prompt = await synthesizer.prompt(n);
    assert.equal(prompt.tokens, n);
    assert.equal(tokenizer.count(prompt.text), n);
  }
});

Deno.test("PromptSynthesizer is deterministic for a seed and varies across seeds", async () => {
  const a = new PromptSynthesizer(tokenizer, DEFAULT_CORPUS, new SeededRandom(42));
  const b = new PromptSynthesizer(tokenizer, DEFAULT_CORPUS, new SeededRandom(42));
  const c = new PromptSynthesizer(tokenizer, DEFAULT_CORPUS, new SeededRandom(43));
  const texts = async (s: PromptSynthesizer) => {
    const out: string[] = [];
    for (const n of [100, 200, 300]) out.push((await s.prompt(n)).text);
    return out;
  };
  const fromA = await texts(a);
  const fromB = await texts(b);
  const fromC = await texts(c);
  assert.deepEqual(fromA, fromB);
  assert.notDeepEqual(fromA, fromC);
});

Deno.test("PromptSynthesizer takes its text from the corpus", async () => {
  const synthesizer = new PromptSynthesizer(tokenizer, DEFAULT_CORPUS, new SeededRandom(5));
  const cleaned = DEFAULT_CORPUS.split("\n").map((l) => l.trim()).filter((l) => l !== "").join("\n");
  for (let i = 0; i < 20; i++) {
    const { text } = await synthesizer.prompt(64);
    // Repairs only touch the ends, so the middle of the prompt is a verbatim corpus passage.
    const middle = text.slice(Math.floor(text.length / 4), Math.floor((3 * text.length) / 4));
    assert.ok(cleaned.includes(middle), JSON.stringify(middle));
  }
});

Deno.test("PromptSynthesizer works with a Hugging Face tokenizer", async () => {
  const json = JSON.parse(await Deno.readTextFile(new URL("../fixtures/tiny_bpe/tokenizer.json", import.meta.url)));
  const hf = new HfTokenizer("tiny", json);
  const synthesizer = new PromptSynthesizer(hf, DEFAULT_CORPUS.slice(0, 5000), new SeededRandom(1));
  for (const n of [1, 10, 100, 400]) {
    const prompt = await synthesizer.prompt(n);
    assert.equal(prompt.tokens, n);
    assert.equal(hf.count(prompt.text), n);
  }
});

Deno.test("PromptSynthesizer rejects lengths below one and empty corpora", async () => {
  const synthesizer = new PromptSynthesizer(tokenizer, DEFAULT_CORPUS, new SeededRandom(1));
  await assert.rejects(() => synthesizer.prompt(0), /Prompt length must be a positive integer, got 0/);
  await assert.rejects(() => synthesizer.prompt(2.5), RangeError);
  assert.throws(() => new PromptSynthesizer(tokenizer, "\n \n\t\n", new SeededRandom(1)), /corpus has no tokens/);
});

Deno.test("PromptSynthesizer reports the achieved length when no exact text exists", async () => {
  // A tokenizer that can only produce even counts: one id per character, padded with id 0 to an even length.
  const evenOnly = {
    name: "even-only",
    encode(text: string): number[] {
      const ids = [...text].map((c) => c.codePointAt(0)!);
      if (ids.length % 2 === 1) ids.push(0);
      return ids;
    },
    decode(ids: readonly number[]): string {
      return ids.filter((id) => id !== 0).map((id) => String.fromCodePoint(id)).join("");
    },
    count(text: string): number {
      return this.encode(text).length;
    },
  };
  const synthesizer = new PromptSynthesizer(evenOnly, "abcdefghij", new SeededRandom(1));
  const prompt = await synthesizer.prompt(3);
  assert.equal(prompt.tokens, 4);
  assert.equal(evenOnly.count(prompt.text), 4);
  assert.equal((await synthesizer.prompt(6)).tokens, 6);
});

Deno.test("PromptSynthesizer gives the same prompts from the piece table as from tokenizing, with no tokenizer load", async () => {
  let loads = 0;
  const lazy = lazyTokenizer("builtin", () => {
    loads++;
    return Promise.resolve(tokenizer);
  });
  for (const seed of [1, 2, 3]) {
    const fromTable = new PromptSynthesizer(lazy, DEFAULT_CORPUS, new SeededRandom(seed));
    const fromTokens = new PromptSynthesizer(tokenizer, DEFAULT_CORPUS, new SeededRandom(seed), { pieceTable: null });
    for (const n of [1, 2, 7, 64, 550, 551, 1000, 3000, 8000]) {
      const a = await fromTable.prompt(n);
      const b = await fromTokens.prompt(n);
      assert.equal(a.text, b.text, `seed ${seed}, n ${n}`);
      assert.equal(a.tokens, n);
      assert.equal(tokenizer.count(a.text), n);
    }
    assert.equal(fromTable.tokenizerLoaded, false);
    assert.equal(fromTokens.tokenizerLoaded, true);
  }
  assert.equal(loads, 0);
});

Deno.test("PromptSynthesizer loads a lazy tokenizer only for prompts longer than the corpus", async () => {
  let loads = 0;
  const lazy = lazyTokenizer("builtin", () => {
    loads++;
    return Promise.resolve(tokenizer);
  });
  const synthesizer = new PromptSynthesizer(lazy, DEFAULT_CORPUS, new SeededRandom(9));
  assert.equal((await synthesizer.prompt(500)).tokens, 500);
  assert.equal(loads, 0);
  const long = await synthesizer.prompt(40_000); // the corpus is ~14k tokens: the window wraps
  assert.equal(long.tokens, 40_000);
  assert.equal(tokenizer.count(long.text), 40_000);
  assert.equal(loads, 1);
  assert.equal(synthesizer.tokenizerLoaded, true);
});

Deno.test("PromptSynthesizer ignores the piece table for another tokenizer or another corpus", async () => {
  let loads = 0;
  const notBuiltin = lazyTokenizer("other", () => {
    loads++;
    return Promise.resolve(tokenizer);
  });
  await new PromptSynthesizer(notBuiltin, DEFAULT_CORPUS, new SeededRandom(1)).prompt(10);
  assert.equal(loads, 1);
  const builtin = lazyTokenizer("builtin", () => {
    loads++;
    return Promise.resolve(tokenizer);
  });
  const edited = DEFAULT_CORPUS.replace("the", "teh");
  const prompt = await new PromptSynthesizer(builtin, edited, new SeededRandom(1)).prompt(300);
  assert.equal(loads, 2);
  assert.equal(tokenizer.count(prompt.text), 300);
});
