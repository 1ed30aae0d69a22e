import assert from "node:assert/strict";
import { bootstrapDifference, rateDifference, rateNoise, withinNoise } from "../../src/metrics/difference_interval.ts";
import { studentTQuantile } from "../../src/metrics/student_t.ts";

function close(actual: number | undefined, expected: number, what: string, tol = 1e-9): void {
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= tol, `${what}: ${actual}, want ${expected}`);
}

Deno.test("bootstrapDifference: the percentile interval of paired replicate differences, centred on the exported one", () => {
  // Replicates of A are all 10; B's are 11, 12, …, 210: differences 1 … 201, in order.
  const a = { observed: 10, replicates: new Float64Array(201).fill(10) };
  const b = { observed: 111, replicates: Float64Array.from({ length: 201 }, (_, i) => 11 + i) };
  const ci = bootstrapDifference(a, b, 101, 10, 0.9)!;
  // numpy-style percentiles of 1 … 201 at 5 % and 95 %: 11 and 191.
  close(ci.low, 11, "low");
  close(ci.high, 191, "high");
  close(ci.relativeLow, 1.1, "relative low");
  close(ci.relativeHigh, 19.1, "relative high");
  assert.equal(withinNoise(ci), false);
  // An export 2 above what the records give moves the interval with it.
  const shifted = bootstrapDifference(a, b, 103, 10, 0.9)!;
  close(shifted.low, 13, "shifted low");
  // Too few replicates with values (NaN: nothing drawn) give no interval.
  const sparse = { observed: 10, replicates: new Float64Array(201).fill(NaN) };
  assert.equal(bootstrapDifference(sparse, b, 101, 10, 0.9), undefined);
});

Deno.test("rateNoise: the windows' rates give the standard error (batch means)", () => {
  // 40 completions over 0 … 1000 ms, 10 windows of 100 ms: windows alternately hold 3 and 5 completions, i.e.
  // 30 and 50 per second; mean 40, sample sd √(10·100/9) = 10.54, standard error 10.54 / √10 = 3.333.
  const ends: number[] = [];
  for (let w = 0; w < 10; w++) {
    const k = w % 2 === 0 ? 3 : 5;
    for (let j = 0; j < k; j++) ends.push(w * 100 + (j + 0.5) * (100 / k));
  }
  ends[0] = 0;
  ends[ends.length - 1] = 1000; // the span is exactly 0 … 1000 ms
  const noise = rateNoise(Float64Array.from(ends), new Float64Array(ends.length).fill(1))!;
  close(noise.se, Math.sqrt(1000 / 9) / Math.sqrt(10), "se", 1e-9);
  assert.equal(noise.df, 9);
  // Fewer than 16 completions cannot make four windows of four.
  assert.equal(rateNoise(new Float64Array([1, 2, 3]), new Float64Array([1, 1, 1])), undefined);
});

Deno.test("rateDifference: Welch's interval with Welch–Satterthwaite degrees of freedom", () => {
  const ci = rateDifference({ se: 3, df: 9 }, { se: 4, df: 9 }, 10, 100, 0.95);
  // ν = 25² / (81/9 + 256/9) = 625 · 9 / 337
  const half = studentTQuantile(0.975, 625 * 9 / 337) * 5;
  close(ci.low, 10 - half, "low");
  close(ci.high, 10 + half, "high");
  close(ci.relativeLow, (10 - half) / 100, "relative low");
  assert.equal(withinNoise(ci), 10 - half <= 0);
});
