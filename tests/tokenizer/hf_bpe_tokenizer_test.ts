import assert from "node:assert/strict";
import { loadHfTokenizer } from "../../src/tokenizer/hf_tokenizer.ts";
import { FAST_BPE_ENGINE, HfBpeTokenizer } from "../../src/tokenizer/hf_bpe_tokenizer.ts";
import { parityCorpus } from "../fixtures/tokenizer_parity_corpus.ts";

const FIXTURE_DIR = new URL("../fixtures/tiny_split_bpe/", import.meta.url).pathname;
const TINY_BPE_DIR = new URL("../fixtures/tiny_bpe/", import.meta.url).pathname;
const ADDED = ["<|im_end|>", "<think>", "[CAFÉ]", "[CAFE\u0301]", "<mask>"];

/** A temporary directory holding a variant of the fixture (`edit` rewrites its parsed tokenizer.json). */
async function variant(edit: (json: Record<string, unknown>) => void): Promise<string> {
  const dir = await Deno.makeTempDir();
  const json = JSON.parse(await Deno.readTextFile(`${FIXTURE_DIR}tokenizer.json`));
  edit(json);
  await Deno.writeTextFile(`${dir}/tokenizer.json`, JSON.stringify(json));
  return dir;
}

// Ids worked out by hand from tests/fixtures/tiny_split_bpe/generate.ts: bytes are ids 0-255; merges in order
// Ġt 256, he 257, Ġthe 258, ll 259, hell 260, hello 261, é 262, 's 263; "ab" 264 has no merge.
const EXPECTED: readonly [string, number[]][] = [
  ["hello", [261]], // he (rank 1) and ll (3) first, then hell, hello
  [" the", [258]],
  [" the hello", [258, 32, 261]], // no merge joins Ġ with h
  ["ab", [97, 98]], // in the vocabulary, but no merge makes it
  ["é", [262]],
  ["e\u0301", [262]], // NFC composes it first
  ["123", [49, 50, 51]], // \p{N} takes one digit
  ["it's", [105, 116, 263]],
  ["IT'S", [73, 84, 39, 83]], // (?i:'s) splits it off; no merge for ' S
  ["  \n", [32, 32, 10]], // one piece: \s*[\r\n]+
  ["x<|im_end|>y", [120, 300, 121]],
  ["<think>hello", [301, 261]],
  ["a <mask> b", [97, 303, 98]], // lstrip/rstrip eat the spaces
  ["[CAFE\u0301]", [302]], // a normalized added token matches after NFC
  ["", []],
];

Deno.test("HfBpeTokenizer encodes the fixture as worked out by hand, from full tables and chained merges", async () => {
  for (const quickStart of [false, true]) {
    const tok = await loadHfTokenizer(FIXTURE_DIR, { cacheDir: null, quickStart });
    assert.ok(tok instanceof HfBpeTokenizer);
    assert.equal(tok.engine, FAST_BPE_ENGINE);
    for (const [text, ids] of EXPECTED) {
      assert.deepEqual(tok.encode(text), ids, `${quickStart}: ${JSON.stringify(text)}`);
      assert.equal(tok.count(text), ids.length, JSON.stringify(text));
    }
    assert.equal(tok.decode([258, 32, 261, 300, 262]), " the hello<|im_end|>é");
  }
});

