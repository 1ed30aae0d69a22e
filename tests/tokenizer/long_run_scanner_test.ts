/**
 * The long-run scanner of long_run_scanner.ts against the o200k_base pattern it replaces: piece by piece on seeded
 * random text that mixes every class the pattern tells apart (upper, lower, title-case and modifier letters, other
 * letters, marks, astral letters and symbols, lone surrogates, digits, apostrophes and contractions, symbols, `/`,
 * spaces and line breaks), and the tokenizer with and without it on long texts made of runs.
 */
import assert from "node:assert/strict";
import o200k from "js-tiktoken/ranks/o200k_base";
import { Tiktoken } from "js-tiktoken/lite";
import { BpeRanks } from "../../src/tokenizer/bpe_ranks.ts";
import { BpeTokenizer } from "../../src/tokenizer/bpe_tokenizer.ts";
import {
  LETTER_RUN,
  LETTER_RUN_BOTH,
  LongRunScanner,
  O200K_PATTERN,
  RUN_SAMPLE_STRIDE,
  SYMBOL_RUN,
} from "../../src/tokenizer/long_run_scanner.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";

const ranks = BpeRanks.parse(o200k.bpe_ranks);

/** Groups of characters, each a class or a mix the pattern tells apart. */
const GROUPS: readonly string[] = [
  "ABCDEFGHIJKLMNOPQRSTUVWXYZÀÉΣЖ", // Lu
  "abcdefghijklmnopqrstuvwxyzéßжσ", // Ll
  "ǅǈǋǲᾈ", // Lt
  "ʰʲˆ々ーꜗ", // Lm
  "中国語的一是不了人我在有他这大来上", // Lo (CJK)
  "กขคงจฉชซญดตถทนบปผพฟมยรลวสหอ", // Lo (Thai)
  "\u0e31\u0e34\u0e35\u0e48\u0e49\u0301\u0300\u0308\u20dd\u0903", // M (Thai vowels and tones, combining, Mc, Me)
  "あいうアイウ가나다한", // kana, hangul
  "'''''sStTmMdDrRvVeElL", // contractions' parts
  "0123456789٣४", // N
  '!?.,;:#()[]{}<>=+-*&^%$@~|\\"', // symbols
  "/////", // the slash after symbol runs
  "\r\n\r\n\n", // line breaks
  "   \t\u00a0\u3000", // spaces
  "\u{20000}\u{2000b}\u{1d400}\u{1d41a}\u{1d165}\u{1f600}\u{1f3fd}\u{10400}\u{10428}", // astral Lo, Lu, Ll, Mc, So, Lu/Ll
  "\ud800\udc00\ud83d", // a pair and lone surrogates (the pair may be split by the generator: lone ones)
];

/** A random string of `length` code units, in stretches of one group (so runs of one class occur). */
function randomText(rng: SeededRandom, length: number): string {
  let s = "";
  while (s.length < length) {
    const group = GROUPS[rng.int(GROUPS.length)];
    const stretch = 1 + rng.int(rng.int(4) === 0 ? 40 : 6);
    const chars = [...group];
    for (let i = 0; i < stretch; i++) s += chars[rng.int(chars.length)];
  }
  return s;
}

const sticky = new RegExp(O200K_PATTERN, "uy");
function patternEnd(text: string, pos: number): number {
  sticky.lastIndex = pos;
  return sticky.test(text) ? sticky.lastIndex : -1;
}

const SYMBOL_RUN_AT = /[^\s\p{L}\p{N}\p{M}]*/uy;
function symbolRunEnd(text: string, start: number): number {
  SYMBOL_RUN_AT.lastIndex = start;
  SYMBOL_RUN_AT.test(text);
  return SYMBOL_RUN_AT.lastIndex;
}

const LETTER_OR_MARK = /^[\p{L}\p{M}]/u;
const BOTH_AT = /^[\p{Lm}\p{Lo}\p{M}]/u;
const BOTH_RUN = /[\p{Lm}\p{Lo}\p{M}]*/uy;
function bothRunEnd(text: string, start: number): number {
  BOTH_RUN.lastIndex = start;
  BOTH_RUN.test(text);
  return BOTH_RUN.lastIndex;
}

