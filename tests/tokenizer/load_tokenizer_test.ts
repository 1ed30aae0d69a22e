import assert from "node:assert/strict";
import { loadTokenizer, resolveTokenizer } from "../../src/tokenizer/load_tokenizer.ts";
import { BUILTIN_TOKENIZER_NAME } from "../../src/tokenizer/builtin_tokenizer.ts";

const TINY = new URL("../fixtures/tiny_bpe", import.meta.url).pathname;

Deno.test("resolveTokenizer names the builtin tokenizer before loading it, and loads it once", async () => {
  for (const spec of [undefined, "", "builtin"]) {
    const lazy = await resolveTokenizer(spec);
    assert.equal(lazy.name, BUILTIN_TOKENIZER_NAME);
    const [a, b] = await Promise.all([lazy.load(), lazy.load()]);
    assert.equal(a, b);
    assert.equal(a.name, BUILTIN_TOKENIZER_NAME);
    assert.equal(a.count("hello world"), 2);
  }
});

Deno.test("resolveTokenizer loads a file tokenizer at once, so a bad path fails before anything is sent", async () => {
  const lazy = await resolveTokenizer(TINY);
  assert.equal(lazy.name, (await loadTokenizer(TINY)).name);
  assert.equal((await lazy.load()).name, lazy.name);
  await assert.rejects(
    resolveTokenizer("/no/such/tokenizer"),
    /neither a local file or directory nor in the Hugging Face cache/,
  );
});
