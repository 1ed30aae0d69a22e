/**
 * Our o200k_base tokenizer against js-tiktoken (the oracle, built once: it takes about a second).
 */
import assert from "node:assert/strict";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";
import { BpeRanks } from "../../src/tokenizer/bpe_ranks.ts";
import { BpeTokenizer, HEAP_MERGE_THRESHOLD, utf8Length } from "../../src/tokenizer/bpe_tokenizer.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { DEFAULT_CORPUS } from "../../src/dataset/default_corpus.ts";

const oracle = new Tiktoken(o200k);
const tokenizer = await loadBuiltinTokenizer();

/** The oracle with special-token text treated as plain text, as our contract requires. */
function expected(text: string): number[] {
  return oracle.encode(text, [], []);
}

function assertMatchesOracle(text: string, tok = tokenizer): void {
  const ids = tok.encode(text);
  assert.deepEqual(ids, expected(text), `encode(${JSON.stringify(text.slice(0, 80))})`);
  assert.equal(tok.count(text), ids.length, `count(${JSON.stringify(text.slice(0, 80))})`);
}

const SAMPLES: Record<string, readonly string[]> = {
  prose: [
    "The quick brown fox jumps over the lazy dog.",
    "It was a bright cold day in April, and the clocks were striking thirteen.",
    "Hello, World! HELLO world? hello—world… “quoted” ‘single’ «guillemets»",
    "CamelCaseWords and snake_case_words and SCREAMING_CASE and MiXeD cAsE",
    "",
    " ",
    "a",
  ],
  code: [
    "function add(a: number, b: number): number {\n  return a + b;\n}\n",
    'const x = {"key": [1, 2, 3], "nested": {"deep": true}};',
    "def f(x):\n\tif x > 0:\n\t\treturn x ** 2\n\treturn -x\n",
    "SELECT id, name FROM users WHERE age >= 18 ORDER BY name DESC LIMIT 10;",
    '#include <stdio.h>\nint main(void) { printf("%d\\n", 42); }',
    "git diff --stat HEAD~3..HEAD -- src/**/*.ts && echo $?",
    "https://example.com/path/to/page?query=1&other=two#fragment",
  ],
  numbers: [
    "1 12 123 1234 12345 123456 1234567",
    "3.14159265358979 -42 +7 1e10 0x1F 0b1010 1,000,000 99.9%",
    "٠١٢٣٤٥٦٧٨٩ ൧൨൩ ²³ ½ Ⅻ 一二三",
    "2024-01-15T10:30:00.000Z",
  ],
  whitespace: [
    "  leading spaces",
    "trailing spaces   ",
    "a  b   c    d     e",
    "line1\nline2\r\nline3\rline4",
    "\n\n\n\nmany newlines\n\n\n",
    "\t\ttabs\tand\t\tspaces  \t mixed",
    "   \n   \n\t\n",
    "nbsp\u00a0here\u2003em\u3000ideographic\u2028line\u2029para",
    " ".repeat(200),
    "x" + " ".repeat(300) + "y",
  ],
  contractions: [
    "I'm sure you're right, it's what they've said and we'll do what he'd do.",
    "DON'T SHOUT, I'LL LISTEN. YOU'RE LOUD. WE'VE HEARD. SHE'D KNOW.",
    "rock'n'roll 'quoted' o'clock ma'am y'all't've",
    "Don'T we'Re",
  ],
  punctuation: [
    "!!!???...,,,;;;:::---___===+++***&&&|||",
    "<<<>>>{{{}}}[[[]]]((()))",
    "@#$%^&*()_+-=[]{}|;':\",./<>?`~",
    "/* comment */ // another\n/// triple\n",
    "!@#$%^&*".repeat(40),
  ],
  cjk: [
    "日本語のテキストを正しくトークン化できますか？",
    "中文文本处理：你好，世界！",
    "한국어 텍스트도 테스트합니다.",
    "混合 mixed テキスト text 123 数字",
  ],
  emoji: [
    "👍 👍🏽 ❤️ 🇺🇸 🏳️‍🌈",
    "👨‍👩‍👧‍👦 family and 👩🏾‍💻 coder",
    "emoji😀in😃the😄middle",
    "🎉".repeat(50),
  ],
  combining: [
    "e\u0301 a\u0300 n\u0303 o\u0308",
    "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a\u032f\u031e\u0320\u034dA",
    "café naïve résumé Ångström",
    "\u0301\u0301 leading marks",
    "हिन्दी भाषा",
    "עברית ועוד",
    "العربية نص",
  ],
  special: [
    "<|endoftext|>",
    "before<|endoftext|>after",
    "<|endofprompt|> and <|endoftext|><|endoftext|>",
    "<|fim_prefix|> <|im_start|>user\nhi<|im_end|>",
  ],
};

