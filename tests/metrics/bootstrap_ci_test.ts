import assert from "node:assert/strict";
import {
  bootstrapInterval,
  normalQuantile,
  resampleCount,
  sortedStat,
  wilsonInterval,
} from "../../src/metrics/bootstrap_ci.ts";

Deno.test("sortedStat takes the mean, the ends and interpolated percentiles", () => {
  const s = [1, 2, 3, 4];
  assert.equal(sortedStat(s, "avg"), 2.5);
  assert.equal(sortedStat(s, "min"), 1);
  assert.equal(sortedStat(s, "max"), 4);
  assert.equal(sortedStat(s, "p50"), 2.5);
  assert.ok(Math.abs(sortedStat(s, "p99") - 3.97) < 1e-12);
  assert.throws(() => sortedStat(s, "median"), RangeError);
});

Deno.test("bootstrapInterval is the same for the same seed and brackets the sample statistic", () => {
  const values = Array.from({ length: 200 }, (_, i) => 10 + (i * 37) % 50);
  const a = bootstrapInterval(values, "p95", { level: 0.95, seed: 7 });
  const b = bootstrapInterval(values, "p95", { level: 0.95, seed: 7 });
  assert.deepEqual(a, b);
  const sorted = [...values].sort((x, y) => x - y);
  const p95 = sortedStat(sorted, "p95");
  assert.ok(a.low <= p95 && p95 <= a.high, `${a.low} ≤ ${p95} ≤ ${a.high}`);
  assert.ok(a.high - a.low < 10);
});

Deno.test("bootstrapInterval of a constant sample is that value; of one value, that value", () => {
  assert.deepEqual(bootstrapInterval([5, 5, 5, 5], "p99", { level: 0.95 }), { low: 5, high: 5 });
  assert.deepEqual(bootstrapInterval([3], "avg", { level: 0.95 }), { low: 3, high: 3 });
});

Deno.test("bootstrapInterval of a mix straddles a threshold between the two groups", () => {
  // 86 % fast requests at 30 ms, 14 % queued ones at 90 ms: the p95 is a queued one, the p80 a fast one, and an
  // interval on the p90 spans both (its rank sits where resamples fall either way).
  const values = [...Array(36).fill(30), ...Array(6).fill(90)];
  const p90 = bootstrapInterval(values, "p90", { level: 0.95, seed: 1 });
  assert.ok(p90.low < 60 && p90.high > 60, JSON.stringify(p90));
  const p50 = bootstrapInterval(values, "p50", { level: 0.95, seed: 1 });
  assert.deepEqual(p50, { low: 30, high: 30 });
});

Deno.test("resampleCount shrinks for large samples but never below 200", () => {
  assert.equal(resampleCount(100), 1000);
  assert.equal(resampleCount(100_000), 200);
  assert.equal(resampleCount(40_000), 500);
});

Deno.test("normalQuantile and wilsonInterval give the textbook values", () => {
  assert.ok(Math.abs(normalQuantile(0.975) - 1.959964) < 1e-6);
  assert.ok(Math.abs(normalQuantile(0.01) + 2.326348) < 1e-6);
  // Wilson 95 % for 0 of 100: [0, 0.0370]; for 10 of 100: [0.0552, 0.1744].
  const zero = wilsonInterval(0, 100, 0.95);
  assert.equal(zero.low, 0);
  assert.ok(Math.abs(zero.high - 0.0370) < 1e-4);
  const ten = wilsonInterval(10, 100, 0.95);
  assert.ok(Math.abs(ten.low - 0.0552) < 1e-4 && Math.abs(ten.high - 0.1744) < 1e-4, JSON.stringify(ten));
});
