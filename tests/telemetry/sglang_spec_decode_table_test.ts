import assert from "node:assert/strict";
import { endpointDisplay, renderSglangSpecDecodeTable } from "../../src/telemetry/sglang_spec_decode_table.ts";
import type { MetricSummary, SeriesSummary } from "../../src/telemetry/server_metrics_summary.ts";

function series(avg: number, labels: Record<string, string>, url = "http://127.0.0.1:30000/metrics"): SeriesSummary {
  return { endpointUrl: url, labels, stats: { avg, min: avg / 2, max: avg * 1.5, p50: avg, p90: avg * 1.25 } };
}

function gauge(name: string, s: SeriesSummary[]): MetricSummary {
  return { name, type: "gauge", description: "", series: s };
}

const MODEL = { model_name: "Qwen/Qwen3-8B", tp_rank: "0" };

Deno.test("SGLang's acceptance gauges: rate as a percentage with one decimal, length with two, leader ranks only", () => {
  const table = renderSglangSpecDecodeTable(
    [
      gauge("sglang:spec_accept_rate", [series(0.625, MODEL), series(0.625, { ...MODEL, tp_rank: "1" })]),
      gauge("sglang:spec_accept_length", [series(2.8, MODEL)]),
    ],
    ["qwen/qwen3-8b"],
  )!;
  assert.match(table, /infermeter \| Server Metrics: Speculative Decoding/);
  // 0.625 × 100: mean 62.5, min 31.25 → 31.2 (half to even, as Python), max 93.75 → 93.8, p90 78.125 → 78.1.
  assert.match(table, /│ Accept Rate \(%\) +│ +62\.5 │ +31\.2 │ +93\.8 │ +62\.5 │ +78\.1 │/);
  assert.match(table, /│ Accept Length +│ +2\.80 │ +1\.40 │ +4\.20 │ +2\.80 │ +3\.50 │/);
  assert.equal(table.match(/Accept Rate/g)?.length, 1, "the tp_rank 1 series repeats the leader's and is left out");
});

Deno.test("SGLang's table: nothing before speculation ran, for another model, or without the gauges", () => {
  const idle = [
    gauge("sglang:spec_accept_length", [{ ...series(0, MODEL), stats: { avg: 0, min: 0, max: 0, p50: 0, p90: 0 } }]),
  ];
  assert.equal(renderSglangSpecDecodeTable(idle, ["Qwen/Qwen3-8B"]), undefined);
  assert.equal(
    renderSglangSpecDecodeTable([gauge("sglang:spec_accept_length", [series(3, MODEL)])], ["other"]),
    undefined,
  );
  assert.equal(renderSglangSpecDecodeTable([], ["Qwen/Qwen3-8B"]), undefined);
});

Deno.test("SGLang's table names what tells several series apart: the endpoint, differing labels, else the index", () => {
  const table = renderSglangSpecDecodeTable(
    [
      gauge("sglang:spec_accept_length", [
        series(3, { ...MODEL, dp_rank: "0" }, "http://a:1/metrics"),
        series(2, { ...MODEL, dp_rank: "1" }, "http://b:2/metrics"),
      ]),
      gauge("sglang:spec_accept_rate", [series(0.5, MODEL), series(0.4, MODEL)]),
    ],
    ["Qwen/Qwen3-8B"],
    200,
  )!;
  assert.match(table, /Accept Length \(endpoint=a:1, dp_rank=0\)/);
  assert.match(table, /Accept Length \(endpoint=b:2, dp_rank=1\)/);
  assert.match(table, /Accept Rate \(%\) \(series=1\)/);
  assert.match(table, /Accept Rate \(%\) \(series=2\)/);
  assert.equal(endpointDisplay("https://host:9400/api/metrics"), "host:9400/api");
});
