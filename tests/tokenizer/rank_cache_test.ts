import assert from "node:assert/strict";
import { join } from "node:path";
import { BpeRanks } from "../../src/tokenizer/bpe_ranks.ts";
import { readRankCache, writeRankCache } from "../../src/tokenizer/rank_cache.ts";
import { O200K_CACHE_KEY } from "../../src/tokenizer/builtin_tokenizer.ts";

// A small table: tokens "a", "b", "ab", "abc", "é".
const ranks = BpeRanks.parse("x 0 YQ== Yg== YWI= YWJj w6k=\n");
const data = { patStr: String.raw`\p{L}+|\s+`, specialTokens: { "<|end|>": 9 }, ranks: ranks.snapshot() };

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("rank cache round-trips the tables, and the rebuilt table finds the same ranks", async () => {
  await withDir(async (dir) => {
    assert.equal(await writeRankCache("k-1", data, join(dir, "nested")), true);
    const back = readRankCache("k-1", join(dir, "nested"));
    assert.ok(back);
    assert.equal(back.patStr, data.patStr);
    assert.deepEqual(back.specialTokens, data.specialTokens);
    assert.deepEqual([...back.ranks.bytes], [...data.ranks.bytes]);
    assert.deepEqual([...back.ranks.slots], [...data.ranks.slots]);
    const rebuilt = BpeRanks.fromSnapshot(back.ranks);
    for (const [text, rank] of [["a", 0], ["b", 1], ["ab", 2], ["abc", 3], ["é", 4], ["ba", -1]] as const) {
      const b = bytes(text);
      assert.equal(rebuilt.rankOf(b, 0, b.length), rank, text);
    }
    assert.ok(back.ranks.slots.buffer instanceof SharedArrayBuffer, "shareable with the counting Worker");
    // No temporary files are left behind.
    assert.deepEqual([...Deno.readDirSync(join(dir, "nested"))].map((e) => e.name), ["k-1.bin"]);
  });
});

Deno.test("rank cache rejects another key, a damaged file and a truncated file", async () => {
  await withDir(async (dir) => {
    await writeRankCache("k-1", data, dir);
    assert.equal(readRankCache("k-2", dir), undefined);
    const path = join(dir, "k-1.bin");
    const good = Deno.readFileSync(path);
    const damaged = good.slice();
    damaged[damaged.length - 3] ^= 0x10;
    Deno.writeFileSync(path, damaged);
    assert.equal(readRankCache("k-1", dir), undefined);
    Deno.writeFileSync(path, good.subarray(0, good.length - 4));
    assert.equal(readRankCache("k-1", dir), undefined);
    Deno.writeFileSync(path, bytes("not a cache file at all"));
    assert.equal(readRankCache("k-1", dir), undefined);
    Deno.writeFileSync(path, good);
    assert.ok(readRankCache("k-1", dir));
  });
});

Deno.test("rank cache with no directory (caching off) neither reads nor writes", async () => {
  assert.equal(readRankCache("k-1", null), undefined);
  assert.equal(await writeRankCache("k-1", data, null), false);
});

Deno.test("the builtin cache key names the js-tiktoken version pinned in deno.json", () => {
  const config = JSON.parse(Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)));
  const version = /js-tiktoken@([\d.]+)/.exec(config.imports["js-tiktoken"])?.[1];
  assert.ok(version);
  assert.equal(O200K_CACHE_KEY, `o200k_base-js-tiktoken-${version}`);
});
