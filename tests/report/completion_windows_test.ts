import assert from "node:assert/strict";
import { CompletionWindows } from "../../src/report/completion_windows.ts";
import { rateNoise, rateWindows, windowsNoise } from "../../src/metrics/difference_interval.ts";

/** Completions at 10 ms steps with a varying load, (end ms, input, output). */
function completions(n: number, from = 0): [number, number, number][] {
  return Array.from(
    { length: n },
    (_, i) => [1_700_000_000_000 + (from + i) * 10 + (i % 3), 100 + (i % 7), 1 + (i % 5)],
  );
}

Deno.test("CompletionWindows: window sums by hand, a bucket across a boundary shared by overlap", () => {
  const w = new CompletionWindows();
  // Ends at 0, 10, 20, 30 ms (1 ms buckets): span 30 ms, 3 windows of 10 ms; the last end counts in the last.
  for (const [t, isl, osl] of [[0, 1, 10], [10, 2, 20], [20, 3, 30], [30, 4, 40]]) w.add(t, isl, osl);
  assert.equal(w.spanMs, 30);
  assert.deepEqual([...w.windowSums(3, "requests")], [1, 1, 2]);
  assert.deepEqual([...w.windowSums(3, "total")], [11, 22, 77]);
  // 2 buckets of 16 ms after doubling (at most 2 buckets: 0–15 and 16–31): [0, 15] holds 0 and 10, [16, 30] 20, 30.
  const coarse = new CompletionWindows(2);
  for (const [t, isl, osl] of [[0, 1, 10], [10, 2, 20], [20, 3, 30], [30, 4, 40]]) coarse.add(t, isl, osl);
  // Windows [0, 10), [10, 20), [20, 30]: the first bucket spreads 2 over 16 ms, the second 2 over 14 ms.
  const sums = [...coarse.windowSums(3, "requests")];
  const expected = [2 * 10 / 16, 2 * 6 / 16 + 2 * 4 / 14, 2 * 10 / 14];
  sums.forEach((s, i) => assert.ok(Math.abs(s - expected[i]) < 1e-12, `window ${i}: ${s}`));
});

Deno.test("CompletionWindows: a throughput's noise as the exact completion times give it", () => {
  const all = completions(5000);
  const w = new CompletionWindows();
  for (const [t, isl, osl] of all) w.add(t, isl, osl);
  const ends = Float64Array.from(all, ([t]) => t);
  for (const [amount, pick] of [["requests", () => 1], ["output", (c: number[]) => c[2]]] as const) {
    const exact = rateNoise(ends, Float64Array.from(all, (c) => pick(c)))!;
    const k = rateWindows(w.count)!;
    const streamed = windowsNoise(w.windowSums(k, amount), w.spanMs)!;
    assert.equal(streamed.df, exact.df);
    assert.ok(Math.abs(streamed.se - exact.se) <= 1e-9 * exact.se + 1e-9, `${amount}: ${streamed.se} vs ${exact.se}`);
  }
});

Deno.test("CompletionWindows: histograms of parts merge into the histogram of the whole", () => {
  const whole = new CompletionWindows(500);
  const parts = [new CompletionWindows(500), new CompletionWindows(500), new CompletionWindows(500)];
  const all = completions(3000);
  all.forEach(([t, isl, osl], i) => {
    whole.add(t, isl, osl);
    parts[i < 10 ? 0 : i < 2000 ? 1 : 2].add(t, isl, osl);
  });
  const merged = new CompletionWindows(500);
  for (const p of parts) merged.merge(p.state());
  assert.equal(merged.count, 3000);
  assert.equal(merged.spanMs, whole.spanMs);
  for (const amount of ["requests", "input", "output", "total"] as const) {
    assert.deepEqual(merged.windowSums(10, amount), whole.windowSums(10, amount), amount);
  }
});
