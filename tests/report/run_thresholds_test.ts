import assert from "node:assert/strict";
import { evaluateThresholds, judgeThreshold, parseThreshold } from "../../src/report/run_thresholds.ts";
import { buildResultView } from "../../src/metrics/result_view.ts";

Deno.test("parseThreshold reads a metric, a statistic, an operator and a limit with its unit", () => {
  assert.deepEqual(parseThreshold("time_to_first_token.p99<500"), {
    text: "time_to_first_token.p99<500",
    tag: "time_to_first_token",
    stat: "p99",
    op: "<",
    limit: 500,
    unit: "ms",
  });
  // Short names, spaces, seconds converted to the metric's milliseconds, avg by default.
  assert.deepEqual(
    { ...parseThreshold(" ttft.p99 <= 0.5s ") },
    { text: "ttft.p99 <= 0.5s", tag: "time_to_first_token", stat: "p99", op: "<=", limit: 500, unit: "ms" },
  );
  assert.equal(parseThreshold("latency<2s").stat, "avg");
  assert.equal(parseThreshold("request_error_rate<1%").limit, 1);
  assert.equal(parseThreshold("output_token_throughput>=1000/s").op, ">=");
  assert.equal(parseThreshold("request_throughput.value>2").stat, "avg");
});

Deno.test("parseThreshold refuses what it cannot judge, saying why", () => {
  assert.throws(() => parseThreshold("ttft p99 500"), /is not <metric>\[\.<stat>\]<op><limit>/);
  assert.throws(() => parseThreshold("nosuch.p99<5"), /no metric 'nosuch'/);
  assert.throws(() => parseThreshold("ttft.p99<5%"), /time_to_first_token is in ms; '%' does not fit it/);
  assert.throws(() => parseThreshold("request_throughput.p99<5"), /one value per run/);
  assert.throws(() => parseThreshold("request_error_rate<5ms"), /'ms' does not fit/);
});

Deno.test("thresholds are judged on the run's own statistics; a missing value fails", () => {
  const view = buildResultView([
    { tag: "time_to_first_token", unit: "ms", stats: { p50: 20, p99: 480, avg: 30 }, single: false },
    { tag: "request_throughput", unit: "requests/sec", stats: { avg: 12.5 }, single: true },
  ], { requests: { ok: 10, errors: 0 } });
  const results = evaluateThresholds(
    ["ttft.p99<500", "ttft.p99<480", "ttft.p99<=480", "rps>=12.5", "rps!=12.5", "itl.p99<5"].map(parseThreshold),
    view,
  );
  assert.deepEqual(results.map((r) => [r.threshold.text, r.observed, r.ok]), [
    ["ttft.p99<500", 480, true],
    ["ttft.p99<480", 480, false],
    ["ttft.p99<=480", 480, true],
    ["rps>=12.5", 12.5, true],
    ["rps!=12.5", 12.5, false],
    ["itl.p99<5", undefined, false],
  ]);
  assert.equal(judgeThreshold(parseThreshold("ttft.p99<500"), Infinity).ok, false);
});
