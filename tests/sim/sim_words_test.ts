import assert from "node:assert/strict";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { SIM_WORD_BITS, SIM_WORDS } from "../../src/sim/sim_words.ts";
import { WordSource } from "../../src/sim/word_source.ts";
import { oracleTokenizer } from "./oracle_tokenizer.ts";

Deno.test("sim words are 2^SIM_WORD_BITS distinct lowercase words", () => {
  assert.equal(SIM_WORDS.length, 2 ** SIM_WORD_BITS);
  assert.equal(new Set(SIM_WORDS).size, SIM_WORDS.length);
  for (const word of SIM_WORDS) assert.match(word, /^[a-z]+$/);
});

Deno.test("sim words are each one o200k_base token with a leading space", () => {
  const tok = oracleTokenizer();
  const multi = SIM_WORDS.filter((w) => tok.encode(" " + w).length !== 1);
  assert.deepEqual(multi, []);
});

Deno.test("sim word source text re-tokenizes to exactly the requested number of tokens", () => {
  const tok = oracleTokenizer();
  const rng = new SeededRandom(12345);
  const lengths = [0, 1, 2, 3, 5, 8, 13, 16, 31, 64, 100, 128, 255, 256, 500, 1000, 2048, 4096];
  for (let i = 0; i < 60; i++) lengths.push(1 + rng.int(3000));
  for (const n of lengths) {
    const words = new WordSource(rng.derive(`len-${n}`));
    const text = words.take(n);
    assert.equal(tok.count(text), n, `length ${n}`);
  }
});

Deno.test("sim word source pieces concatenated across chunks still count exactly", () => {
  const tok = oracleTokenizer();
  const words = new WordSource(new SeededRandom(7));
  // A client joins chunk texts; chunk boundaries must not merge or split tokens.
  const chunks = [words.take(1), words.take(4), words.take(7), words.take(1), words.take(300)];
  assert.equal(tok.count(chunks.join("")), 313);
  assert.deepEqual(chunks.map((c) => tok.count(c)), [1, 4, 7, 1, 300]);
});

Deno.test("sim every word pair encodes to two tokens", () => {
  // The pre-tokenizer splits before each space-prefixed word; check it on all neighbours of a sample of words.
  const tok = oracleTokenizer();
  const rng = new SeededRandom(99);
  for (let i = 0; i < 2000; i++) {
    const a = SIM_WORDS[rng.int(SIM_WORDS.length)];
    const b = SIM_WORDS[rng.int(SIM_WORDS.length)];
    assert.equal(tok.count(` ${a} ${b}`), 2, `${a} ${b}`);
  }
});
