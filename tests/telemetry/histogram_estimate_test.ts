import assert from "node:assert/strict";
import {
  type BucketBound,
  estimatePercentiles,
  type HistogramPoint,
  learnBucketStatistics,
} from "../../src/telemetry/histogram_estimate.ts";

interface Case {
  readonly name: string;
  readonly les: readonly string[];
  readonly points: readonly HistogramPoint[];
  readonly aiperf: Record<string, number> | null;
}

/** AIPerf 0.13's own estimates of generated series (scripts/parity/capture_histogram_cases.py). */
const CASES: readonly Case[] = JSON.parse(
  await Deno.readTextFile(new URL("../fixtures/aiperf_0_13/histogram_estimate_cases.json", import.meta.url)),
).cases;

function estimate(c: Case) {
  const bounds: BucketBound[] = c.les.map((le) => ({ le, bound: le === "+Inf" ? Infinity : Number(le) }));
  const first = c.points[0];
  const last = c.points[c.points.length - 1];
  const deltas = last.cumulative.map((v, i) => v - first.cumulative[i]);
  return estimatePercentiles(
    bounds,
    deltas,
    last.sum - first.sum,
    last.count - first.count,
    learnBucketStatistics(c.points),
  );
}

for (const c of CASES) {
  Deno.test(`histogram estimate matches AIPerf 0.13's estimator: ${c.name}`, () => {
    const ours = estimate(c);
    if (c.aiperf === null) return assert.equal(ours, undefined);
    assert.ok(ours !== undefined);
    for (const [stat, theirs] of Object.entries(c.aiperf)) {
      assert.ok(
        Math.abs(ours[stat] - theirs) <= 1e-9 * Math.max(1, Math.abs(theirs)),
        `${stat}: ${ours[stat]} vs ${theirs}`,
      );
    }
  });
}

Deno.test("histogram estimate: values piled just under a bound read there, not at half the bucket", () => {
  // Three scrape intervals of 100 requests each at ~0.277 s, all in (0, 0.3]: linear interpolation inside the
  // bucket says p50 = 0.15; the means learned from the intervals say 0.277.
  const bounds: BucketBound[] = [{ le: "0.3", bound: 0.3 }, { le: "0.5", bound: 0.5 }, { le: "+Inf", bound: Infinity }];
  const points: HistogramPoint[] = [0, 1, 2, 3].map((k) => ({
    cumulative: [100 * k, 100 * k, 100 * k],
    sum: [0, 27.6, 55.3, 83.1][k],
    count: 100 * k,
  }));
  const p = estimatePercentiles(bounds, [300, 300, 300], 83.1, 300, learnBucketStatistics(points))!;
  assert.ok(Math.abs(p.p50_estimate - 0.277) < 0.002, `${p.p50_estimate}`);
  assert.ok(p.p1_estimate > 0.27 && p.p99_estimate <= 0.3, `${p.p1_estimate} … ${p.p99_estimate}`);
});

Deno.test("histogram estimate: learned means come from intervals whose observations all fell in one bucket", () => {
  const stats = learnBucketStatistics([
    { cumulative: [0, 0, 0], sum: 0, count: 0 },
    { cumulative: [2, 2, 2], sum: 0.5, count: 2 }, // both in bucket 0: mean 0.25
    { cumulative: [2, 5, 5], sum: 2, count: 5 }, // three in bucket 1: mean 0.5
    { cumulative: [3, 7, 7], sum: 3.1, count: 7 }, // one in bucket 0, one in bucket 1: not learned from
  ]);
  assert.deepEqual([...stats.keys()].sort(), [0, 1]);
  assert.deepEqual(stats.get(0), { observationCount: 2, weightedMeanSum: 0.5, means: [0.25] });
  assert.deepEqual(stats.get(1), { observationCount: 3, weightedMeanSum: 1.5, means: [0.5] });
});

Deno.test("histogram estimate: no observations, a negative or non-finite sum give none; a zero sum gives zeros", () => {
  const bounds: BucketBound[] = [{ le: "1", bound: 1 }, { le: "+Inf", bound: Infinity }];
  assert.equal(estimatePercentiles(bounds, [0, 0], 0, 0, new Map()), undefined);
  assert.equal(estimatePercentiles(bounds, [2, 2], -1, 2, new Map()), undefined);
  assert.equal(estimatePercentiles(bounds, [2, 2], NaN, 2, new Map()), undefined);
  assert.deepEqual(Object.values(estimatePercentiles(bounds, [2, 2], 0, 2, new Map())!), Array(9).fill(0));
});
