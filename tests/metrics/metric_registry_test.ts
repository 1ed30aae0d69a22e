import assert from "node:assert/strict";
import type { MetricDef, MetricSelection } from "../../src/metrics/metric_def.ts";
import { createMetricRegistry, METRIC_REGISTRY, sortMetricGraph } from "../../src/metrics/metric_registry.ts";

const ALL_ON: MetricSelection = {
  streaming: true,
  producesTokens: true,
  tokenizesInput: true,
  supportsReasoning: true,
  producesVideos: true,
  goodput: true,
  multiTurn: true,
  supportsAudio: true,
};

const tags = (defs: readonly MetricDef[]) => defs.map((d) => d.tag);

/** A minimal derived metric for graph tests. */
function derived(tag: string, requires: readonly string[], reads?: readonly string[]): MetricDef {
  return {
    tag,
    header: tag,
    unit: "ms",
    kind: "derived",
    requires,
    ...(reads ? { reads } : {}),
    flags: {},
    displayOrder: 0,
    compute: () => 1,
  };
}

function record(tag: string, requires: readonly string[] = []): MetricDef {
  return {
    tag,
    header: tag,
    unit: "ms",
    kind: "record",
    requires,
    flags: {},
    displayOrder: 0,
    compute: () => 1,
  };
}

Deno.test("metric registry selects every metric when every capability is on", () => {
  assert.equal(METRIC_REGISTRY.selectMetrics(ALL_ON).length, METRIC_REGISTRY.all.length);
});

Deno.test("metric registry drops the usage-difference metrics with server token counts, as AIPerf", () => {
  const selected = tags(METRIC_REGISTRY.selectMetrics({ ...ALL_ON, serverTokenCounts: true }));
  for (
    const tag of [
      "usage_prompt_tokens_diff_pct",
      "usage_completion_tokens_diff_pct",
      "usage_reasoning_tokens_diff_pct",
      "usage_discrepancy_count",
    ]
  ) {
    assert.ok(!selected.includes(tag), tag);
    assert.ok(tags(METRIC_REGISTRY.selectMetrics(ALL_ON)).includes(tag), tag);
  }
  assert.ok(selected.includes("usage_prompt_tokens"));
});

Deno.test("metric registry reports audio usage only for endpoints that carry audio", () => {
  const without = tags(METRIC_REGISTRY.selectMetrics({ ...ALL_ON, supportsAudio: false }));
  for (const tag of ["usage_prompt_audio_tokens", "total_usage_completion_audio_tokens"]) {
    assert.ok(!without.includes(tag), tag);
  }
  assert.ok(without.includes("usage_prompt_cache_read_tokens"));
});

Deno.test("metric registry never publishes streaming-only metrics for non-streaming runs", () => {
  const selected = METRIC_REGISTRY.selectMetrics({ ...ALL_ON, streaming: false });
  for (const def of selected) assert.ok(!def.flags.streamingOnly, def.tag);
  for (const tag of ["time_to_first_token", "time_to_second_token", "inter_token_latency", "inter_chunk_latency"]) {
    assert.ok(!tags(selected).includes(tag), tag);
  }
  // per-user throughput is not flagged streaming-only itself but requires ITL, so it cascades out too
  assert.ok(!tags(selected).includes("output_token_throughput_per_user"));
  for (const tag of ["request_latency", "output_sequence_length", "request_throughput", "output_token_throughput"]) {
    assert.ok(tags(selected).includes(tag), tag);
  }
});

Deno.test("metric registry drops token metrics for endpoints that produce no tokens", () => {
  const selected = tags(METRIC_REGISTRY.selectMetrics({ ...ALL_ON, producesTokens: false, streaming: false }));
  assert.ok(!selected.includes("output_sequence_length"));
  assert.ok(!selected.includes("output_token_throughput"));
  assert.ok(!selected.includes("total_osl"));
  assert.ok(selected.includes("request_latency"));
});

Deno.test("metric registry selects goodput and reasoning metrics only when asked", () => {
  const plain = tags(METRIC_REGISTRY.selectMetrics({ ...ALL_ON, goodput: false, supportsReasoning: false }));
  for (const tag of ["goodput", "good_request_count", "good_request_fraction", "reasoning_token_count"]) {
    assert.ok(!plain.includes(tag), tag);
  }
  assert.ok(!plain.includes("total_reasoning_tokens"));
});

Deno.test("metric registry orders every metric after the metrics it depends on", () => {
  const order = tags(METRIC_REGISTRY.all);
  for (const def of METRIC_REGISTRY.all) {
    for (const dep of [...def.requires, ...(def.reads ?? [])]) {
      assert.ok(order.indexOf(dep) < order.indexOf(def.tag), `${dep} before ${def.tag}`);
    }
  }
});

Deno.test("metric graph rejects a dependency cycle", () => {
  assert.throws(
    () => sortMetricGraph([derived("a", ["b"]), derived("b", ["c"]), derived("c", ["a"]), derived("d", [])]),
    (e: Error) => e instanceof RangeError && /cycle among: a, b, c;/.test(e.message),
  );
});

Deno.test("metric graph rejects an unknown tag, in requires and in reads", () => {
  assert.throws(() => createMetricRegistry([derived("a", ["nope"])]), /"a" depends on unknown tag "nope"/);
  assert.throws(() => createMetricRegistry([derived("a", [], ["nope"])]), /unknown tag "nope"/);
});

Deno.test("metric graph rejects duplicate tags and record metrics reading run-level metrics", () => {
  assert.throws(() => sortMetricGraph([record("a"), record("a")]), /declared twice/);
  assert.throws(() => sortMetricGraph([derived("d", []), record("r", ["d"])]), /"r" \(record\) cannot depend on "d"/);
});

Deno.test("metric graph sorts dependencies first and keeps declaration order otherwise", () => {
  const sorted = sortMetricGraph([derived("c", ["a", "b"]), record("b", ["a"]), record("a"), record("z")]);
  assert.deepEqual(tags(sorted), ["a", "z", "b", "c"]);
});
