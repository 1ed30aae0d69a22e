import assert from "node:assert/strict";
import { computeStats, computeStatsInPlace, percentileSorted } from "../../src/metrics/stats.ts";

Deno.test("stats of [1, 2, 3, 4] match hand-computed numpy values", () => {
  const s = computeStats([4, 1, 3, 2]);
  assert.ok(s);
  assert.equal(s.count, 4);
  assert.equal(s.sum, 10);
  assert.equal(s.avg, 2.5);
  assert.equal(s.min, 1);
  assert.equal(s.max, 4);
  // virtual index (n − 1)·q: p50 → 1.5 → 2 + 0.5·(3 − 2) = 2.5
  assert.equal(s.p50, 2.5);
  // p25 → 0.75 → 1.75; p1 → 0.03 → 1.03; p99 → 2.97 → 3.97 (numpy prints 3.9699999999999998)
  assert.equal(s.p25, 1.75);
  assert.ok(Math.abs(s.p1 - 1.03) < 1e-12);
  assert.ok(Math.abs(s.p99 - 3.97) < 1e-12);
  assert.equal(s.p99, 3.9699999999999998);
  // p75 → 2.25 → 3.25; p90 → 2.7 → 3.7
  assert.equal(s.p75, 3.25);
  assert.ok(Math.abs(s.p90 - 3.7) < 1e-12);
  // population std: deviations ±1.5, ±0.5 → sqrt((2.25 + 0.25 + 0.25 + 2.25) / 4) = sqrt(1.25)
  assert.equal(s.std, Math.sqrt(1.25));
});

Deno.test("stats of one value are that value with zero spread", () => {
  const s = computeStats([7]);
  assert.ok(s);
  assert.deepEqual([s.min, s.max, s.p1, s.p50, s.p99, s.avg, s.std, s.count, s.sum], [7, 7, 7, 7, 7, 7, 0, 1, 7]);
});

Deno.test("stats of no values are undefined", () => {
  assert.equal(computeStats([]), undefined);
  assert.equal(computeStats(new Float64Array(0)), undefined);
  assert.throws(() => percentileSorted([], 50), RangeError);
});

Deno.test("computeStats leaves its input untouched; the in-place variant sorts it", () => {
  const input = new Float64Array([3, 1, 2]);
  computeStats(input);
  assert.deepEqual([...input], [3, 1, 2]);
  computeStatsInPlace(input);
  assert.deepEqual([...input], [1, 2, 3]);
});

Deno.test("stats of 1M samples are exact", () => {
  // 0 … 999 999 in a scrambled order (multiplying by a number coprime to n permutes the residues)
  const n = 1_000_000;
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) values[i] = (i * 7919) % n;
  const s = computeStatsInPlace(values);
  assert.ok(s);
  assert.equal(s.count, n);
  assert.equal(s.min, 0);
  assert.equal(s.max, n - 1);
  // Σ i = n(n − 1)/2 = 499 999 500 000; avg = 499 999.5
  assert.equal(s.sum, 499_999_500_000);
  assert.equal(s.avg, 499_999.5);
  // p50: index 999 999 · 0.5 = 499 999.5 → 499 999.5; p99: index 989 999.01 → 989 999.01
  assert.equal(s.p50, 499_999.5);
  assert.ok(Math.abs(s.p99 - 989_999.01) < 1e-6);
  assert.ok(Math.abs(s.p1 - 9_999.99) < 1e-6);
  // population std of 0 … n−1 = sqrt((n² − 1) / 12)
  assert.ok(Math.abs(s.std - Math.sqrt((n * n - 1) / 12)) < 1e-6);
});

/** numpy's percentile on a fully sorted copy: the reference the selection must reproduce exactly. */
function referencePercentile(values: Float64Array, q: number): number {
  const sorted = Float64Array.from(values).sort();
  return percentileSorted(sorted, q);
}

Deno.test("stats percentiles equal a full sort's for many shapes and sizes", () => {
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const shapes: Record<string, (i: number) => number> = {
    uniform: () => rand() * 100,
    integers: () => Math.floor(rand() * 7),
    constant: () => 42,
    heavyTail: () => (rand() < 0.001 ? 60_000 : 50 + rand() * 10),
    negative: () => (rand() - 0.5) * 1e6,
    tiny: () => 1e-9 * rand(),
    sorted: (i) => i,
    twoValues: (i) => (i % 3 === 0 ? 1 : 2),
  };
  for (const n of [1, 2, 3, 10, 8191, 8193, 50_000, 200_003]) {
    for (const [name, gen] of Object.entries(shapes)) {
      const values = new Float64Array(n);
      for (let i = 0; i < n; i++) values[i] = gen(i);
      const expected = [1, 5, 10, 25, 50, 75, 90, 95, 99].map((q) => referencePercentile(values, q));
      const s = computeStatsInPlace(values);
      assert.ok(s);
      const got = [s.p1, s.p5, s.p10, s.p25, s.p50, s.p75, s.p90, s.p95, s.p99];
      assert.deepEqual(got, expected, `${name} n=${n}`);
      const sorted = Float64Array.from(values).sort();
      assert.equal(s.min, sorted[0], `${name} n=${n} min`);
      assert.equal(s.max, sorted[n - 1], `${name} n=${n} max`);
    }
  }
});

Deno.test("a percentile rank holding zero gets the sign a full sort puts there, whatever the order", () => {
  // Sorted: [-1, -0, -0, +0, +0, +0, 2] — ranks 1–2 hold −0, ranks 3–5 hold +0.
  const base = [0, -0, 2, -1, 0, -0, 0];
  for (const n of [1, 1000, 5000]) { // small (quickselect) and bucketed columns
    const values = Array.from({ length: n }, () => base).flat();
    const sorted = Float64Array.from(values).sort();
    let seed = n;
    for (let t = 0; t < 8; t++) {
      // Deterministic shuffle: the selection's partitioning differs, the answer must not.
      for (let i = values.length - 1; i > 0; i--) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        const j = seed % (i + 1);
        [values[i], values[j]] = [values[j], values[i]];
      }
      const s = computeStats(values)!;
      const expected = (q: number) => percentileSorted(sorted, q);
      for (const [key, q] of [["p25", 25], ["p50", 50], ["p75", 75]] as const) {
        assert.ok(Object.is(s[key], expected(q)), `n=${n} ${key}: ${s[key]} vs ${expected(q)}`);
      }
    }
  }
});
