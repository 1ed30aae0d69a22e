import assert from "node:assert/strict";
import { loadHfTokenizer } from "../../src/tokenizer/hf_tokenizer.ts";
import { HfBpeTokenizer } from "../../src/tokenizer/hf_bpe_tokenizer.ts";
import { HfTokenizer } from "../../src/tokenizer/hf_library_tokenizer.ts";
import type { HfBpeTables } from "../../src/tokenizer/hf_bpe_tables.ts";
import { LongRunFinder, longRunRules } from "../../src/tokenizer/hf_long_runs.ts";
import { O200K_PATTERN } from "../../src/tokenizer/long_run_scanner.ts";

const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;
/** Split(Llama 3 style, `\p{N}` digits) + ByteLevel, and ByteLevel's own GPT-2 regex. */
const FIXTURE_NAMES = ["tiny_split_bpe", "tiny_bpe"];

const LLAMA3 = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|" +
  "\\p{N}{1,3}| ?[^\\p{White_Space}\\p{L}\\p{N}]+[\\r\\n]*|\\p{White_Space}*[\\r\\n]+|" +
  "\\p{White_Space}+(?!\\P{White_Space})|\\p{White_Space}+";

async function tablesOf(name: string): Promise<HfBpeTables> {
  const tok = await loadHfTokenizer(`${FIXTURES}${name}/tokenizer.json`);
  assert.ok(tok instanceof HfBpeTokenizer, `${name} runs on the fast path`);
  return (tok.share() as { tables: HfBpeTables }).tables;
}

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (x + 0x6d2b79f5) >>> 0;
    let t = x;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Character groups: each text is runs drawn from them (so that runs of every class and their borders occur). */
const GROUPS: readonly string[][] = [
  [..."中文字符測試漢語"], // CJK letters (Lo)
  [..."กขคงจฉชซญดตถทนบปผพฟมยรลวสหอะาเแโ"], // Thai letters
  ["\u0e31", "\u0e34", "\u0e48", "\u0301", "\u0903"], // marks (not \p{L}: symbols to these patterns)
  [..."abcxyzABCXYZéÉß"], // Latin letters
  ["s", "t", "re", "ve", "m", "ll", "d", "S", "RE", "Ll"], // contraction letters
  ["'"], // apostrophes
  [..."0123456789", "٣", "٤", "\u{1d7ce}", "\u{1d7cf}", "Ⅻ"], // digits of several scripts, astral ones
  [..."!?#(/-*.,;", "\u3001", "\u3002", "→", "€"], // symbols and punctuation
  ["\u{1f600}", "\u{1f680}", "\u{1d11e}"], // astral symbols
  ["\u{20000}", "\u{1d400}", "\u{10400}", "\u{2a6d6}"], // astral letters
  ["\ud800", "\udc00", "\udbff"], // lone surrogates
  [" ", " ", "\t", "\u3000", "\u00a0", "\ufeff", "\u0085", "\u2028"], // spaces of several kinds
  ["\n", "\r", "\r\n", "\n\n"], // line breaks
];

function randomText(r: () => number): string {
  const parts: string[] = [];
  const runs = 1 + Math.floor(r() * 12);
  for (let k = 0; k < runs; k++) {
    const group = GROUPS[Math.floor(r() * GROUPS.length)];
    // Mostly short runs, some longer than the test stride (8) many times over.
    const length = r() < 0.5 ? 1 + Math.floor(r() * 4) : 1 + Math.floor(r() * 60);
    for (let i = 0; i < length; i++) parts.push(group[Math.floor(r() * group.length)]);
  }
  // A two-byte string (runs are looked for only there), also where the draw holds no two-byte character.
  return (r() < 0.8 ? "中" : "") + parts.join("");
}

Deno.test("longRunRules accepts the GPT-2, Llama 3 and Qwen 2 patterns and refuses others", async () => {
  for (const name of FIXTURE_NAMES) {
    const meta = (await tablesOf(name)).meta;
    assert.ok(longRunRules(meta.regexSource, meta.regexFlags) !== undefined, name);
  }
  const llama3 = LLAMA3;
  assert.deepEqual(longRunRules(llama3, "gu"), { classes: 5, tails: 4, space: "\\p{White_Space}" });
  // o200k's letter alternatives backtrack; other spellings, flags, or mixed whitespace classes are refused.
  assert.equal(longRunRules(O200K_PATTERN, "gu"), undefined);
  assert.equal(longRunRules("\\p{L}+|\\P{L}+", "gu"), undefined);
  assert.equal(longRunRules(llama3, "gui"), undefined);
  assert.equal(longRunRules(llama3.replace("\\p{White_Space}+(?!", "\\s+(?!"), "gu"), undefined);
  assert.equal(longRunRules(llama3.replace("\\p{L}+|", "\\p{L}+(?=x)|"), "gu"), undefined);
});

