import assert from "node:assert/strict";
import { binCount, cdfPoints, histogram, intervalFor, thinOut, timeSeries } from "../../src/report/chart_data.ts";
import type { RequestPoint } from "../../src/report/run_records.ts";

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

Deno.test("timeSeries: tokens when their chunks arrived, completions, and exact time in flight", () => {
  const points: RequestPoint[] = [
    // 0–300 ms; chunks at 100, 200, 300 ms; 6 tokens → 2 per chunk.
    { startMs: 0, endMs: 300, failed: false, outputTokens: 6, chunkTimesMs: [100, 200, 300] },
    // 150–250 ms, failed: in flight, but no tokens or completion.
    { startMs: 150, endMs: 250, failed: true },
  ];
  const ts = timeSeries(points, 0.2);
  assert.deepEqual(ts.times, [0, 0.2]);
  // [0, 200): chunks at 100 → 2 tokens (the one at 200 belongs to the next interval); [200, 400): 200 and 300 → 4.
  assert.deepEqual(ts.outputTokensPerSec, [2 / 0.2, 4 / 0.2]);
  assert.deepEqual(ts.requestsPerSec, [0, 1 / 0.2]);
  // [0, 200): 200 ms of the first + 50 of the second = 250 / 200; [200, 400): 100 + 50 = 150 / 200.
  assert.deepEqual(ts.inFlight, [1.25, 0.75]);
});

Deno.test("intervalFor and thinOut keep charts light", () => {
  assert.deepEqual([intervalFor(2), intervalFor(30), intervalFor(600), intervalFor(1e6)], [0.05, 0.5, 10, 16667]);
  assert.deepEqual(thinOut([1, 2, 3, 4, 5, 6], 3), [1, 3, 5]);
  assert.deepEqual(thinOut([1, 2], 3), [1, 2]);
});