for (const [kind, texts] of Object.entries(SAMPLES)) {
  Deno.test(`BpeTokenizer encodes ${kind} exactly like tiktoken`, () => {
    for (const text of texts) assertMatchesOracle(text);
  });
}

Deno.test("BpeTokenizer round-trips every sample through decode", () => {
  for (const texts of Object.values(SAMPLES)) {
    for (const text of texts) assert.equal(tokenizer.decode(tokenizer.encode(text)), text);
  }
});

Deno.test("BpeTokenizer encodes the bundled corpus exactly like tiktoken", () => {
  assertMatchesOracle(DEFAULT_CORPUS);
  assert.equal(tokenizer.decode(tokenizer.encode(DEFAULT_CORPUS)), DEFAULT_CORPUS);
});

Deno.test("BpeTokenizer never produces special token ids", () => {
  const ids = tokenizer.encode("x<|endoftext|>y<|endofprompt|>");
  assert.equal(ids.includes(199999), false);
  assert.equal(ids.includes(200018), false);
  assert.deepEqual(ids, expected("x<|endoftext|>y<|endofprompt|>"));
});

Deno.test("BpeTokenizer decodes special token ids to their text", () => {
  assert.equal(tokenizer.decode([199999]), "<|endoftext|>");
  assert.equal(tokenizer.decode([...tokenizer.encode("a"), 200018]), "a<|endofprompt|>");
});

Deno.test("BpeTokenizer decode rejects ids outside the vocabulary", () => {
  assert.throws(() => tokenizer.decode([300000]), /Token id 300000 is not in the builtin vocabulary/);
  assert.throws(() => tokenizer.decode([-1]), RangeError);
});

Deno.test("BpeTokenizer decodes split multi-byte characters to U+FFFD", () => {
  const ranks = BpeRanks.parse(o200k.bpe_ranks);
  const leadByte = ranks.rankOf(Uint8Array.of(0xf0), 0, 1); // first byte of a 4-byte UTF-8 sequence
  assert.equal(tokenizer.decode([leadByte]), "\ufffd");
  assert.equal(tokenizer.decode([...tokenizer.encode("ok "), leadByte]), "ok \ufffd");
  assert.equal(tokenizer.decode([]), "");
});

Deno.test("BpeTokenizer takes the heap merge path for long pieces and still matches tiktoken", () => {
  const rng = new SeededRandom(7);
  const letters = "abcdefghijklmnopqrstuvwxyz";
  for (let trial = 0; trial < 6; trial++) {
    const length = HEAP_MERGE_THRESHOLD + 1 + rng.int(300);
    let word = "";
    for (let i = 0; i < length; i++) word += letters[rng.int(letters.length)];
    assertMatchesOracle(word);
    assertMatchesOracle(" " + word.toUpperCase());
  }
  assertMatchesOracle("ab".repeat(150));
  assertMatchesOracle("€".repeat(100));
  assertMatchesOracle("😀".repeat(80));
  assertMatchesOracle("\u0301".repeat(300));
});

