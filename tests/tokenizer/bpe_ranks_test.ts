import assert from "node:assert/strict";
import { BpeRanks, NO_RANK } from "../../src/tokenizer/bpe_ranks.ts";

const enc = new TextEncoder();

function b64(text: string): string {
  return btoa(String.fromCharCode(...enc.encode(text)));
}

function rankOfText(ranks: BpeRanks, text: string): number {
  const bytes = enc.encode(text);
  return ranks.rankOf(bytes, 0, bytes.length);
}

Deno.test("BpeRanks parses tokens with ranks counted from each line's offset", () => {
  const text = `! 0 ${b64("a")} ${b64("b")} ${b64("ab")}\n! 10 ${b64("abc")} ${b64("héllo")}\n`;
  const ranks = BpeRanks.parse(text);
  assert.equal(ranks.size, 5);
  assert.equal(ranks.maxRank, 11);
  assert.equal(rankOfText(ranks, "a"), 0);
  assert.equal(rankOfText(ranks, "b"), 1);
  assert.equal(rankOfText(ranks, "ab"), 2);
  assert.equal(rankOfText(ranks, "abc"), 10);
  assert.equal(rankOfText(ranks, "héllo"), 11);
  assert.equal(rankOfText(ranks, "ba"), NO_RANK);
  assert.equal(rankOfText(ranks, ""), NO_RANK);
});

Deno.test("BpeRanks looks up a byte range inside a larger buffer", () => {
  const ranks = BpeRanks.parse(`! 0 ${b64("cat")} ${b64("at")}`);
  const bytes = enc.encode("concatenate");
  assert.equal(ranks.rankOf(bytes, 3, 6), 0);
  assert.equal(ranks.rankOf(bytes, 4, 6), 1);
  assert.equal(ranks.rankOf(bytes, 3, 5), NO_RANK);
});

Deno.test("BpeRanks maps ranks back to bytes and reports gaps", () => {
  const ranks = BpeRanks.parse(`! 0 ${b64("x")}\n! 5 ${b64("yz")}`);
  assert.deepEqual([...ranks.tokenBytes(5)], [...enc.encode("yz")]);
  assert.equal(ranks.tokenLength(5), 2);
  assert.equal(ranks.has(0), true);
  assert.equal(ranks.has(3), false);
  assert.equal(ranks.has(6), false);
  assert.equal(ranks.has(-1), false);
  assert.equal(ranks.has(1.5), false);
  assert.throws(() => ranks.tokenBytes(3), RangeError);
  const out = new Uint8Array(4);
  assert.equal(ranks.copyToken(5, out, 1), 3);
  assert.deepEqual([...out], [0, 121, 122, 0]);
});

Deno.test("BpeRanks lets the later rank win when the same bytes appear twice", () => {
  const ranks = BpeRanks.parse(`! 0 ${b64("q")} ${b64("q")}`);
  assert.equal(rankOfText(ranks, "q"), 1);
  assert.equal(ranks.has(0), true);
  assert.equal(ranks.size, 1);
});

Deno.test("BpeRanks handles every padding length and all 256 byte values", () => {
  const tokens: string[] = [];
  for (let b = 0; b < 256; b++) tokens.push(btoa(String.fromCharCode(b)));
  tokens.push(btoa("\x00\xff"), btoa("\x01\x02\x03"), btoa("\xfe\xfd\xfc\xfb"));
  const ranks = BpeRanks.parse(`! 0 ${tokens.join(" ")}`);
  for (let b = 0; b < 256; b++) assert.equal(ranks.rankOf(Uint8Array.of(b), 0, 1), b);
  assert.equal(ranks.rankOf(Uint8Array.of(0, 255), 0, 2), 256);
  assert.equal(ranks.rankOf(Uint8Array.of(1, 2, 3), 0, 3), 257);
  assert.equal(ranks.rankOf(Uint8Array.of(254, 253, 252, 251), 0, 4), 258);
});

Deno.test("BpeRanks rejects text that is not base64 rank data", () => {
  assert.throws(() => BpeRanks.parse("! x YQ=="), /no numeric offset/);
  assert.throws(() => BpeRanks.parse("! 0 Y*=="), /not padded base64/);
  assert.throws(() => BpeRanks.parse("! 0 YQ"), /not padded base64/);
  assert.throws(() => BpeRanks.parse("! 0 YQ=a"), /not padded base64/);
});

Deno.test("BpeRanks accepts empty input and blank lines", () => {
  assert.equal(BpeRanks.parse("").size, 0);
  assert.equal(BpeRanks.parse(`\n\n! 0 ${b64("a")}\r\n\n`).size, 1);
});

Deno.test("withTokens adds tokens to a table, by copying its slots or re-inserting them when they would fill up", () => {
  const enc = new TextEncoder();
  const table = (words: readonly string[], firstRank: number) => {
    const parts = words.map((w) => enc.encode(w));
    const starts = new Int32Array(parts.length + 1);
    for (let i = 0; i < parts.length; i++) starts[i + 1] = starts[i] + parts[i].length;
    const bytes = new Uint8Array(starts[parts.length]);
    parts.forEach((p, i) => bytes.set(p, starts[i]));
    return { bytes, starts, ranks: Int32Array.from(words, (_, i) => firstRank + i) };
  };
  const rankOf = (r: BpeRanks, w: string) => {
    const b = enc.encode(w);
    return r.rankOf(b, 0, b.length);
  };
  const base = table(["a", "b", "ab"], 0);
  const small = BpeRanks.fromTokens(base.bytes, base.starts, base.ranks);
  for (const extraCount of [2, 40]) { // 2 fit the 16 slots; 40 force a larger table
    const words = Array.from({ length: extraCount }, (_, i) => `x${i}`);
    const extra = table(words, 10);
    const grown = small.withTokens(extra.bytes, extra.starts, extra.ranks);
    assert.equal(grown.size, 3 + extraCount);
    assert.equal(rankOf(grown, "ab"), 2);
    assert.equal(rankOf(grown, "b"), 1);
    words.forEach((w, i) => assert.equal(rankOf(grown, w), 10 + i));
    assert.deepEqual([...grown.tokenBytes(10 + extraCount - 1)], [...enc.encode(words.at(-1)!)]);
    assert.equal(rankOf(grown, "zz"), NO_RANK);
    assert.equal(rankOf(small, "x0"), NO_RANK); // the original table is unchanged
  }
});
