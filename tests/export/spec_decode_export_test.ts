/** Speculative decoding in the exports: the JSONL record, the JSON's pooled histogram, the console section. */
import assert from "node:assert/strict";
import { RecordLineFormatter } from "../../src/export/jsonl_writer.ts";
import { acceptanceHistogramLine, renderSpecDecodeSection } from "../../src/export/spec_decode_console.ts";
import { summaryJsonObject } from "../../src/export/json_export.ts";
import { MetricAccumulator } from "../../src/metrics/metric_accumulator.ts";
import { METRIC_REGISTRY } from "../../src/metrics/metric_registry.ts";
import { buildResultView, viewMetricsOf } from "../../src/metrics/result_view.ts";
import type { SpecDecodeAcceptance } from "../../src/endpoints/spec_decode.ts";
import { AcceptancePool } from "../../src/run/outputs/spec_decode_output.ts";
import { makeRecord } from "../metrics/record_fixture.ts";

const metrics = METRIC_REGISTRY.selectMetrics({
  streaming: true,
  producesTokens: true,
  tokenizesInput: true,
  supportsReasoning: false,
  goodput: false,
});

const SPEC: SpecDecodeAcceptance = {
  engine: "vllm",
  meanAcceptanceLength: 2.5,
  draftAcceptanceRate: 0.5,
  acceptanceHistogram: { "0": 1, "3": 1 },
  numAcceptedDraftTokens: 3,
  numDraftTokens: 6,
  numSpecSteps: 2,
  numSpecTokens: 3,
  completionTokens: 5,
};

const record = (overrides = {}) =>
  makeRecord({ startAt: 0, responseTimes: [10, 20], endAt: 20, outputTokens: 5, isl: 4, ...overrides });

Deno.test("the JSONL line carries spec_decode_acceptance after the metrics, and before the error of a failure", () => {
  const f = new RecordLineFormatter({ metrics, timeOriginMs: 1_700_000_000_000 });
  const ok = record({ specDecode: SPEC });
  const line = JSON.parse(f.format(ok, new MetricAccumulator(metrics).add(ok)));
  assert.deepEqual(Object.keys(line), ["metadata", "metrics", "spec_decode_acceptance"]);
  assert.deepEqual(line.spec_decode_acceptance.acceptance_histogram, { "0": 1, "3": 1 });
  assert.equal(line.metrics.spec_decode_acceptance_length.value, 2.5);
  assert.equal(line.metrics.spec_decode_draft_acceptance_rate.unit, "%");
  const failed = record({ specDecode: SPEC, error: { type: "HTTPError", code: 500, message: "x" } });
  assert.deepEqual(Object.keys(JSON.parse(f.format(failed, {}))), [
    "metadata",
    "metrics",
    "spec_decode_acceptance",
    "error",
  ]);
  const plain = JSON.parse(f.format(record(), {}));
  assert.deepEqual(Object.keys(plain), ["metadata", "metrics"]);
});

Deno.test("the pooled histogram sums successful profiling requests only, in bucket order, into the JSON export", () => {
  const pool = new AcceptancePool();
  pool.measured(record({ specDecode: { ...SPEC, acceptanceHistogram: { "10": 2, "2": 1 } } }));
  pool.measured(record({ specDecode: SPEC }));
  pool.measured(record({ specDecode: SPEC, phase: "warmup" }));
  pool.measured(record({ specDecode: SPEC, error: { type: "HTTPError", message: "x" } }));
  pool.measured(record());
  const histogram = pool.histogram()!;
  assert.deepEqual(Object.entries(histogram), [["0", 1], ["2", 1], ["3", 1], ["10", 2]]);
  assert.equal(new AcceptancePool().histogram(), undefined);
  const acc = new MetricAccumulator(metrics);
  acc.add(record({ specDecode: SPEC }));
  const doc = summaryJsonObject(
    acc.summarize(),
    {
      infermeterVersion: "t",
      benchmarkId: "b",
      wasCancelled: false,
      inputConfig: {},
      runInfo: { cliCommand: "" },
      pooledSpecDecodeHistogram: histogram,
    } as Parameters<typeof summaryJsonObject>[1],
  );
  const keys = Object.keys(doc);
  assert.deepEqual(doc.pooled_spec_decode_acceptance_histogram, histogram);
  assert.ok(keys.indexOf("pooled_spec_decode_acceptance_histogram") < keys.indexOf("spec_decode_acceptance_length"));
});

Deno.test("the histogram line shows each bucket's share of steps, rounding as Python, folding from 8 up", () => {
  // 8 steps: 1, 3, 4 of them → 12.5 % rounds to 12 (half to even, as Python's format), 37.5 % to 38, 50 %.
  assert.equal(
    acceptanceHistogramLine({ "0": 1, "2": 3, "3": 4 }),
    "Accepted drafts per step (% of steps):  0: 12%   1: 0%   2: 38%   3: 50%",
  );
  assert.equal(
    acceptanceHistogramLine({ "1": 1, "8": 1, "12": 2 }),
    "Accepted drafts per step (% of steps):  0: 0%   1: 25%   2: 0%   3: 0%   4: 0%   5: 0%   6: 0%   7: 0%   >=8: 75%",
  );
  assert.equal(acceptanceHistogramLine({}), undefined);
});

Deno.test("the Spec Decode section: its table, then the histogram line; nothing without statistics", () => {
  const acc = new MetricAccumulator(metrics);
  acc.add(record({ specDecode: SPEC }));
  const rows = buildResultView(viewMetricsOf(acc.summarize()), { requests: { ok: 1, errors: 0 } }).rows;
  const text = renderSpecDecodeSection(rows, SPEC.acceptanceHistogram, { maxWidth: 140 });
  assert.match(text, /infermeter \| LLM Metrics: Spec Decode/);
  for (
    const name of [
      "Acceptance Length",
      "Token-Weighted Acceptance Length",
      "Draft Acceptance Rate",
      "Spec Decode Steps",
    ]
  ) {
    assert.match(text, new RegExp(name), name);
  }
  assert.doesNotMatch(text, /Draft Tokens/);
  assert.match(text, /\n {2}Accepted drafts per step \(% of steps\): {2}0: 50% {3}1: 0% {3}2: 0% {3}3: 50%\n$/);
  const plain = new MetricAccumulator(metrics);
  plain.add(record());
  const none = buildResultView(viewMetricsOf(plain.summarize()), { requests: { ok: 1, errors: 0 } }).rows;
  assert.equal(renderSpecDecodeSection(none, undefined), "");
  assert.ok(!none.some((r) => r.group === "spec_decode"));
});
