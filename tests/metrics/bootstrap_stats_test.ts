import assert from "node:assert/strict";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { bootstrappable, bootstrapStatistics, type RecordColumns } from "../../src/metrics/bootstrap_stats.ts";
import { computeStats, percentileSorted } from "../../src/metrics/stats.ts";

function columns(values: Record<string, number[]>): RecordColumns {
  const size = Math.max(...Object.values(values).map((v) => v.length));
  return { size, columns: new Map(Object.entries(values).map(([k, v]) => [k, Float64Array.from(v)])) };
}

Deno.test("bootstrapStatistics: the observed statistics are the exported ones (numpy percentiles, population std)", () => {
  const ttft = [12, 7, 31, 7, 19, 44, 3, 25, 16, 9, 28];
  const boot = bootstrapStatistics(
    columns({ ttft }),
    ["ttft"],
    ["avg", "std", "p50", "p90", "p99"],
    10,
    new SeededRandom(1),
  );
  const want = computeStats(ttft)!;
  const got = boot.observed.get("ttft")!;
  for (const stat of ["avg", "std", "p50", "p90", "p99"] as const) {
    assert.ok(Math.abs(got.get(stat)! - want[stat]) < 1e-9, `${stat}: ${got.get(stat)} vs ${want[stat]}`);
  }
});

Deno.test("bootstrapStatistics: each replicate is the statistic of a resample drawn with the seeded generator", () => {
  // The same draws, done the slow way: n indices, the resample sorted, the statistics taken.
  const ttft = [5, 1, 9, 3, 3, 8, 2, 7, 6, 4, 10, 0.5];
  const itl = [2, NaN, 4, 1, 3, NaN, 5, 2, 2, 6, 1, 3]; // two failed requests: no value
  const n = ttft.length;
  const boot = bootstrapStatistics(
    columns({ ttft, itl }),
    ["ttft", "itl"],
    ["avg", "p50", "p90"],
    50,
    new SeededRandom(9),
  );
  const rng = new SeededRandom(9);
  for (let b = 0; b < 50; b++) {
    const drawn = Array.from({ length: n }, () => Math.floor(rng.nextUint32() * n / 4294967296));
    for (const [tag, col] of [["ttft", ttft], ["itl", itl]] as const) {
      const resample = drawn.map((i) => col[i]).filter((v) => !Number.isNaN(v)).sort((x, y) => x - y);
      const reps = boot.replicates.get(tag)!;
      const avg = resample.reduce((s, v) => s + v, 0) / resample.length;
      assert.ok(Math.abs(reps.get("avg")![b] - avg) < 1e-9, `${tag} avg, replicate ${b}`);
      assert.equal(reps.get("p50")![b], percentileSorted(resample, 50), `${tag} p50, replicate ${b}`);
      assert.equal(reps.get("p90")![b], percentileSorted(resample, 90), `${tag} p90, replicate ${b}`);
    }
  }
});

Deno.test("bootstrapStatistics: the replicates of a mean spread as σ/√n, and the same seed gives the same replicates", () => {
  // 400 values, alternately 0 and 10: σ = 5, so the mean's standard error is 5/√400 = 0.25.
  const values = Array.from({ length: 400 }, (_, i) => (i % 2) * 10);
  const run = () => bootstrapStatistics(columns({ x: values }), ["x"], ["avg"], 2000, new SeededRandom(4));
  const reps = run().replicates.get("x")!.get("avg")!;
  const mean = reps.reduce((s, v) => s + v, 0) / reps.length;
  const sd = Math.sqrt(reps.reduce((s, v) => s + (v - mean) ** 2, 0) / reps.length);
  assert.ok(Math.abs(mean - 5) < 0.03, `mean of replicates ${mean}`);
  assert.ok(Math.abs(sd - 0.25) < 0.02, `sd of replicates ${sd}, want 0.25`);
  assert.deepEqual(run().replicates.get("x")!.get("avg"), reps);
});

Deno.test("bootstrappable: mean, std and percentiles; never the extremes", () => {
  assert.deepEqual(["avg", "std", "p50", "p99", "p99.9", "min", "max", "p100", "count"].map(bootstrappable), [
    true,
    true,
    true,
    true,
    true,
    false,
    false,
    false,
    false,
  ]);
});