Deno.test("BpeTokenizer gives the same ids with the memo on, off and constantly cleared", async () => {
  await loadBuiltinTokenizer(); // tables are shared; build the variants from the same data
  const ranks = BpeRanks.parse(o200k.bpe_ranks);
  const variants = [
    new BpeTokenizer({ name: "off", ranks, pattern: o200k.pat_str, memoSize: 0 }),
    new BpeTokenizer({ name: "tiny", ranks, pattern: o200k.pat_str, memoSize: 3 }),
    new BpeTokenizer({ name: "short", ranks, pattern: o200k.pat_str, memoMaxPieceLength: 4 }),
    new BpeTokenizer({ name: "heap", ranks, pattern: o200k.pat_str, memoSize: 0, heapMergeThreshold: 0 }),
  ];
  const text = DEFAULT_CORPUS.slice(0, 8000) + " unbelievably unbelievably unbelievably";
  const want = expected(text);
  for (const variant of variants) {
    assert.deepEqual(variant.encode(text), want, variant.name);
    assert.deepEqual(variant.encode(text), want, `${variant.name} second pass`);
    assert.equal(variant.count(text), want.length, variant.name);
  }
  assert.equal(variants[0].memoEntries, 0);
  assert.ok(variants[1].memoEntries <= 3);
});

Deno.test("BpeTokenizer matches tiktoken on seeded random unicode strings", () => {
  const rng = new SeededRandom(20240601);
  const ranges: ReadonlyArray<readonly [number, number]> = [
    [0x20, 0x7e], // ASCII printable
    [0x20, 0x7e],
    [0x20, 0x7e],
    [0x09, 0x0d], // tabs and newlines
    [0xa0, 0x24f], // Latin-1 and Latin Extended
    [0x300, 0x36f], // combining marks
    [0x370, 0x3ff], // Greek
    [0x400, 0x4ff], // Cyrillic
    [0x600, 0x6ff], // Arabic
    [0x900, 0x97f], // Devanagari
    [0x2000, 0x206f], // general punctuation (spaces, joiners, separators)
    [0x3000, 0x30ff], // CJK punctuation, kana
    [0x4e00, 0x9fff], // CJK ideographs
    [0xac00, 0xd7a3], // Hangul
    [0xfe00, 0xfe0f], // variation selectors
    [0x1f300, 0x1faff], // emoji
    [0x1f3fb, 0x1f3ff], // skin tones
    [0x10000, 0x10ffff], // anything astral
  ];
  for (let trial = 0; trial < 400; trial++) {
    const length = 1 + rng.int(60);
    let text = "";
    for (let i = 0; i < length; i++) {
      const [lo, hi] = ranges[rng.int(ranges.length)];
      let cp = lo + rng.int(hi - lo + 1);
      if (cp >= 0xd800 && cp <= 0xdfff) cp = 0x41;
      text += String.fromCodePoint(cp);
      if (rng.next() < 0.05) text += "\u200d";
    }
    assertMatchesOracle(text);
    assert.equal(tokenizer.decode(tokenizer.encode(text)), text, `round trip of ${JSON.stringify(text)}`);
  }
});

Deno.test("BpeTokenizer heap merge agrees with the linear merge on random pieces", () => {
  const ranks = BpeRanks.parse(o200k.bpe_ranks);
  const heap = new BpeTokenizer({ name: "heap", ranks, pattern: o200k.pat_str, memoSize: 0, heapMergeThreshold: 0 });
  const linear = new BpeTokenizer({
    name: "linear",
    ranks,
    pattern: o200k.pat_str,
    memoSize: 0,
    heapMergeThreshold: 1e9,
  });
  const rng = new SeededRandom(99);
  const alphabet = "aeioustrnlxqzAEST'.,-!?  \n€é日😀";
  const chars = [...alphabet];
  for (let trial = 0; trial < 300; trial++) {
    let text = "";
    const length = 1 + rng.int(200);
    for (let i = 0; i < length; i++) text += chars[rng.int(chars.length)];
    assert.deepEqual(heap.encode(text), linear.encode(text), JSON.stringify(text));
  }
});

Deno.test("BpeTokenizer matches tiktoken on strings with lone surrogates", () => {
  for (const text of ["\ud800", "a\udc00b", "x\ud83d", "\ude00 lone low", "ok \ud83d\ude00 \ud83d"]) {
    assertMatchesOracle(text);
  }
});

