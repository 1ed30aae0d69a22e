import assert from "node:assert/strict";
import { renderServerMetricsTable } from "../../src/telemetry/telemetry_tables.ts";
import type { MetricSummary } from "../../src/telemetry/server_metrics_summary.ts";

const histogram = (p50: number, p99: number): MetricSummary => ({
  name: "vllm:e2e_request_latency_seconds",
  type: "histogram",
  description: "",
  unit: "seconds",
  series: [{
    endpointUrl: "http://127.0.0.1:8000/metrics",
    stats: { count: 10, sum: 3, avg: 0.3, p50_estimate: p50, p99_estimate: p99 },
    buckets: [["0.3", 6], ["0.5", 9], ["+Inf", 10]],
  }],
});

Deno.test("server metrics table labels histogram percentiles as estimates", () => {
  const text = renderServerMetricsTable([histogram(0.277, 0.45)])!;
  assert.match(text, /avg \/ p50 est\. \/ p99 est\./);
  assert.match(text, /300\.00 \/ 277\.00 \/ 450\.00 ms/);
});

Deno.test("server metrics table shows an estimate beyond the highest finite bucket as '> bound'", () => {
  // The +Inf bucket says only "more than 0.5 s": a back-calculated 1.7 s is not shown as a measurement.
  const text = renderServerMetricsTable([histogram(0.277, 1.7)])!;
  assert.match(text, /277\.00 \/ > 500\.00 ms/);
});
