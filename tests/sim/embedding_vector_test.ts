import assert from "node:assert/strict";
import { CACHED_TEXT_CHARS, embeddingJson, EmbeddingVectors } from "../../src/sim/embedding_vector.ts";

Deno.test("embeddingJson gives the same unit vector for the same text and different ones for different texts", () => {
  const a = JSON.parse(embeddingJson("hello world", 16)) as number[];
  assert.equal(a.length, 16);
  assert.deepEqual(JSON.parse(embeddingJson("hello world", 16)), a);
  assert.notDeepEqual(JSON.parse(embeddingJson("hello world!", 16)), a);
  const norm = Math.sqrt(a.reduce((s, x) => s + x * x, 0));
  assert.ok(Math.abs(norm - 1) < 1e-5, `norm ${norm}`);
});

Deno.test("EmbeddingVectors answers what embeddingJson writes, keeps at most its limit, and skips long texts", () => {
  const vectors = new EmbeddingVectors(3);
  for (const text of ["a", "b", "a", "c", "d", "b"]) {
    for (const dims of [8, 4]) assert.equal(vectors.json(text, dims), embeddingJson(text, dims));
  }
  assert.equal(vectors.size, 3);
  const long = "x".repeat(CACHED_TEXT_CHARS + 1);
  assert.equal(vectors.json(long, 8), embeddingJson(long, 8));
  assert.equal(vectors.size, 3);
});
