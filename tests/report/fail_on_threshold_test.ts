import assert from "node:assert/strict";
import { checkThresholds, parseFailOn } from "../../src/report/fail_on_threshold.ts";
import { ReportError } from "../../src/report/report_error.ts";
import { runWith } from "./run_fixture.ts";

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
  const over = checkThresholds([a, b, c], labels, [parseFailOn("ttft.p99>+10%")]);
  assert.deepEqual(over.map((x) => x.run), [2]); // B is exactly +10 %: not more
  assert.match(over[0].message, /run C 111 vs 100 ms \(\+11\.0%\)/);
  assert.deepEqual(checkThresholds([a, b, c], labels, [parseFailOn("ttft.p99>=+10%")]).map((x) => x.run), [1, 2]);
  assert.deepEqual(checkThresholds([a, b, c], labels, [parseFailOn("throughput.avg<-5%")]).map((x) => x.run), [2]);
  assert.deepEqual(checkThresholds([a, b, c], labels, [parseFailOn("ttft.avg>+3")]).map((x) => x.run), [1]);
  assert.deepEqual(checkThresholds([a, b, c], labels, [parseFailOn("ttft.p99>105")]).map((x) => x.run), [1, 2]);
});

Deno.test("checkThresholds: a missing statistic fails; a change needs a baseline, a value does not", () => {
  const a = runWith({ avg: 40 }, 200);
  const b = runWith({ avg: 40 }, 200);
  const missing = checkThresholds([a, b], ["A", "B"], [parseFailOn("ttft.p99>+10%")]);
  assert.equal(missing.length, 1);
  assert.match(missing[0].message, /has no time_to_first_token\.p99/);
  assert.throws(() => checkThresholds([a], ["A"], [parseFailOn("ttft.avg>+10%")]), /at least two runs/);
  assert.deepEqual(checkThresholds([a], ["A"], [parseFailOn("ttft.avg>30")]).map((x) => x.run), [0]);
});
