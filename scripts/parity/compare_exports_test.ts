import assert from "node:assert/strict";
import {
  bucketWidthAt,
  compareLists,
  comparePercentiles,
  consoleTables,
  csvLabels,
  rankBuckets,
} from "./compare_exports.ts";

Deno.test("compare exports: CSV labels, console rows (wrapped names joined) and missing entries", () => {
  assert.deepEqual(csvLabels('Metric,avg\r\nA (ms),1\r\n"B, c",2\r\n\r\nMetric,Value\r\nD,3\r\n'), [
    "A (ms)",
    "B, c",
    "D",
  ]);
  const console = [
    "        NVIDIA AIPerf | LLM Metrics",
    "┏━━━━━━━━━━━━━━━━━━━┳━━━━━┓",
    "┃ Metric            ┃ avg ┃",
    "┡━━━━━━━━━━━━━━━━━━━╇━━━━━┩",
    "│ Request Latency   │ 1.0 │",
    "│ Effective Decode  │ 2.0 │",
    "│ (tokens/sec/user) │     │",
    "└───────────────────┴─────┘",
  ].join("\n");
  assert.deepEqual([...consoleTables(console)], [["LLM Metrics", [
    "Request Latency",
    "Effective Decode (tokens/sec/user)",
  ]]]);
  const m = compareLists("x", ["a", "b", "c"], ["c", "a", "d"]);
  assert.deepEqual([m.missing, m.extra, m.sameOrder], [["b"], ["d"], false]);
});

Deno.test("compare exports: bucket widths, rank buckets, and estimates within one bucket of AIPerf's", () => {
  const bounds = [0.1, 0.3, 1, Infinity];
  assert.ok(Math.abs(bucketWidthAt(0.2, bounds) - 0.2) < 1e-12);
  assert.equal(bucketWidthAt(0.05, bounds), 0.1);
  assert.ok(Math.abs(bucketWidthAt(5, bounds) - 0.7) < 1e-12, "+Inf: the last finite bucket's width");
  // "1" before "0.1" as JSON.parse orders them: sorted by bound, not by key order.
  // 10 observations: p50 interpolates between the 5th and 6th, both in (0.1, 0.3].
  assert.deepEqual(rankBuckets({ "1": 10, "0.1": 2, "0.3": 9, "+Inf": 10 }, 0.5), [1, 1]);
  // p25 between the 3rd (in (0, 0.1]) and the 4th (in (0.3, 1]): an estimate may fall in the empty bucket between.
  assert.deepEqual(rankBuckets({ "0.1": 3, "0.3": 3, "1": 10, "+Inf": 10 }, 0.25), [0, 2]);
  const doc = (p50: number) => ({
    metrics: {
      lat: {
        type: "histogram",
        series: [{ stats: { p50_estimate: p50 }, buckets: { "0.1": 2, "0.3": 9, "+Inf": 10 } }],
      },
    },
  });
  const [check] = comparePercentiles(doc(0.25), doc(0.12));
  assert.deepEqual([check.withinOneBucket, check.rankBucketsApart], [true, 0]);
  assert.equal(comparePercentiles(doc(0.25), doc(0.7))[0].withinOneBucket, false);
});
