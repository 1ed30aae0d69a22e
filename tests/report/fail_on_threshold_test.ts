import assert from "node:assert/strict";
import { checkThresholds, parseFailOn } from "../../src/report/fail_on_threshold.ts";
import { ReportError } from "../../src/report/report_error.ts";
import { runWith } from "./run_fixture.ts";
import type { CompareNoise } from "../../src/report/compare_noise.ts";

Deno.test("parseFailOn: percent is relative, a signed number a change, an unsigned number the value", () => {
  assert.deepEqual(parseFailOn("ttft.p99>+10%"), {
    text: "ttft.p99>+10%",
    tag: "time_to_first_token",
    stat: "p99",
    op: ">",
    kind: "relative",
    limit: 0.1,
  });
  const drop = parseFailOn("output_token_throughput.avg<-5%");
  assert.equal(drop.kind, "relative");
  assert.equal(drop.limit, -0.05);
  const delta = parseFailOn("ITL.p50>=+0.5");
  assert.deepEqual([delta.tag, delta.op, delta.kind, delta.limit], ["inter_token_latency", ">=", "delta", 0.5]);
  const value = parseFailOn("latency.value<=500");
  assert.deepEqual([value.tag, value.stat, value.kind, value.limit], ["request_latency", "avg", "value", 500]);
});

Deno.test("parseFailOn: a malformed condition says which form is expected", () => {
  for (const bad of ["ttft>10%", "ttft.p99 10%", "ttft.p99>ten", ".p99>1", "ttft.median>1"]) {
    assert.throws(
      () => parseFailOn(bad),
      (e: unknown) => e instanceof ReportError && /<metric>\.<stat>/.test(e.message),
    );
  }
});

Deno.test("checkThresholds: each later run against the first; crossing is strict for > and inclusive for >=", () => {
  const a = runWith({ avg: 40, p99: 100 }, 200);
  const b = runWith({ avg: 44, p99: 110 }, 190); // p99 +10 %, throughput −5 %
  const c = runWith({ avg: 40, p99: 111 }, 100);
  const labels = ["A", "B", "C"];
  const over = checkThresholds([a, b, c], labels, [parseFailOn("ttft.p99>+10%")]).breaches;
  assert.deepEqual(over.map((x) => x.run), [2]); // B is exactly +10 %: not more
  assert.match(over[0].message, /run C 111 vs 100 ms \(\+11\.0%; no interval: no per-request records were read/);
  assert.deepEqual(checkThresholds([a, b, c], labels, [parseFailOn("ttft.p99>=+10%")]).breaches.map((x) => x.run), [
    1,
    2,
  ]);
  assert.deepEqual(checkThresholds([a, b, c], labels, [parseFailOn("throughput.avg<-5%")]).breaches.map((x) => x.run), [
    2,
  ]);
  assert.deepEqual(checkThresholds([a, b, c], labels, [parseFailOn("ttft.avg>+3")]).breaches.map((x) => x.run), [1]);
  assert.deepEqual(checkThresholds([a, b, c], labels, [parseFailOn("ttft.p99>105")]).breaches.map((x) => x.run), [
    1,
    2,
  ]);
});

Deno.test("checkThresholds: a missing statistic fails; a change needs a baseline, a value does not", () => {
  const a = runWith({ avg: 40 }, 200);
  const b = runWith({ avg: 40 }, 200);
  const missing = checkThresholds([a, b], ["A", "B"], [parseFailOn("ttft.p99>+10%")]).breaches;
  assert.equal(missing.length, 1);
  assert.match(missing[0].message, /has no time_to_first_token\.p99/);
  assert.throws(() => checkThresholds([a], ["A"], [parseFailOn("ttft.avg>+10%")]), /at least two runs/);
  assert.deepEqual(checkThresholds([a], ["A"], [parseFailOn("ttft.avg>30")]).breaches.map((x) => x.run), [0]);
});

/** A noise model that gives every difference the same interval: `[delta − half, delta + half]`. */
function fixedNoise(half: number): CompareNoise {
  return {
    level: 0.95,
    recordFiles: [],
    interval: (_need, _i, delta, base) => ({
      low: delta - half,
      high: delta + half,
      relativeLow: (delta - half) / Math.abs(base),
      relativeHigh: (delta + half) / Math.abs(base),
      method: "bootstrap",
      level: 0.95,
    }),
  };
}

Deno.test("checkThresholds: a change fails only when its whole interval is past the limit; within the noise it is said", () => {
  const a = runWith({ avg: 40, p99: 100 }, 200);
  const b = runWith({ avg: 40, p99: 120 }, 200); // +20 %
  const gate = [parseFailOn("ttft.p99>+10%")];
  // ±5 ms: the interval of the change is +15 % … +25 %, all past +10 %: a breach, with its interval.
  const beyond = checkThresholds([a, b], ["A", "B"], gate, fixedNoise(5));
  assert.deepEqual(beyond.breaches.map((x) => x.run), [1]);
  assert.match(beyond.breaches[0].message, /\(\+20\.0%, 95% CI \+15\.0% … \+25\.0%\)/);
  // ±15 ms: +5 % … +35 % reaches below the limit: noise could have crossed it, so no failure, but a note.
  const within = checkThresholds([a, b], ["A", "B"], gate, fixedNoise(15));
  assert.deepEqual(within.breaches, []);
  assert.match(within.withinNoise[0].message, /\+5\.0% … \+35\.0%: within the noise, not failed/);
  // A drop limit looks at the high end: 200 → 150 tokens/s (−25 %) ± 10 is −30 % … −20 %, all below −5 %.
  const c = runWith({ avg: 40 }, 150);
  const drop = checkThresholds([a, c], ["A", "C"], [parseFailOn("throughput.avg<-5%")], fixedNoise(10));
  assert.deepEqual(drop.breaches.map((x) => x.run), [1]);
  // A value limit judges the value as measured, whatever the noise.
  const value = checkThresholds([a, b], ["A", "B"], [parseFailOn("ttft.p99>110")], fixedNoise(50));
  assert.deepEqual(value.breaches.map((x) => x.run), [1]);
});
