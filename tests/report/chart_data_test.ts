import assert from "node:assert/strict";
import { binCount, cdfPoints, histogram, intervalFor } from "../../src/report/chart_data.ts";

Deno.test("histogram: equal-width bins from min to max, the maximum in the last bin", () => {
  // Width (10 − 0) / 5 = 2: [0,2) holds 0 and 1, [2,4) holds 2 and 3.9, [8,10] holds 9 and 10.
  const h = histogram([0, 1, 2, 3.9, 9, 10], 5);
  assert.equal(h.width, 2);
  assert.deepEqual(h.edges, [0, 2, 4, 6, 8]);
  assert.deepEqual(h.counts, [2, 2, 0, 0, 2]);
  assert.deepEqual(histogram([3, 3, 3]), { edges: [3], width: 0, counts: [3] });
  assert.deepEqual(histogram([]).counts, []);
  assert.deepEqual([binCount(1), binCount(100), binCount(10_000)], [5, 10, 40]);
});

Deno.test("cdfPoints: the share of values at or below each value, thinned to evenly spaced ranks", () => {
  assert.deepEqual(cdfPoints([30, 10, 20, 40]), [[10, 25], [20, 50], [30, 75], [40, 100]]);
  const thinned = cdfPoints(Array.from({ length: 10 }, (_, i) => i + 1), 5);
  assert.deepEqual(thinned, [[2, 20], [4, 40], [6, 60], [8, 80], [10, 100]]);
});

Deno.test("intervalFor: at most 60 intervals of a listed width, then of whole minutes", () => {
  // 1e6 s / 60 = 16,667 s: rounded up to 278 minutes.
  assert.deepEqual([intervalFor(2), intervalFor(30), intervalFor(600), intervalFor(1e6)], [0.05, 0.5, 10, 16_680]);
});
