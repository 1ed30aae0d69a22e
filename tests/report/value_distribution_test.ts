import assert from "node:assert/strict";
import { ValueDistribution } from "../../src/report/value_distribution.ts";
import { cdfPoints, histogram } from "../../src/report/chart_data.ts";

function within(actual: number, expected: number, relative: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= relative * Math.abs(expected) + 1e-12, `${what}: ${actual} vs ${expected}`);
}

Deno.test("ValueDistribution: up to its limit, exactly the histogram and CDF of the values", () => {
  const values = [5, 1, 4, 4, 9, 0.5, 7];
  const d = new ValueDistribution();
  for (const v of values) d.add(v);
  assert.equal(d.exact, true);
  assert.deepEqual([d.count, d.min, d.max], [7, 0.5, 9]);
  assert.deepEqual(d.histogram(), histogram(values));
  assert.deepEqual(d.cdf(), cdfPoints(values));
  assert.deepEqual(d.cdf(3), cdfPoints(values, 3));
});

Deno.test("ValueDistribution: past its limit, a sketch within 0.5 % of each value; count, min and max exact", () => {
  const d = new ValueDistribution(4);
  for (const v of [1, 2, 3, 4, 100, 0, -5]) d.add(v);
  assert.equal(d.exact, false);
  assert.deepEqual([d.count, d.min, d.max], [7, -5, 100]);
  const cdf = d.cdf();
  // Sorted: −5, 0, 1, 2, 3, 4, 100; the rank i point is at (i + 1) / 7.
  const sorted = [-5, 0, 1, 2, 3, 4, 100];
  assert.equal(cdf.length, 7);
  cdf.forEach(([v, pct], i) => {
    within(v, sorted[i], 0.005, `rank ${i}`);
    assert.equal(pct, ((i + 1) / 7) * 100);
  });
  // Width (100 − (−5)) / 5 = 21: six values in [−5, 16), 100 in the last bin.
  assert.deepEqual(d.histogram(5), { edges: [-5, 16, 37, 58, 79], width: 21, counts: [6, 0, 0, 0, 1] });
});

Deno.test("ValueDistribution: the sketch's CDF follows the exact one over nine decades", () => {
  const values = Array.from({ length: 20_000 }, (_, i) => 10 ** (-3 + 9 * ((i * 7919) % 20_000) / 20_000));
  const sketch = new ValueDistribution(1000);
  for (const v of values) sketch.add(v);
  const exact = cdfPoints(values);
  const approx = sketch.cdf();
  assert.equal(approx.length, exact.length);
  approx.forEach(([v, pct], i) => {
    assert.equal(pct, exact[i][1]);
    within(v, exact[i][0], 0.005, `point ${i}`);
  });
  const h = sketch.histogram(), e = histogram(values);
  assert.deepEqual(h.edges, e.edges);
  assert.equal(h.counts.reduce((a, b) => a + b, 0), 20_000);
  // Only values within 0.5 % of a bin edge may land in the neighbouring bin.
  h.counts.forEach((c, i) => assert.ok(Math.abs(c - e.counts[i]) <= 0.01 * e.counts[i] + 60, `bin ${i}`));
});

Deno.test("ValueDistribution: parts merge into the distribution of the whole, exact or sketched", () => {
  const values = Array.from({ length: 300 }, (_, i) => ((i * 7919) % 1000) / 10 - 20);
  for (const limit of [1000, 250, 10]) {
    const whole = new ValueDistribution(limit);
    for (const v of values) whole.add(v);
    const parts = [values.slice(0, 100), values.slice(100, 101), values.slice(101)].map((part) => {
      const d = new ValueDistribution(limit);
      for (const v of part) d.add(v);
      return d.state();
    });
    const merged = ValueDistribution.fromState(parts[0]);
    merged.merge(parts[1]);
    merged.merge(parts[2]);
    assert.equal(merged.exact, whole.exact, `limit ${limit}`);
    assert.deepEqual([merged.count, merged.min, merged.max], [whole.count, whole.min, whole.max]);
    assert.deepEqual(merged.histogram(), whole.histogram(), `limit ${limit}`);
    assert.deepEqual(merged.cdf(), whole.cdf(), `limit ${limit}`);
  }
});