Deno.test("HfBpeTokenizer reads merges written as 'a b' strings the same as pairs", async () => {
  const dir = await variant((json) => {
    const model = json.model as { merges: [string, string][] };
    model.merges = model.merges.map(([a, b]) => `${a} ${b}`) as never;
  });
  try {
    const tok = await loadHfTokenizer(dir, { cacheDir: null });
    assert.equal(tok.engine, FAST_BPE_ENGINE);
    for (const [text, ids] of EXPECTED) assert.deepEqual(tok.encode(text), ids, JSON.stringify(text));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HfBpeTokenizer with ignore_merges emits a piece that is a token whole", async () => {
  const dir = await variant((json) => (json.model as Record<string, unknown>).ignore_merges = true);
  try {
    const tok = await loadHfTokenizer(dir, { cacheDir: null });
    assert.deepEqual(tok.encode("ab"), [264]);
    assert.deepEqual(tok.encode("hello"), [261]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HfBpeTokenizer gives @huggingface/tokenizers' ids on a varied corpus", async () => {
  const texts = parityCorpus(21, 1500, ADDED);
  for (const dir of [FIXTURE_DIR, TINY_BPE_DIR]) {
    const fast = await loadHfTokenizer(dir, { cacheDir: null });
    const quick = await loadHfTokenizer(dir, { cacheDir: null, quickStart: true });
    const library = await loadHfTokenizer(dir, { forceLibrary: true });
    assert.equal(fast.engine, FAST_BPE_ENGINE);
    assert.match(library.engine ?? "", /^@huggingface\/tokenizers/);
    let tokens = 0;
    for (const text of texts) {
      const expected = library.encode(text);
      assert.deepEqual(fast.encode(text), expected, `${dir}: ${JSON.stringify(text)}`);
      assert.deepEqual(quick.encode(text), expected, `${dir} (chained merges): ${JSON.stringify(text)}`);
      assert.equal(fast.count(text), expected.length);
      if (expected.length > 0) assert.equal(fast.decode(expected), library.decode(expected));
      tokens += expected.length;
    }
    assert.ok(tokens > 20_000, `only ${tokens} tokens compared`);
  }
});

Deno.test("HfBpeTokenizer's piece boundaries: every window between two of them encodes to exactly its ids", async () => {
  const text = parityCorpus(5, 400, []).filter((t) => t.normalize("NFC") === t).join(" ");
  for (const dir of [FIXTURE_DIR, TINY_BPE_DIR]) {
    for (const quickStart of [false, true]) {
      const tok = await loadHfTokenizer(dir, { cacheDir: null, quickStart });
      const pieces = tok.encodeWithPieceStarts?.(text);
      assert.ok(pieces !== undefined, `${dir} offers piece boundaries`);
      assert.deepEqual(pieces.ids, tok.encode(text));
      const at = [...pieces.boundary.keys()].filter((i) => pieces.boundary[i] === 1);
      assert.ok(at.length > pieces.ids.length / 10, `${dir}: ${at.length} boundaries for ${pieces.ids.length} ids`);
      let s = 7;
      for (let k = 0; k < 300; k++) {
        s = (Math.imul(s, 1103515245) + 12345) >>> 0;
        const i = at[s % at.length];
        const j = at[Math.min(at.length - 1, at.indexOf(i) + 1 + (s >>> 8) % 40)];
        if (j <= i) continue;
        const slice: number[] = pieces.ids.slice(i, j);
        assert.deepEqual(tok.encode(tok.decode(slice)), slice, `${dir}: window [${i}, ${j})`);
      }
    }
  }
});

Deno.test("HfBpeTokenizer's piece boundaries hold in whitespace runs the pattern cut in two", async () => {
  // `\s+(?!\S)` leaves a run's last space to the next piece; a window ending there re-encodes the run whole.
  // Whitespace merges, so that a run split in two pieces encodes differently from the run whole.
  const dir = await variant((json) => {
    const model = json.model as { vocab: Record<string, number>; merges: [string, string][] };
    model.vocab["ĠĠ"] = 500;
    model.vocab["ĉĉ"] = 501;
    model.merges.push(["Ġ", "Ġ"], ["ĉ", "ĉ"]);
  });
  try {
    const tok = await loadHfTokenizer(dir, { cacheDir: null });
    const text = "a\t\t5 b  c\n\n  d   \t e\t\t\t!  9 x    y";
    const pieces = tok.encodeWithPieceStarts!(text);
    const at = [...pieces.boundary.keys()].filter((i) => pieces.boundary[i] === 1);
    assert.ok(at.length > 10);
    for (const i of at) {
      for (const j of at) {
        if (j <= i) continue;
        const slice: number[] = pieces.ids.slice(i, j);
        assert.deepEqual(tok.encode(tok.decode(slice)), slice, JSON.stringify(tok.decode(slice)));
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HfBpeTokenizer offers no piece boundaries for a text with an added token or not in normal form", async () => {
  const tok = await loadHfTokenizer(FIXTURE_DIR, { cacheDir: null });
  for (const text of ["hello<|im_end|> the", "cafe\u0301 hello"]) {
    const pieces = tok.encodeWithPieceStarts!(text);
    assert.deepEqual(pieces.ids, tok.encode(text));
    assert.ok(pieces.boundary.every((b) => b === 0), JSON.stringify(text));
  }
});

Deno.test("HfBpeTokenizer's tables are cached: a second load reads them, a damaged file is rebuilt", async () => {
  const cacheDir = await Deno.makeTempDir();
  try {
    const first = await loadHfTokenizer(FIXTURE_DIR, { cacheDir, awaitCacheWrite: true });
    const files = [...Deno.readDirSync(cacheDir)].map((e) => e.name);
    assert.equal(files.length, 1);
    assert.match(files[0], /^hf-bpe-1-[0-9a-f]{16}\.bin$/);
    const path = `${cacheDir}/${files[0]}`;
    const written = Deno.statSync(path).ino;
    const second = await loadHfTokenizer(FIXTURE_DIR, { cacheDir, awaitCacheWrite: true });
    assert.equal(Deno.statSync(path).ino, written, "a load that reads the cache writes nothing");
    for (const [text, ids] of EXPECTED) assert.deepEqual(second.encode(text), ids);
    assert.deepEqual(second.encode("x<|im_end|>y"), first.encode("x<|im_end|>y"));
    const bytes = await Deno.readFile(path);
    bytes[bytes.length - 1] ^= 0xff;
    await Deno.writeFile(path, bytes);
    const third = await loadHfTokenizer(FIXTURE_DIR, { cacheDir, awaitCacheWrite: true });
    assert.notEqual(Deno.statSync(path).ino, written, "a damaged cache is built and written anew");
    for (const [text, ids] of EXPECTED) assert.deepEqual(third.encode(text), ids);
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("a quick first load writes no table cache; a full load writes it and a quick one then reads it", async () => {
  const cacheDir = await Deno.makeTempDir();
  try {
    await loadHfTokenizer(FIXTURE_DIR, { cacheDir, quickStart: true });
    assert.deepEqual([...Deno.readDirSync(cacheDir)], [], "chained merges are never cached");
    await loadHfTokenizer(FIXTURE_DIR, { cacheDir, awaitCacheWrite: true });
    assert.equal([...Deno.readDirSync(cacheDir)].length, 1);
    const cached = await loadHfTokenizer(FIXTURE_DIR, { cacheDir, quickStart: true });
    for (const [text, ids] of EXPECTED) assert.deepEqual(cached.encode(text), ids);
    // persist() writes the full tables of a quick load, and nothing when the cache is off.
    await Deno.remove(cacheDir, { recursive: true });
    await Deno.mkdir(cacheDir);
    await (await loadHfTokenizer(FIXTURE_DIR, { cacheDir, quickStart: true })).persist!();
    assert.equal([...Deno.readDirSync(cacheDir)].length, 1);
    const off = await loadHfTokenizer(FIXTURE_DIR, { cacheDir: null, quickStart: true });
    await off.persist!();
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("merges that join outside the vocabulary load the full tables even for a quick start", async () => {
  // A merge whose joined string is no token: the full tables give it a symbol of its own, chains cannot.
  const dir = await variant((json) => {
    const model = json.model as { merges: [string, string][] };
    model.merges.push(["a", "b"], ["ab", "c"]);
    const vocab = (json.model as { vocab: Record<string, number> }).vocab;
    delete vocab["ab"];
    vocab["abc"] = 400;
  });
  try {
    const quick = await loadHfTokenizer(dir, { cacheDir: null, quickStart: true });
    const library = await loadHfTokenizer(dir, { forceLibrary: true });
    for (const text of ["abc", "xabcx", "ab", "abcabc"]) assert.deepEqual(quick.encode(text), library.encode(text));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tokenizer.json shapes outside byte-level BPE run on @huggingface/tokenizers and say why", async () => {
  const dir = await variant((json) => (json.model as Record<string, unknown>).byte_fallback = true);
  try {
    const tok = await loadHfTokenizer(dir, { cacheDir: null });
    assert.ok(!(tok instanceof HfBpeTokenizer));
    assert.equal(
      tok.engine,
      "@huggingface/tokenizers (not the byte-level BPE fast path: a BPE model with byte_fallback)",
    );
    assert.deepEqual(tok.encode("hello"), [261]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HfBpeTokenizer merges long pieces in windows with @huggingface/tokenizers' ids", async () => {
  let random = "";
  for (let i = 0, x = 7; i < 12_000; i++) random += "helotsaé"[(x = (x * 1103515245 + 12345) & 0x7fffffff) % 8];
  const texts = ["hello".repeat(3000), "a".repeat(10_000), " ".repeat(10_000), "é".repeat(6000), random, " " + random];
  for (const dir of [FIXTURE_DIR, TINY_BPE_DIR]) {
    const fast = await loadHfTokenizer(dir, { cacheDir: null });
    const quick = await loadHfTokenizer(dir, { cacheDir: null, quickStart: true });
    const library = await loadHfTokenizer(dir, { forceLibrary: true });
    for (const text of texts) {
      const expected = library.encode(text);
      assert.deepEqual(fast.encode(text), expected, `${dir}: ${JSON.stringify(text.slice(0, 12))}…`);
      assert.deepEqual(quick.encode(text), expected, `${dir} (chained merges): ${JSON.stringify(text.slice(0, 12))}…`);
    }
    assert.equal((fast as HfBpeTokenizer).longPieces.handedBack, 0);
    assert.ok((fast as HfBpeTokenizer).longPieces.windowed >= 4, JSON.stringify((fast as HfBpeTokenizer).longPieces));
  }
});