Deno.test("long-run scanner finds the pattern's piece wherever it answers, and answers at every letter or mark", () => {
  const rng = new SeededRandom(20261129);
  const scanner = new LongRunScanner();
  let letters = 0;
  let symbols = 0;
  let runs = 0;
  for (let t = 0; t < 3000; t++) {
    const text = randomText(rng, 1 + rng.int(80));
    for (let pos = 0; pos < text.length; pos++) {
      // The tokenizer never starts a piece inside a surrogate pair.
      if (pos > 0 && /[\ud800-\udbff]/.test(text[pos - 1]) && /[\udc00-\udfff]/.test(text[pos])) continue;
      const expected = patternEnd(text, pos);
      const letter = scanner.letterPiece(text, pos);
      const where = `text ${JSON.stringify(text)} at ${pos}`;
      if (letter >= 0) {
        assert.equal(letter, expected, `letter piece, ${where}`);
        letters++;
      }
      if (LETTER_OR_MARK.test(text.slice(pos))) assert.ok(letter >= 0, `no letter piece, ${where}`);
      // A run of letters and marks that are in both letter classes, maximal among letters and marks, at `pos` or
      // just after the character there.
      const both = BOTH_AT.test(text.slice(pos)) ? pos : pos + (text.codePointAt(pos)! > 0xffff ? 2 : 1);
      const bothEnd = bothRunEnd(text, both);
      if (bothEnd > both && !LETTER_OR_MARK.test(text.slice(bothEnd))) {
        const piece = scanner.bothPiece(text, pos, both, bothEnd);
        if (piece >= 0) {
          assert.equal(piece, expected, `run piece, ${where}`);
          runs++;
        }
        if (pos === both) assert.ok(piece >= 0, `no run piece, ${where}`);
      }
      const start = text[pos] === " " ? pos + 1 : pos;
      const symbol = scanner.symbolPiece(text, pos, symbolRunEnd(text, start));
      if (symbol >= 0) {
        assert.equal(symbol, expected, `symbol piece, ${where}`);
        symbols++;
      }
    }
  }
  // Both kinds answered often enough for the comparison to mean something.
  assert.ok(letters > 20_000, `${letters} letter pieces`);
  assert.ok(symbols > 5_000, `${symbols} symbol pieces`);
  assert.ok(runs > 5_000, `${runs} run pieces`);
});

Deno.test("long-run scanner finds every run of twice the stride, and only runs of one class", () => {
  const rng = new SeededRandom(7);
  const scanner = new LongRunScanner();
  const stride = RUN_SAMPLE_STRIDE;
  for (let t = 0; t < 40; t++) {
    // Short words, then a run of letters and marks or of symbols, then short words again.
    const words = () =>
      Array.from({ length: 300 + rng.int(2000) }, () => randomText(rng, 1 + rng.int(5)) + " ").join("");
    // Letters and marks (mixed; each in both letter classes; those with Latin letters only at one end), symbols.
    const shape = rng.int(5);
    const kind = shape === 4 ? SYMBOL_RUN : shape === 1 ? LETTER_RUN_BOTH : LETTER_RUN;
    const length = 2 * stride + rng.int(3 * stride);
    const group = [
      ...(shape === 0
        ? "中国語的กขคง\u0e31\u0e48abcXYZ\u0301"
        : shape === 4
        ? "!?#()=+*&%$@~|"
        : "中国語的กขคง\u0e31\u0e48"),
    ];
    let run = "";
    while (run.length < length) run += group[rng.int(group.length)];
    if (shape === 2) run = "abC" + run;
    if (shape === 3) run += "Xy";
    const edge = kind === SYMBOL_RUN ? "a" : "1";
    const before = words() + edge;
    const text = before + run + edge + words();
    const runs = scanner.findRuns(text);
    const at = runs.findIndex((_, i) => i % 3 === 0 && runs[i] === before.length);
    assert.ok(at >= 0, `run at ${before.length} not found in ${JSON.stringify(runs)}`);
    assert.deepEqual(runs.slice(at, at + 3), [before.length, before.length + run.length, kind]);
    for (let i = 0; i < runs.length; i += 3) {
      const piece = text.slice(runs[i], runs[i + 1]);
      assert.ok(runs[i + 1] - runs[i] >= stride);
      assert.match(piece, runs[i + 2] !== SYMBOL_RUN ? /^[\p{L}\p{M}]+$/u : /^[^\s\p{L}\p{N}\p{M}]+$/u);
    }
  }
});

