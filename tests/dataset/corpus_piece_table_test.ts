import assert from "node:assert/strict";
import { buildPieceTable, cleanCorpus, piecePool } from "../../src/dataset/corpus_piece_table.ts";
import { DEFAULT_CORPUS_PIECES } from "../../src/dataset/corpus_pieces.ts";
import { DEFAULT_CORPUS } from "../../src/dataset/default_corpus.ts";
import { hashString, SeededRandom } from "../../src/base/seeded_random.ts";
import { loadBuiltinTokenizer, O200K_CACHE_KEY } from "../../src/tokenizer/builtin_tokenizer.ts";

const tokenizer = await loadBuiltinTokenizer();
const text = cleanCorpus(DEFAULT_CORPUS);

Deno.test("the committed corpus piece table matches the corpus and the builtin tokenizer", () => {
  const rebuilt = buildPieceTable(tokenizer, text, O200K_CACHE_KEY);
  assert.deepEqual(
    DEFAULT_CORPUS_PIECES,
    rebuilt,
    "src/dataset/corpus_pieces.ts is stale: run `deno task gen-corpus-pieces`",
  );
});

Deno.test("piecePool has the tokenizer's pool size and boundaries, and boundary windows encode exactly", () => {
  const pool = piecePool(DEFAULT_CORPUS_PIECES, text, O200K_CACHE_KEY)!;
  const encoded = tokenizer.encodeWithPieceStarts!(text);
  assert.equal(pool.size, encoded.ids.length);
  assert.deepEqual(pool.boundary, encoded.boundary);
  assert.equal(pool.text(0, pool.size), text);
  const starts = [...encoded.boundary.keys()].filter((i) => encoded.boundary[i] === 1);
  const rng = new SeededRandom(5);
  for (let k = 0; k < 300; k++) {
    let a = starts[rng.int(starts.length)];
    let b = starts[rng.int(starts.length)];
    if (a > b) [a, b] = [b, a];
    const window = pool.text(a, b);
    assert.equal(window, tokenizer.decode(encoded.ids.slice(a, b)));
    assert.equal(tokenizer.count(window), b - a);
  }
});

Deno.test("piecePool refuses a table made for another text or tokenizer", () => {
  assert.equal(piecePool(DEFAULT_CORPUS_PIECES, text + " more", O200K_CACHE_KEY), undefined);
  assert.equal(piecePool(DEFAULT_CORPUS_PIECES, text.replace("a", "b"), O200K_CACHE_KEY), undefined);
  assert.equal(piecePool(DEFAULT_CORPUS_PIECES, text, "cl100k_base"), undefined);
  // A caller that knows the text skips only the hash: the pool is the same.
  const known = piecePool(DEFAULT_CORPUS_PIECES, text, O200K_CACHE_KEY, true)!;
  const checked = piecePool(DEFAULT_CORPUS_PIECES, text, O200K_CACHE_KEY)!;
  assert.equal(known.size, checked.size);
  assert.deepEqual(known.boundary, checked.boundary);
  assert.equal(known.text(0, known.size), checked.text(0, checked.size));
  assert.notEqual(hashString("ab"), hashString("ba"));
});

Deno.test("buildPieceTable round-trips long pieces (multi-byte varints) and non-ASCII text", () => {
  const custom = `${"x".repeat(300)} naïve café — 日本語のテキスト 12345678 ${"y".repeat(20_000)}\nend`;
  const table = buildPieceTable(tokenizer, custom, "k");
  const pool = piecePool(table, custom, "k")!;
  const encoded = tokenizer.encodeWithPieceStarts!(custom);
  assert.equal(pool.size, encoded.ids.length);
  assert.deepEqual(pool.boundary, encoded.boundary);
  assert.equal(pool.text(0, pool.size), custom);
});