Deno.test("LongRunFinder finds runs of each class in two-byte strings only", async () => {
  const meta = (await tablesOf("tiny_split_bpe")).meta;
  const finder = new LongRunFinder(longRunRules(meta.regexSource, meta.regexFlags)!, 8);
  const cjk = "中".repeat(20);
  assert.deepEqual(finder.find("ab " + cjk + "!?" + "#".repeat(30) + " 1"), [3, 23, 1, 23, 55, 4]);
  assert.deepEqual(finder.find("\u{20000}".repeat(10) + "x"), [0, 21, 1]); // astral letters, sampled mid-pair
  assert.deepEqual(finder.find("a".repeat(40)), []); // one-byte: V8's loops keep no backtrack entries there
  assert.deepEqual(finder.find("中" + "1".repeat(40)), []); // digits are no run class of this pattern
});

Deno.test("HfBpeTokenizer splits long runs exactly as its pattern does (seeded: GPT-2, Qwen 2, Llama 3)", async () => {
  for (const name of [...FIXTURE_NAMES, "llama3"]) {
    const fixture = await tablesOf(name === "llama3" ? "tiny_split_bpe" : name);
    const tables = name === "llama3" ? { ...fixture, meta: { ...fixture.meta, regexSource: LLAMA3 } } : fixture;
    const runs = new HfBpeTokenizer(name, tables, undefined, { longRunStride: 8 });
    const plain = new HfBpeTokenizer(name, tables, undefined, { longRuns: false });
    const r = rng(name.length * 7919);
    let withRuns = 0;
    for (let i = 0; i < 3000; i++) {
      const text = randomText(r);
      const expected = plain.encode(text);
      assert.deepEqual(runs.encode(text), expected, `${name} ${JSON.stringify(text)}`);
      assert.equal(runs.count(text), expected.length);
      if (runs.encodeWithPieceStarts !== undefined) {
        assert.deepEqual(runs.encodeWithPieceStarts(text), plain.encodeWithPieceStarts!(text), JSON.stringify(text));
      }
      if (new LongRunFinder(longRunRules(tables.meta.regexSource, tables.meta.regexFlags)!, 8).find(text).length) {
        withRuns++;
      }
    }
    assert.ok(withRuns > 1000, `${name}: ${withRuns} texts with runs`);
  }
});

Deno.test("HfBpeTokenizer's long runs match @huggingface/tokenizers", async () => {
  for (const name of FIXTURE_NAMES) {
    const path = `${FIXTURES}${name}/tokenizer.json`;
    const fast = await loadHfTokenizer(path);
    const library = new HfTokenizer(name, JSON.parse(await Deno.readTextFile(path)));
    const r = rng(99);
    const letters = Array.from({ length: 9000 }, () => "abcdefghijklmnopqrstuvwxyz"[Math.floor(r() * 26)]).join("");
    const cjk = Array.from({ length: 9000 }, () => String.fromCharCode(0x4e00 + Math.floor(r() * 20000))).join("");
    const symbols = Array.from({ length: 9000 }, () => "!?#(/\u3001"[Math.floor(r() * 6)]).join("");
    const digits = Array.from({ length: 9000 }, () => "0123456789\u{1d7ce}"[Math.floor(r() * 10)]).join("");
    for (
      const text of [
        cjk,
        "中" + letters + "'s",
        " " + cjk + "'ll" + symbols + "\r\n\r\n" + letters,
        "中 " + digits + " " + symbols + "x",
        "\u{1f600}" + cjk + "\u{20000}".repeat(5000) + symbols,
      ]
    ) {
      assert.deepEqual(fast.encode(text), library.encode(text), `${name} ${text.slice(0, 20)}`);
    }
  }
});

Deno.test("HfBpeTokenizer counts 4 Mi characters without spaces in a two-byte string", async () => {
  for (const name of FIXTURE_NAMES) {
    const tok = await loadHfTokenizer(`${FIXTURES}${name}/tokenizer.json`);
    const r = rng(5);
    const n = 4 << 20;
    const cjk = Array.from({ length: n }, () => String.fromCharCode(0x4e00 + Math.floor(r() * 20000))).join("");
    // The fixtures have no merges inside an ideograph's bytes: three tokens each, a figure the pieces cannot change.
    assert.equal(tok.count(cjk.slice(0, 1000)), 3000);
    assert.equal(tok.count(cjk), 3 * n, name);
    const symbols = "中" + "!?#(".repeat(n / 4);
    assert.equal(tok.count(symbols), tok.count("中") + tok.count("!?#(".repeat(64)) * (n / 256), name);
  }
});

Deno.test("HfBpeTokenizer reports a pattern outside the long-run families that overflows on a long run", async () => {
  const tables = await tablesOf("tiny_split_bpe");
  const source = "\\p{L}+|\\P{L}+";
  const tok = new HfBpeTokenizer("custom", { ...tables, meta: { ...tables.meta, regexSource: source } });
  assert.equal(longRunRules(source, "gu"), undefined);
  assert.equal(tok.count("中文字符"), 12);
  const text = "中".repeat(8 << 20);
  assert.throws(() => tok.count(text), /custom: the tokenizer\.json pre-tokenizer pattern ran out of stack/);
});

Deno.test("HfTokenizer (the library's path) reports a long run its pattern overflows on", async () => {
  const path = `${FIXTURES}tiny_split_bpe/tokenizer.json`;
  const library = new HfTokenizer("library", JSON.parse(await Deno.readTextFile(path)));
  assert.equal(library.count("中文字符"), 12);
  assert.throws(() => library.count("中".repeat(8 << 20)), /library: @huggingface\/tokenizers ran out of stack/);
});
