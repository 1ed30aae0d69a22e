import assert from "node:assert/strict";
import { goodputTags, parseGoodput, resolveGoodput } from "../../src/metrics/goodput.ts";
import { METRIC_REGISTRY } from "../../src/metrics/metric_registry.ts";
import type { MetricSelection } from "../../src/metrics/metric_def.ts";

const STREAMING: MetricSelection = {
  streaming: true,
  producesTokens: true,
  tokenizesInput: true,
  supportsReasoning: false,
  goodput: true,
};

Deno.test("goodput parses space-separated tag:value pairs in display units", () => {
  assert.deepEqual(parseGoodput("request_latency:250 inter_token_latency:10"), [
    { tag: "request_latency", value: 250 },
    { tag: "inter_token_latency", value: 10 },
  ]);
});

Deno.test("goodput accepts repeated flags and commas, the last value of a tag winning", () => {
  assert.deepEqual(parseGoodput(["time_to_first_token:100,request_latency:2.5", "time_to_first_token:80"]), [
    { tag: "request_latency", value: 2.5 },
    { tag: "time_to_first_token", value: 80 },
  ]);
});

Deno.test("goodput rejects an unknown tag and lists the valid ones", () => {
  assert.throws(
    () => parseGoodput("request_latncy:250"),
    (e: Error) =>
      e instanceof RangeError && e.message.includes('"request_latncy"') && e.message.includes("request_latency") &&
      e.message.includes("inter_token_latency"),
  );
});

Deno.test("goodput rejects malformed pairs, run-level metrics and bad values", () => {
  assert.throws(() => parseGoodput("request_latency"), SyntaxError);
  assert.throws(() => parseGoodput("request_throughput:5"), RangeError);
  assert.throws(() => parseGoodput("request_latency:-1"), RangeError);
  assert.throws(() => parseGoodput("request_latency:fast"), RangeError);
});

Deno.test("goodput tags are single-valued record metrics of successful requests", () => {
  const valid = goodputTags();
  assert.ok(valid.includes("output_token_throughput_per_user"));
  assert.ok(!valid.includes("inter_chunk_latency"));
  assert.ok(!valid.includes("error_isl"));
  assert.ok(!valid.includes("goodput"));
});

Deno.test("goodput evaluation: every SLO must hold, in the metric's better direction", () => {
  const selected = METRIC_REGISTRY.selectMetrics(STREAMING);
  const { evaluator, warnings } = resolveGoodput(
    parseGoodput("request_latency:250 output_token_throughput_per_user:50"),
    selected,
  );
  assert.deepEqual(warnings, []);
  assert.ok(evaluator);
  // latency ≤ 250 and per-user ≥ 50
  assert.equal(evaluator({ request_latency: 250, output_token_throughput_per_user: 50 }), true);
  assert.equal(evaluator({ request_latency: 251, output_token_throughput_per_user: 60 }), false);
  assert.equal(evaluator({ request_latency: 100, output_token_throughput_per_user: 49.9 }), false);
  // a constrained metric missing from the record → not good
  assert.equal(evaluator({ request_latency: 100 }), false);
});

Deno.test("goodput ignores SLOs on metrics that do not apply, with a warning", () => {
  const selected = METRIC_REGISTRY.selectMetrics({ ...STREAMING, streaming: false });
  const resolved = resolveGoodput(parseGoodput("request_latency:250 inter_token_latency:10"), selected);
  assert.deepEqual(resolved.applied, [{ tag: "request_latency", value: 250 }]);
  assert.equal(resolved.warnings.length, 1);
  assert.match(resolved.warnings[0], /inter_token_latency:10 is ignored/);
  assert.equal(resolved.evaluator?.({ request_latency: 10 }), true);
  const none = resolveGoodput(parseGoodput("inter_token_latency:10"), selected);
  assert.equal(none.evaluator, undefined);
});
