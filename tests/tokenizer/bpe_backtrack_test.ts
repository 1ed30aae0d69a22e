/**
 * The linear search of bpe_backtrack.ts against the exact merge, on seeded random text without spaces: CJK,
 * letters, mixed scripts, digits, emoji, raw bytes; short and long; o200k_base and cl100k_base.
 */
import assert from "node:assert/strict";
import o200k from "js-tiktoken/ranks/o200k_base";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import { Tiktoken } from "js-tiktoken/lite";
import { BpeRanks, NO_RANK } from "../../src/tokenizer/bpe_ranks.ts";
import { BacktrackMerger } from "../../src/tokenizer/bpe_backtrack.ts";
import { BpeTokenizer } from "../../src/tokenizer/bpe_tokenizer.ts";
import { PartList } from "../../src/tokenizer/long_piece.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";

const encodings = [
  { name: "o200k_base", data: o200k, ranks: BpeRanks.parse(o200k.bpe_ranks) },
  { name: "cl100k_base", data: cl100k, ranks: BpeRanks.parse(cl100k.bpe_ranks) },
];

/** The merge by definition: repeatedly join the lowest-ranked adjacent pair (leftmost among equals). */
function referenceMerge(ranks: BpeRanks, bytes: Uint8Array): number[] {
  const parts: number[] = [];
  for (let i = 0; i <= bytes.length; i++) parts.push(i);
  for (;;) {
    let best = -1;
    let bestRank = Infinity;
    for (let k = 0; k + 2 < parts.length; k++) {
      const r = ranks.rankOf(bytes, parts[k], parts[k + 2]);
      if (r !== NO_RANK && r < bestRank) {
        bestRank = r;
        best = k;
      }
    }
    if (best < 0) break;
    parts.splice(best + 1, 1);
  }
  const out: number[] = [];
  for (let k = 0; k + 1 < parts.length; k++) out.push(ranks.rankOf(bytes, parts[k], parts[k + 1]));
  return out;
}

const ALPHABETS: Record<string, string> = {
  cjk:
    "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现",
  cjkRare:
    "丁丂七丄丅丆万丈三上下丌不与丏丐丑丒专且丕世丗丘丙业丛东丝丞丟丠両丢丣两严並丧丨丩个丫丬中丮丯丰丱串丳临丵丶丷丸丹为主丼丽举丿",
  kana: "あいうえおかきくけこさしすせそアイウエオカキクケコーッャュョ",
  hangul: "가나다라마바사아자차카타파하한국어를은는이가",
  letters: "abcdefghijklmnopqrstuvwxyz",
  mixedCase: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
  vowels: "aeiouy",
  digits: "0123456789",
  cyrillicGreek: "абвгдежзийклмнопрстуфхцчшщъыьэюяαβγδεζηθικλμνξοπρστυφχψω",
  accents: "éèàçñüöäßøåœ\u0301\u0300",
  emoji: "😀😂🤔👍🏽🎉❤️🔥✨🚀🇯🇵",
  mixed: "a中1😀bé語2ーк가!",
  symbols: "=-_*#~^|/\\.,:;+<>",
};

/** `bytes[from, to)` through the merger: its ids and part ends, or undefined when it gave up. */
function search(merger: BacktrackMerger, bytes: Uint8Array, from = 0, to = bytes.length) {
  const out = new PartList();
  if (!merger.mergeRange(bytes, from, to, out)) return undefined;
  return { ids: [...out.syms.subarray(0, out.length)], ends: [...out.ends.subarray(0, out.length)] };
}

function randomText(rng: SeededRandom, alphabet: string, length: number): string {
  const chars = [...alphabet];
  let text = "";
  for (let i = 0; i < length; i++) text += chars[rng.int(chars.length)];
  return text;
}

