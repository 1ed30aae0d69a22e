import assert from "node:assert/strict";
import { describeSla, meetsSla, parseSlaFilter, slaMargin } from "../../src/config/sla_filter.ts";

Deno.test("parseSlaFilter reads metric:stat:op:threshold and names what is wrong", () => {
  assert.deepEqual(parseSlaFilter("time_to_first_token:p95:lt:200"), {
    metric_tag: "time_to_first_token",
    stat: "p95",
    op: "lt",
    threshold: 200,
  });
  assert.throws(() => parseSlaFilter("time_to_first_token:p95:lt"), /expected 'metric_tag:stat:op:threshold'/);
  assert.throws(() => parseSlaFilter("ttft:p95:lt:1"), /unknown metric tag 'ttft'/);
  assert.throws(() => parseSlaFilter("request_latency:p42:lt:1"), /stat 'p42' is not one of/);
  assert.throws(() => parseSlaFilter("request_latency:p99:below:1"), /op 'below' is not one of lt, le, gt, ge/);
  assert.throws(() => parseSlaFilter("request_latency:p99:lt:fast"), /threshold 'fast' is not a number/);
});

Deno.test("meetsSla compares by the operator; an unmeasured value never meets it", () => {
  const lt = parseSlaFilter("request_latency:p99:lt:100");
  assert.equal(meetsSla(lt, 99.9), true);
  assert.equal(meetsSla(lt, 100), false);
  assert.equal(meetsSla(parseSlaFilter("request_latency:p99:le:100"), 100), true);
  assert.equal(meetsSla(parseSlaFilter("output_token_throughput:avg:ge:50"), 50), true);
  assert.equal(meetsSla(parseSlaFilter("output_token_throughput:avg:gt:50"), 50), false);
  assert.equal(meetsSla(lt, undefined), false);
  assert.equal(meetsSla(lt, Number.NaN), false);
});

Deno.test("slaMargin is negative inside the SLA and positive past it, relative to the threshold", () => {
  assert.equal(slaMargin(parseSlaFilter("time_to_first_token:p95:lt:200"), 150), -0.25);
  assert.equal(slaMargin(parseSlaFilter("time_to_first_token:p95:lt:200"), 300), 0.5);
  assert.ok(Math.abs(slaMargin(parseSlaFilter("good_request_fraction:avg:ge:0.8"), 0.6) - 0.25) < 1e-12);
});

Deno.test("describeSla says the statistic, the metric's short name and the limit with its unit", () => {
  assert.equal(describeSla(parseSlaFilter("time_to_first_token:p95:lt:200")), "p95 TTFT < 200 ms");
  assert.equal(describeSla(parseSlaFilter("request_error_rate:avg:lt:1")), "error rate < 1%");
  assert.equal(describeSla(parseSlaFilter("good_request_fraction:avg:ge:0.95")), "good-request fraction ≥ 0.95");
});
