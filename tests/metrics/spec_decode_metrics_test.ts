/**
 * AIPerf's speculative-decoding metrics over records whose answers reported acceptance, worked out by hand; and no
 * metric at all for a run whose server reported none.
 */
import assert from "node:assert/strict";
import { MetricAccumulator } from "../../src/metrics/metric_accumulator.ts";
import { METRIC_REGISTRY } from "../../src/metrics/metric_registry.ts";
import type { MetricResult, RunSummary } from "../../src/metrics/run_summary.ts";
import type { SpecDecodeAcceptance } from "../../src/endpoints/spec_decode.ts";
import { makeRecord } from "./record_fixture.ts";

const metrics = METRIC_REGISTRY.selectMetrics({
  streaming: true,
  producesTokens: true,
  tokenizesInput: true,
  supportsReasoning: true,
  goodput: false,
});

function spec(steps: number[], k: number): SpecDecodeAcceptance {
  const accepted = steps.reduce((a, b) => a + b, 0);
  const histogram: Record<string, number> = {};
  for (const j of steps) histogram[String(j)] = (histogram[String(j)] ?? 0) + 1;
  return {
    engine: "vllm",
    meanAcceptanceLength: steps.length === 0 ? 1 : 1 + accepted / steps.length,
    draftAcceptanceRate: steps.length === 0 ? 0 : accepted / (k * steps.length),
    acceptanceHistogram: histogram,
    numAcceptedDraftTokens: accepted,
    numDraftTokens: k * steps.length,
    numSpecSteps: steps.length,
    numSpecTokens: k,
  };
}

function record(i: number, specDecode?: SpecDecodeAcceptance) {
  return makeRecord({
    requestIndex: i,
    startAt: 0,
    responseTimes: [10, 20],
    endAt: 20,
    outputTokens: 2,
    isl: 4,
    specDecode,
  });
}

function summarize(records: ReturnType<typeof record>[]): RunSummary {
  const acc = new MetricAccumulator(metrics);
  for (const r of records) acc.add(r);
  return acc.summarize();
}

function get(summary: RunSummary, tag: string): MetricResult {
  const m = summary.metrics.find((x) => x.tag === tag);
  assert.ok(m, `missing ${tag}`);
  return m;
}

const close = (a: number | undefined, b: number) => assert.ok(a !== undefined && Math.abs(a - b) < 1e-9, `${a} ≈ ${b}`);

Deno.test("spec-decode metrics: per-request means, token-weighted run figures and totals, by hand", () => {
  // k = 4. R1: 2 steps accepting 4 and 4 → a 8, d 8, s 2: length 5, rate 100 %, accepted/verified (8+2)/(8+2) = 1.
  // R2: 6 steps accepting 0,1,0,2,0,1 → a 4, d 24, s 6: length 1 + 4/6, rate 4/24 = 16.67 %, (4+6)/(24+6) = 1/3.
  const summary = summarize([record(0, spec([4, 4], 4)), record(1, spec([0, 1, 0, 2, 0, 1], 4))]);
  const length = get(summary, "spec_decode_acceptance_length");
  assert.equal(length.unit, "ratio");
  close(length.stats?.avg, (5 + 1 + 4 / 6) / 2);
  const rate = get(summary, "spec_decode_draft_acceptance_rate");
  assert.equal(rate.unit, "%");
  close(rate.stats?.avg, (100 + 100 * 4 / 24) / 2);
  close(get(summary, "spec_decode_accepted_per_verified").stats?.avg, (1 + 1 / 3) / 2);
  assert.equal(get(summary, "spec_decode_steps").stats?.sum, 8);
  assert.equal(get(summary, "spec_decode_steps").unit, "count");
  // Run level: Σa 12, Σd 32, Σs 8 → token-weighted length 1 + 12/8 = 2.5 (the per-request mean says 3.33),
  // overall rate 12/32 = 37.5 %.
  assert.equal(get(summary, "total_spec_decode_steps").value, 8);
  assert.equal(get(summary, "total_accepted_draft_tokens").value, 12);
  assert.equal(get(summary, "total_draft_tokens").value, 32);
  close(get(summary, "spec_decode_token_weighted_acceptance_length").value, 2.5);
  close(get(summary, "spec_decode_overall_draft_acceptance_rate").value, 37.5);
  assert.equal(get(summary, "spec_decode_acceptance_length").consoleGroup, "spec_decode");
  assert.equal(get(summary, "spec_decode_draft_tokens").consoleGroup, "none");
});

Deno.test("spec-decode metrics exist only when some request reported acceptance; a request without steps has no ratio", () => {
  const none = summarize([record(0), record(1)]);
  assert.deepEqual(none.metrics.filter((m) => /spec_decode|draft_tokens/.test(m.tag)).map((m) => m.tag), []);
  // A request with zero steps and zero drafts: no accepted-per-verified value, and no run-level ratios.
  const empty = summarize([record(0, spec([], 3))]);
  assert.equal(empty.metrics.find((m) => m.tag === "spec_decode_accepted_per_verified"), undefined);
  assert.equal(empty.metrics.find((m) => m.tag === "spec_decode_token_weighted_acceptance_length"), undefined);
  assert.equal(empty.metrics.find((m) => m.tag === "spec_decode_overall_draft_acceptance_rate"), undefined);
  assert.equal(get(empty, "total_spec_decode_steps").value, 0);
});
