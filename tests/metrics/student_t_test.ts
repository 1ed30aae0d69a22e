import assert from "node:assert/strict";
import { lnGamma, regularizedBeta, studentTCdf, studentTQuantile } from "../../src/metrics/student_t.ts";
import { aggregateRuns, confidenceStats } from "../../src/metrics/confidence_aggregate.ts";
import type { RunSummary } from "../../src/metrics/run_summary.ts";

function close(actual: number, expected: number, rel: number, what: string) {
  assert.ok(Math.abs(actual - expected) <= rel * Math.abs(expected), `${what}: ${actual} vs ${expected}`);
}

Deno.test("lnGamma and the incomplete beta match closed forms", () => {
  close(lnGamma(0.5), Math.log(Math.sqrt(Math.PI)), 1e-14, "lnΓ(1/2)");
  close(lnGamma(5), Math.log(24), 1e-14, "lnΓ(5)");
  close(lnGamma(30.5), 72.9534711841694, 1e-13, "lnΓ(30.5) (Python math.lgamma)");
  // I_x(1/2, 1/2) = (2/π)·asin(√x); I_x(1, b) = 1 − (1 − x)^b.
  close(regularizedBeta(0.3, 0.5, 0.5), 2 / Math.PI * Math.asin(Math.sqrt(0.3)), 1e-13, "I(0.3; ½, ½)");
  close(regularizedBeta(0.7, 1, 3), 1 - 0.3 ** 3, 1e-13, "I(0.7; 1, 3)");
});

Deno.test("the t quantile matches table values (scipy t.ppf) to 1e-10", () => {
  // [p, df, t]: t-table values as printed by scipy.stats.t.ppf.
  const table: [number, number, number][] = [
    [0.975, 1, 12.706204736174694],
    [0.975, 2, 4.302652729749462],
    [0.975, 4, 2.7764451051977934],
    [0.975, 9, 2.262157162798205],
    [0.95, 2, 2.9199855803537242],
    [0.995, 2, 9.924843200918287],
    [0.995, 30, 2.7499956535672254],
    [0.975, 1000, 1.9623390808264083],
    [0.9995, 1, 636.6192487687897],
    [0.6, 5, 0.2671808657041451],
  ];
  for (const [p, df, t] of table) {
    close(studentTQuantile(p, df), t, 1e-10, `t(${p}, ${df})`);
    close(studentTQuantile(1 - p, df), -t, 1e-10, `t(${1 - p}, ${df})`);
    close(studentTCdf(t, df), p, 1e-12, `F(${t}; ${df})`);
  }
  // df = 1 is the Cauchy distribution: t = tan(π(p − ½)).
  close(studentTQuantile(0.9, 1), Math.tan(Math.PI * 0.4), 1e-12, "Cauchy");
  assert.equal(studentTQuantile(0.5, 7), 0);
  assert.throws(() => studentTQuantile(1, 3), RangeError);
});

Deno.test("confidence statistics: mean, sample std, CV, SE and the Student-t interval by hand", () => {
  // x = 1, 2, 3: mean 2, std √(2/2) = 1, se 1/√3, t(0.975, 2) = 4.302652729749462.
  const s = confidenceStats([1, 2, 3], 0.95, "ms");
  assert.equal(s.mean, 2);
  close(s.std, 1, 1e-15, "std");
  close(s.cv, 0.5, 1e-15, "cv");
  close(s.se, 1 / Math.sqrt(3), 1e-15, "se");
  close(s.tCritical, 4.302652729749462, 1e-10, "t");
  close(s.ciLow, 2 - 4.302652729749462 / Math.sqrt(3), 1e-10, "ci_low");
  close(s.ciHigh, 2 + 4.302652729749462 / Math.sqrt(3), 1e-10, "ci_high");
  // One run: the interval collapses to the value, t is undefined (AIPerf's single-run mode).
  const one = confidenceStats([5], 0.95);
  assert.deepEqual([one.std, one.ciLow, one.ciHigh, Number.isNaN(one.tCritical)], [0, 5, 5, true]);
});

Deno.test("aggregateRuns keys every metric statistic as <tag>_<stat> and lists failed runs apart", () => {
  const summary = (avg: number): RunSummary => ({
    metrics: [
      {
        tag: "request_latency",
        header: "Request Latency",
        unit: "ms",
        kind: "record",
        flags: 0 as never,
        consoleGroup: "llm",
        displayOrder: 1,
        stats: {
          avg,
          min: avg,
          max: avg,
          p1: avg,
          p5: avg,
          p10: avg,
          p25: avg,
          p50: avg,
          p75: avg,
          p90: avg,
          p95: avg,
          p99: avg,
          std: 0,
          count: 1,
          sum: avg,
        },
      },
      {
        tag: "request_throughput",
        header: "Request Throughput",
        unit: "requests/sec",
        kind: "derived",
        flags: 0 as never,
        consoleGroup: "llm",
        displayOrder: 2,
        value: avg / 10,
      },
    ],
    errors: [],
    successCount: 1,
    errorCount: 0,
  });
  const agg = aggregateRuns([
    { label: "run_0001", summary: summary(10) },
    { label: "run_0002", error: "all_failed" },
    { label: "run_0003", summary: summary(20) },
  ], 0.9);
  assert.deepEqual(agg.successfulLabels, ["run_0001", "run_0003"]);
  assert.deepEqual(agg.failedRuns, [{ label: "run_0002", error: "all_failed" }]);
  assert.equal(agg.metrics.get("request_latency_p99")!.mean, 15);
  assert.equal(agg.metrics.get("request_throughput_avg")!.mean, 1.5);
  assert.equal(agg.metrics.get("request_throughput_avg")!.unit, "requests/sec");
  assert.ok(!agg.metrics.has("request_throughput_p99"), "aggregate metrics only have avg");
  close(agg.metrics.get("request_latency_avg")!.tCritical, 6.313751514675041, 1e-10, "t(0.95, 1)");
});