Deno.test("BpeTokenizer is named builtin", () => {
  assert.equal(tokenizer.name, "builtin");
});

Deno.test("piece boundaries: every window between two boundaries re-encodes to exactly its tokens", () => {
  const text = [
    "It's 12345 o'clock;   three   spaces\tand\ttabs,\n\n  indented line\r\nCRLF  \n trailing   ",
    "Ünïcödé wörds, 漢字とかな, emoji 🎉🎉 and math ∑x² ≤ 10.5%!!  ",
    "URLs like https://example.com/a_b?c=d&e=f — dashes… 'quotes' \"double\" (parens) [brackets]",
    DEFAULT_CORPUS.slice(0, 4000),
  ].join("\n");
  const enc = tokenizer.encodeWithPieceStarts!(text);
  assert.deepEqual(enc.ids, tokenizer.encode(text));
  assert.equal(enc.boundary.length, enc.ids.length + 1);
  assert.equal(enc.boundary[0], 1);
  assert.equal(enc.boundary[enc.ids.length], 1);
  const bounds: number[] = [];
  for (let i = 0; i < enc.boundary.length; i++) if (enc.boundary[i] === 1) bounds.push(i);
  assert.ok(bounds.length > enc.ids.length / 2, "most tokens start a piece");
  const rng = new SeededRandom(5);
  for (let k = 0; k < 2000; k++) {
    let a = bounds[rng.int(bounds.length)];
    let b = bounds[rng.int(bounds.length)];
    if (a === b) continue;
    if (a > b) [a, b] = [b, a];
    const window = enc.ids.slice(a, b);
    assert.deepEqual(expected(tokenizer.decode(window)), window, `window [${a}, ${b})`);
  }
});

Deno.test("piece boundaries hold in whitespace runs the pattern cut in two (every window, exhaustively)", () => {
  // Before a digit or a symbol `\s+(?!\S)` leaves a run's last space to a piece of its own; a window ending there
  // would re-encode the run as one piece.
  const text = "a  9 b\t\t5 x   ! y \n\n  z    1";
  const enc = tokenizer.encodeWithPieceStarts!(text);
  const bounds: number[] = [];
  for (let i = 0; i < enc.boundary.length; i++) if (enc.boundary[i] === 1) bounds.push(i);
  assert.ok(bounds.length > 8);
  for (const a of bounds) {
    for (const b of bounds) {
      if (b <= a) continue;
      const slice = enc.ids.slice(a, b);
      assert.deepEqual(expected(tokenizer.decode(slice)), slice, JSON.stringify(tokenizer.decode(slice)));
    }
  }
});

Deno.test("piece boundaries are offered only for patterns whose pieces cannot depend on text outside them", async () => {
  const { boundarySafe } = await import("../../src/tokenizer/bpe_tokenizer.ts");
  assert.equal(boundarySafe(o200k.pat_str), true);
  assert.equal(boundarySafe(String.raw`[^\s]+|\s+(?!\S)|\s+`), true);
  assert.equal(boundarySafe(String.raw`\w+(?=\s)|\s+`), false); // positive lookahead
  assert.equal(boundarySafe(String.raw`(?<=a)b|\s+`), false); // lookbehind
  assert.equal(boundarySafe(String.raw`^\w+|\s+`), false); // anchor
  assert.equal(boundarySafe(String.raw`\w+\b|\s+`), false); // word boundary
  assert.equal(boundarySafe(String.raw`(a)\1|\s+`), false); // backreference
  assert.equal(boundarySafe(String.raw`\^\$|x`), true); // escaped, not anchors
  const ranks = BpeRanks.parse("x 0 YQ== Yg==\n");
  const unsafe = new BpeTokenizer({ name: "t", ranks, pattern: String.raw`^a|b` });
  assert.equal(unsafe.encodeWithPieceStarts, undefined);
});

