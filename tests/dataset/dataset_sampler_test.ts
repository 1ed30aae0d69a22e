import assert from "node:assert/strict";
import { createSampler } from "../../src/dataset/dataset_sampler.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import type { SamplingStrategy } from "../../src/dataset/conversation.ts";

function take(sampler: { next(): number }, n: number): number[] {
  return Array.from({ length: n }, () => sampler.next());
}

Deno.test("sequential sampler walks the entries in order and wraps", () => {
  const sampler = createSampler("sequential", 3, new SeededRandom(1));
  assert.equal(sampler.strategy, "sequential");
  assert.equal(sampler.size, 3);
  assert.deepEqual(take(sampler, 8), [0, 1, 2, 0, 1, 2, 0, 1]);
  assert.equal(sampler.indexAt(1_000_000_001), 1_000_000_001 % 3);
});

Deno.test("shuffle sampler visits every entry once per pass and reshuffles on exhaustion", () => {
  const size = 10;
  const sampler = createSampler("shuffle", size, new SeededRandom(7));
  const passes = Array.from({ length: 5 }, () => take(sampler, size));
  for (const pass of passes) assert.deepEqual([...pass].sort((a, b) => a - b), [...Array(size).keys()]);
  assert.ok(new Set(passes.map((p) => p.join(","))).size > 1, "passes are reshuffled");
  assert.notDeepEqual(passes[0], [...Array(size).keys()], "the first pass is shuffled too");
});

Deno.test("random sampler draws with replacement, roughly uniformly", () => {
  const sampler = createSampler("random", 4, new SeededRandom(3));
  const counts = [0, 0, 0, 0];
  const draws = take(sampler, 8000);
  for (const i of draws) counts[i]++;
  for (const c of counts) assert.ok(c > 1800 && c < 2200, `counts ${counts}`);
  assert.ok(draws.some((_, i) => i > 0 && draws[i] === draws[i - 1]), "an entry can repeat immediately");
});

for (const strategy of ["sequential", "random", "shuffle"] as const satisfies readonly SamplingStrategy[]) {
  Deno.test(`${strategy} sampler indexAt(k) equals the k-th next() in any query order`, () => {
    const a = createSampler(strategy, 7, new SeededRandom(99));
    const b = createSampler(strategy, 7, new SeededRandom(99));
    const sequence = take(a, 100);
    const order = [...Array(100).keys()];
    new SeededRandom(5).shuffle(order);
    for (const k of order) assert.equal(b.indexAt(k), sequence[k], `k=${k}`);
    assert.deepEqual(take(b, 100), sequence, "next() is unaffected by indexAt()");
  });

  Deno.test(`${strategy} sampler is deterministic for a seed`, () => {
    const a = take(createSampler(strategy, 50, new SeededRandom(1)), 200);
    const b = take(createSampler(strategy, 50, new SeededRandom(1)), 200);
    assert.deepEqual(a, b);
    for (const i of a) assert.ok(Number.isInteger(i) && i >= 0 && i < 50);
  });
}

Deno.test("random and shuffle samplers depend on the seed", () => {
  for (const strategy of ["random", "shuffle"] as const) {
    const a = take(createSampler(strategy, 50, new SeededRandom(1)), 50);
    const b = take(createSampler(strategy, 50, new SeededRandom(2)), 50);
    assert.notDeepEqual(a, b, strategy);
  }
});

Deno.test("sampler with one entry always returns 0", () => {
  for (const strategy of ["sequential", "random", "shuffle"] as const) {
    assert.deepEqual(take(createSampler(strategy, 1, new SeededRandom(1)), 5), [0, 0, 0, 0, 0]);
  }
});

Deno.test("createSampler rejects empty datasets, unknown strategies and bad request indexes", () => {
  assert.throws(() => createSampler("random", 0, new SeededRandom(1)), /needs at least one dataset entry, got 0/);
  assert.throws(() => createSampler("random", 2.5, new SeededRandom(1)), RangeError);
  assert.throws(
    () => createSampler("weighted" as SamplingStrategy, 3, new SeededRandom(1)),
    /Unknown sampling strategy "weighted"; use sequential, random or shuffle/,
  );
  const sampler = createSampler("shuffle", 3, new SeededRandom(1));
  assert.throws(() => sampler.indexAt(-1), /Request index must be a non-negative integer, got -1/);
  assert.throws(() => sampler.indexAt(0.5), RangeError);
});
