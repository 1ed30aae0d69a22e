import assert from "node:assert/strict";
import { DEFAULT_CORPUS } from "../../src/dataset/default_corpus.ts";

Deno.test("default corpus embeds every corpus file, at least 60 KB of prose", async () => {
  const dir = new URL("../../datasets/corpus/", import.meta.url);
  let files = 0;
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.name.endsWith(".txt")) continue;
    files++;
    const text = (await Deno.readTextFile(new URL(entry.name, dir))).trim();
    assert.ok(DEFAULT_CORPUS.includes(text), `${entry.name} is embedded`);
  }
  assert.ok(files >= 3);
  assert.ok(new TextEncoder().encode(DEFAULT_CORPUS).length >= 60_000);
});
