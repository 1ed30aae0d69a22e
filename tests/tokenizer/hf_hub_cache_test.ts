import assert from "node:assert/strict";
import { findCachedTokenizer, hubCacheDir, looksLikeHubId } from "../../src/tokenizer/hf_hub_cache.ts";
import {
  defaultTokenizerFor,
  loadTokenizer,
  locateTokenizer,
  resolveTokenizerSpec,
} from "../../src/tokenizer/load_tokenizer.ts";

const TINY = new URL("../fixtures/tiny_bpe/", import.meta.url);

/** A hub cache holding `org/name` at revision `rev` (the tiny tokenizer), optionally named by refs/main. */
async function cacheWith(root: string, model: string, revs: string[], main?: string): Promise<void> {
  const base = `${root}/models--${model.replace("/", "--")}`;
  for (const rev of revs) {
    await Deno.mkdir(`${base}/snapshots/${rev}`, { recursive: true });
    await Deno.copyFile(new URL("tokenizer.json", TINY), `${base}/snapshots/${rev}/tokenizer.json`);
  }
  if (main !== undefined) {
    await Deno.mkdir(`${base}/refs`, { recursive: true });
    await Deno.writeTextFile(`${base}/refs/main`, main + "\n");
  }
}

Deno.test("hub cache directory follows HF_HUB_CACHE, then HF_HOME, then XDG_CACHE_HOME, then ~/.cache", () => {
  assert.equal(hubCacheDir({ HF_HUB_CACHE: "/a", HF_HOME: "/b", HOME: "/h" }), "/a");
  assert.equal(hubCacheDir({ HF_HOME: "/b", HOME: "/h" }), "/b/hub");
  assert.equal(hubCacheDir({ XDG_CACHE_HOME: "/x", HOME: "/h" }), "/x/huggingface/hub");
  assert.equal(hubCacheDir({ HOME: "/h" }), "/h/.cache/huggingface/hub");
});

Deno.test("hub ids are org/name or name, never paths", () => {
  for (const id of ["Qwen/Qwen3-0.6B", "meta-llama/Llama-3.1-8B-Instruct", "gpt2"]) assert.ok(looksLikeHubId(id), id);
  for (const p of ["./qwen", "/abs/dir", "../x", "a/b/c", "a b"]) assert.ok(!looksLikeHubId(p), p);
});

Deno.test("a hub id resolves offline to its cached snapshot: refs/main first, else the newest with tokenizer.json", async () => {
  const root = await Deno.makeTempDir();
  try {
    const env = { HF_HUB_CACHE: root };
    assert.equal(findCachedTokenizer("Qwen/Qwen3-0.6B", env), undefined);
    await cacheWith(root, "Qwen/Qwen3-0.6B", ["aaa", "bbb"], "aaa");
    assert.equal(findCachedTokenizer("Qwen/Qwen3-0.6B", env), `${root}/models--Qwen--Qwen3-0.6B/snapshots/aaa`);
    await cacheWith(root, "org/other", ["only"]);
    assert.equal(findCachedTokenizer("org/other", env), `${root}/models--org--other/snapshots/only`);
    // --tokenizer with a hub id loads from the cache, with HF_HOME too
    const home = await Deno.makeTempDir();
    await cacheWith(`${home}/hub`, "Qwen/Qwen3-0.6B", ["r1"]);
    const tok = await loadTokenizer("Qwen/Qwen3-0.6B", { HF_HOME: home });
    assert.equal(tok.name, `${home}/hub/models--Qwen--Qwen3-0.6B/snapshots/r1`);
    assert.ok(tok.count("hello") > 0);
    await Deno.remove(home, { recursive: true });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a missing tokenizer fails with where to put the files; without --tokenizer the builtin one is named", () => {
  const env = { HF_HUB_CACHE: "/nonexistent-cache" };
  assert.throws(
    () => locateTokenizer("Qwen/Qwen3-0.6B", env),
    /\/nonexistent-cache\/models--Qwen--Qwen3-0\.6B\/snapshots\/<revision>\/.*never downloads|never downloads.*\/nonexistent-cache\/models--Qwen--Qwen3-0\.6B\/snapshots/,
  );
  const fallback = defaultTokenizerFor("Qwen/Qwen3-0.6B", env);
  assert.equal(fallback.spec, "builtin");
  assert.match(fallback.notice, /^Tokenizer: builtin \(o200k_base\), Qwen\/Qwen3-0\.6B's own not in the HF cache/);
  assert.ok(fallback.notice.length <= 120, fallback.notice);
  assert.match(fallback.details ?? "", /models--Qwen--Qwen3-0\.6B\/snapshots\/<revision>/);
});

Deno.test("without --tokenizer, a model found in the cache is counted with its own tokenizer", async () => {
  const root = await Deno.makeTempDir();
  try {
    await cacheWith(root, "Qwen/Qwen3-0.6B", ["abc"], "abc");
    const found = defaultTokenizerFor("Qwen/Qwen3-0.6B", { HF_HUB_CACHE: root });
    assert.equal(found.spec, `${root}/models--Qwen--Qwen3-0.6B/snapshots/abc`);
    assert.match(found.notice, /Qwen\/Qwen3-0\.6B's own/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("findCachedTokenizer takes the snapshot of a --tokenizer-revision: a ref, a commit or its prefix", async () => {
  const hub = await Deno.makeTempDir();
  try {
    const repo = `${hub}/models--org--tok`;
    for (const commit of ["aaaa1111", "bbbb2222"]) {
      await Deno.mkdir(`${repo}/snapshots/${commit}`, { recursive: true });
      await Deno.writeTextFile(`${repo}/snapshots/${commit}/tokenizer.json`, "{}");
    }
    await Deno.mkdir(`${repo}/refs`, { recursive: true });
    await Deno.writeTextFile(`${repo}/refs/main`, "aaaa1111");
    await Deno.writeTextFile(`${repo}/refs/v2`, "bbbb2222\n");
    const env = { HF_HUB_CACHE: hub };
    assert.equal(findCachedTokenizer("org/tok", env), `${repo}/snapshots/aaaa1111`);
    assert.equal(findCachedTokenizer("org/tok", env, "main"), `${repo}/snapshots/aaaa1111`);
    assert.equal(findCachedTokenizer("org/tok", env, "v2"), `${repo}/snapshots/bbbb2222`);
    assert.equal(findCachedTokenizer("org/tok", env, "bbbb2222"), `${repo}/snapshots/bbbb2222`);
    assert.equal(findCachedTokenizer("org/tok", env, "bbbb"), `${repo}/snapshots/bbbb2222`, "a unique prefix");
    assert.equal(findCachedTokenizer("org/tok", env, "v3"), undefined, "never another revision instead");
    assert.equal(resolveTokenizerSpec("org/tok", env, "v2"), `${repo}/snapshots/bbbb2222`);
    assert.throws(
      () => resolveTokenizerSpec("org/tok", env, "v3"),
      /Tokenizer "org\/tok" at revision "v3" is not in the local Hugging Face cache, and infermeter never downloads/,
    );
    assert.equal(resolveTokenizerSpec("builtin", env, "v3"), "builtin");
  } finally {
    await Deno.remove(hub, { recursive: true });
  }
});