Deno.test("piece boundaries are withheld for a text with characters the pattern drops", () => {
  const ranks = BpeRanks.parse("x 0 YQ== Yg==\n");
  const t = new BpeTokenizer({ name: "t", ranks, pattern: String.raw`a+|b+` });
  const enc = t.encodeWithPieceStarts!("aa-bb");
  assert.deepEqual(enc.ids, t.encode("aa-bb"));
  assert.deepEqual([...enc.boundary], new Array(enc.ids.length + 1).fill(0));
  assert.equal(t.encodeWithPieceStarts!("aabb").boundary[0], 1);
});

Deno.test("BpeTokenizer merges long pieces in windows with exactly the ids of merging them whole", () => {
  const ranks = BpeRanks.parse(o200k.bpe_ranks);
  const whole = new BpeTokenizer({ name: "whole", ranks, pattern: o200k.pat_str, memoSize: 0, longPieceWindow: 0 });
  const windowed = [24, 64, 300].map((w) =>
    new BpeTokenizer({ name: `window ${w}`, ranks, pattern: o200k.pat_str, memoSize: 0, longPieceWindow: w })
  );
  const rng = new SeededRandom(3405);
  const texts: string[] = [];
  for (const unit of ["a", " ", "\n", ".", "ab", "aab", "中", "€", "😀", "\u0301", "ーー", "=-", "0"]) {
    texts.push(unit.repeat(700 + rng.int(500)));
  }
  const alphabets = [
    "ab",
    "abc",
    "aeiou",
    "abcdefghijklmnopqrstuvwxyz",
    "aAbB",
    "日本語中文字",
    "가나다라",
    "éèàçñ",
    "a\u0301e\u0300",
  ];
  for (const alphabet of alphabets) {
    const chars = [...alphabet];
    for (let trial = 0; trial < 4; trial++) {
      let text = "";
      const length = 400 + rng.int(1200);
      for (let i = 0; i < length; i++) text += chars[rng.int(chars.length)];
      texts.push(text, " " + text, text.toUpperCase());
    }
  }
  // runs broken now and then by another letter
  for (let trial = 0; trial < 6; trial++) {
    let text = "";
    for (let i = 0; i < 1500; i++) text += rng.next() < 0.01 ? "bcdxyz"[rng.int(6)] : "a";
    texts.push(text);
  }
  for (const text of texts) {
    const want = whole.encode(text);
    for (const t of windowed) {
      assert.deepEqual(t.encode(text), want, `${t.name}: ${JSON.stringify(text.slice(0, 40))}…`);
    }
  }
  // small windows hand a piece back (to be merged whole) when its tokens are nearly as long as a window
  for (const t of windowed) {
    assert.ok(t.longPieces.windowed > texts.length / 2, `${t.name}: ${JSON.stringify(t.longPieces)}`);
  }
  // at the default window every long piece goes through windows
  const byDefault = new BpeTokenizer({ name: "default", ranks, pattern: o200k.pat_str, memoSize: 0 });
  const long = ["a", " ", "\n", ".", "-", "*", "ab", "中", "😀", "\u0301", "_"].map((unit) => unit.repeat(12_000));
  let random = "";
  for (let i = 0; i < 20_000; i++) random += "日本語中文字가나다라"[rng.int(10)];
  long.push(random);
  for (const text of long) {
    assert.deepEqual(byDefault.encode(text), whole.encode(text), JSON.stringify(text.slice(0, 9)));
  }
  assert.deepEqual(byDefault.longPieces, { windowed: long.length, handedBack: 0 });
  // and against tiktoken itself for a few (its merge is quadratic in a piece's length)
  for (const text of ["a".repeat(1000), " ".repeat(900), "ab".repeat(400), "中".repeat(300)]) {
    assert.deepEqual(windowed[1].encode(text), expected(text));
  }
});

Deno.test("utf8Length counts UTF-8 bytes as TextEncoder writes them, lone surrogates included", () => {
  for (const text of ["", "abc", "é", "中文", "😀", "a\ud800b", "\udc00", "x\ud83d", "\ud83d\ude00\ud83d"]) {
    assert.equal(utf8Length(text, 0, text.length), new TextEncoder().encode(text).length, JSON.stringify(text));
  }
  assert.equal(utf8Length("ab😀cd", 1, 4), new TextEncoder().encode("b😀").length);
});