Deno.test("tokenizer gives the same ids with and without the long-run scanner on long texts made of runs", () => {
  const rng = new SeededRandom(11);
  const stride = 64;
  const scanned = new BpeTokenizer({ name: "o200k", ranks, pattern: O200K_PATTERN, longRunStride: stride });
  const plain = new BpeTokenizer({ name: "o200k", ranks, pattern: O200K_PATTERN, longRunStride: 0 });
  const runGroups = [
    [..."中国語的一是不了人我在有他这大来上"],
    [..."กขคงจฉชซญดตถ\u0e31\u0e34\u0e48\u0e49"],
    [..."abcdefghijklmnopqrstuvwxyz"],
    [..."abcXYZ中ʰ\u0301ǅ\u{20000}\u{1d400}"],
    [..."!?#()=+*&%$@~|\u{1f600}"],
  ];
  let windowed = 0;
  for (let t = 0; t < 600; t++) {
    let text = "";
    const parts = 1 + rng.int(4);
    for (let p = 0; p < parts; p++) {
      text += randomText(rng, rng.int(60));
      const group = runGroups[rng.int(runGroups.length)];
      const length = rng.int(5 * stride);
      let run = "";
      while (run.length < length) run += group[rng.int(group.length)];
      // Upper- or lower-case letters at one end of a run of letters each in both classes change its pieces.
      const end = rng.int(6);
      text += end === 0 ? "ABC" + run : end === 1 ? run + "XYZ" : end === 2 ? run + "xyz" : run;
    }
    text += randomText(rng, rng.int(60));
    const expected = plain.encode(text);
    assert.deepEqual(scanned.encode(text), expected, `text ${t}`);
    assert.equal(scanned.count(text), expected.length);
    windowed += new LongRunScanner(stride).findRuns(text).length / 3;
  }
  assert.ok(windowed > 500, `${windowed} runs scanned`);
});

Deno.test("tokenizer with the long-run scanner matches js-tiktoken on long CJK, Thai and symbol runs", () => {
  const oracle = new Tiktoken(o200k);
  const stride = 64;
  const tokenizer = new BpeTokenizer({ name: "o200k", ranks, pattern: O200K_PATTERN, longRunStride: stride });
  const rng = new SeededRandom(3);
  for (const chars of ["中国語的一是不了人我在有他这大来上", "กขคงจฉชซญดตถ\u0e31\u0e34\u0e48", "!?#()=+*&%$@~|"]) {
    const group = [...chars];
    let run = "";
    while (run.length < 3 * stride) run += group[rng.int(group.length)];
    const text = "Answer: " + run + "'s end. " + run + "\n/";
    assert.deepEqual(tokenizer.encode(text), oracle.encode(text));
  }
});

Deno.test("tokenizer counts a run of millions of characters without spaces (the pattern alone overflows)", () => {
  const tokenizer = new BpeTokenizer({ name: "o200k", ranks, pattern: O200K_PATTERN });
  const rng = new SeededRandom(5);
  // After an astral symbol, which is the first piece's prefix.
  const cjk = "😀" + Array.from({ length: 4 << 20 }, () => String.fromCharCode(0x4e00 + rng.int(2000))).join("");
  const symbols = "中" + "!?#(".repeat(2 << 20);
  for (const text of [cjk, symbols]) {
    const ids = tokenizer.encode(text);
    assert.equal(tokenizer.count(text), ids.length);
    assert.equal(tokenizer.decode(ids), text);
  }
});