Deno.test("BacktrackMerger gives exactly the merge's tokens on random text without spaces", () => {
  const rng = new SeededRandom(20261129);
  const utf8 = new TextEncoder();
  for (const { name, ranks } of encodings) {
    let merger = new BacktrackMerger(ranks);
    let checked = 0;
    let composed = 0;
    let searched = 0;
    for (const [label, alphabet] of Object.entries(ALPHABETS)) {
      // a fresh merger per alphabet, so that each starts by trying to compose characters' tokens
      composed += merger.composed;
      searched += merger.merged;
      assert.equal(merger.gaveUp, 0);
      merger = new BacktrackMerger(ranks);
      for (const length of [1, 2, 3, 5, 8, 13, 40, 150, 600]) {
        for (let trial = 0; trial < 3; trial++) {
          const bytes = utf8.encode(randomText(rng, alphabet, length));
          const got = search(merger, bytes);
          assert.ok(got, `${name} ${label} ${length}: gave up`);
          assert.deepEqual(got.ids, referenceMerge(ranks, bytes), `${name} ${label} ${length}`);
          assert.equal(got.ends[got.ends.length - 1], bytes.length);
          checked++;
        }
      }
    }
    // raw bytes (not UTF-8), and a stretch in the middle of a buffer
    for (let trial = 0; trial < 60; trial++) {
      const bytes = new Uint8Array(1 + rng.int(200)).map(() => rng.int(256));
      assert.deepEqual(search(merger, bytes)?.ids, referenceMerge(ranks, bytes), `${name} bytes ${bytes.join(",")}`);
      const from = rng.int(bytes.length);
      const to = from + rng.int(bytes.length - from + 1);
      const part = search(merger, bytes, from, to);
      assert.deepEqual(part?.ids, referenceMerge(ranks, bytes.slice(from, to)));
      if (to > from) assert.equal(part?.ends[part.ends.length - 1], to);
      checked++;
    }
    assert.equal(merger.gaveUp, 0);
    assert.ok(checked > 400);
    // both ways were taken: characters' own tokens composed, and the search
    assert.ok(composed >= 8, `${name}: composed ${composed}`);
    assert.ok(searched > 300, `${name}: searched ${searched}`);
  }
});

Deno.test("BpeTokenizer counts long text without spaces exactly as with the heap merge and as tiktoken", () => {
  const rng = new SeededRandom(1129);
  for (const { name, data, ranks } of encodings) {
    const heap = new BpeTokenizer({ name, ranks, pattern: data.pat_str, memoSize: 0, backtrack: false });
    const whole = new BpeTokenizer({ name, ranks, pattern: data.pat_str, memoSize: 0, longPieceWindow: 0 });
    const fast = [64, 300, 4096].map((w) =>
      new BpeTokenizer({ name: `${name} window ${w}`, ranks, pattern: data.pat_str, memoSize: 0, longPieceWindow: w })
    );
    for (const [label, alphabet] of Object.entries(ALPHABETS)) {
      for (const length of [200, 1500, 9000]) {
        const text = randomText(rng, alphabet, length);
        const want = heap.encode(text);
        assert.deepEqual(whole.encode(text), want, `${name} ${label} ${length}: whole`);
        for (const t of fast) {
          assert.deepEqual(t.encode(text), want, `${t.name} ${label} ${length}`);
          assert.equal(t.count(text), want.length, `${t.name} ${label} ${length}: count`);
        }
      }
    }
    // long pieces went through the search
    assert.ok(fast[2].longPieces.windowed >= Object.keys(ALPHABETS).length / 2, JSON.stringify(fast[2].longPieces));
    // and against tiktoken itself for a few (its merge is quadratic in a piece's length)
    const oracle = new Tiktoken(data);
    for (const alphabet of [ALPHABETS.cjk, ALPHABETS.letters, ALPHABETS.mixed]) {
      const text = randomText(rng, alphabet, 700);
      assert.deepEqual(fast[0].encode(text), oracle.encode(text, [], []), `${name} ${text.slice(0, 20)}`);
    }
  }
});
