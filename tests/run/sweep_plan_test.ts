import assert from "node:assert/strict";
import { planSweep, withOptionValues } from "../../src/run/sweep_plan.ts";
import { ConfigError } from "../../src/config/config_error.ts";
import { loadReport } from "../../src/run/sinks/load_sink.ts";

Deno.test("sweep plan: one list gives one point per value, named <name>_<value>, the list replaced", () => {
  const plan = planSweep(["-m", "m", "--concurrency", "1,4,16", "--osl", "5"]);
  assert.deepEqual(plan.points.map((p) => p.label), ["concurrency_1", "concurrency_4", "concurrency_16"]);
  assert.deepEqual(plan.points[1].args, ["-m", "m", "--concurrency", "4", "--osl", "5"]);
  assert.deepEqual(plan.parameters, [{ name: "concurrency", flag: "--concurrency", values: [1, 4, 16] }]);
  const none = planSweep(["-m", "m", "--concurrency", "4"]);
  assert.deepEqual(none.parameters, []);
  assert.deepEqual(none.points[0].args, ["-m", "m", "--concurrency", "4"]);
});

Deno.test("sweep plan: several lists make a grid (first outermost) or, with --sweep-type zip, pairs", () => {
  const grid = planSweep(["--concurrency", "1,2", "--request-rate=2,8"]);
  assert.deepEqual(grid.points.map((p) => p.label), [
    "concurrency_1__request_rate_2.0",
    "concurrency_1__request_rate_8.0",
    "concurrency_2__request_rate_2.0",
    "concurrency_2__request_rate_8.0",
  ]);
  assert.deepEqual(grid.points[3].args, ["--concurrency", "2", "--request-rate=8.0"]);
  const zip = planSweep(["--concurrency", "1,2", "--request-rate", "2,8", "--sweep-type", "zip"]);
  assert.deepEqual(zip.points.map((p) => p.values), [{ concurrency: 1, request_rate: 2 }, {
    concurrency: 2,
    request_rate: 8,
  }]);
  assert.throws(
    () => planSweep(["--concurrency", "1,2,3", "--request-rate", "2,8", "--sweep-type", "zip"]),
    ConfigError,
  );
  assert.throws(() => planSweep(["--concurrency", "1,x"]), /'x' is not an integer/);
  assert.throws(() => planSweep(["--concurrency", "1.5,2"]), ConfigError);
});

Deno.test("load report: achieved rate over the gaps, peak and time-weighted in-flight, lag, the warning", () => {
  // Four requests started at 0, 100, 200, 300 ms, each lasting 150 ms: 3 gaps in 0.3 s = 10 req/s; at most 2 in
  // flight; busy 600 ms over 450 ms = 1.333 in flight on average.
  const starts = Float64Array.of(0, 100, 200, 300);
  const ends = Float64Array.of(150, 250, 350, 450);
  const ok = loadReport(starts, ends, Float64Array.of(0, 0, 1, 0), 10, 1);
  assert.equal(ok.achievedRate, 10);
  assert.equal(ok.peakInFlight, 2);
  assert.equal(ok.avgInFlight, 600 / 450);
  assert.equal(ok.cancelledRequests, 1);
  assert.equal(ok.warning, undefined);
  // A request ending exactly when another starts is not counted as overlapping it.
  assert.equal(
    loadReport(Float64Array.of(0, 100), Float64Array.of(100, 200), new Float64Array(), undefined, 0).peakInFlight,
    1,
  );
  // Late requests: lag p90 far above half the 100 ms gap.
  const late = loadReport(starts, ends, Float64Array.of(80, 90, 120, 200), 10, 0);
  assert.match(late.warning ?? "", /late: schedule lag p90/);
  // Too slow: 20 requests 200 ms apart against 10 req/s.
  const slow = Float64Array.from({ length: 20 }, (_, i) => i * 200);
  const slowReport = loadReport(slow, slow.map((s) => s + 10), new Float64Array(), 10, 0);
  assert.match(slowReport.warning ?? "", /5\.00 req\/s against a target of 10/);
});

Deno.test("withOptionValues replaces every spelling of an option and appends the probe's value", () => {
  assert.deepEqual(
    withOptionValues(["-m", "x", "--concurrency", "1,4", "--isl=32", "--streaming"], [
      { key: "concurrency", value: "12" },
      { key: "syntheticInputTokensMean", value: "128" },
    ]),
    ["-m", "x", "--streaming", "--concurrency", "12", "--prompt-input-tokens-mean", "128"],
  );
  assert.deepEqual(withOptionValues(["-m", "x", "--", "rest"], [{ key: "concurrency", value: "2" }]), [
    "-m",
    "x",
    "--concurrency",
    "2",
    "--",
    "rest",
  ]);
});
