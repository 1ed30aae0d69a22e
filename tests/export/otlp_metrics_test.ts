import assert from "node:assert/strict";
import {
  bucketIndex,
  CUMULATIVE,
  epochNanos,
  exportRequest,
  MeterState,
  otlpMetricsUrl,
} from "../../src/export/otlp_metrics.ts";
import { encodeExportRequest } from "../../src/export/otlp_protobuf.ts";
import { DEFAULT_HISTOGRAM_BOUNDS } from "../../src/export/genai_semconv.ts";
import { decodeMessage } from "./_otlp_decode.ts";

Deno.test("otlp bucket index puts a value on a bound into that bound's bucket and values above the last into the overflow", () => {
  const bounds = [1, 5, 10];
  assert.deepEqual([0, 1, 1.5, 5, 5.01, 10, 11].map((v) => bucketIndex(bounds, v)), [0, 0, 1, 1, 2, 2, 3]);
  assert.equal(bucketIndex(DEFAULT_HISTOGRAM_BOUNDS, 0), 0);
  assert.equal(bucketIndex(DEFAULT_HISTOGRAM_BOUNDS, 1e9), DEFAULT_HISTOGRAM_BOUNDS.length);
});

Deno.test("otlp meter aggregates each attribute set cumulatively with count, sum, min, max and buckets", () => {
  let now = 1_000;
  const meter = new MeterState(() => now);
  const a = { "aiperf.benchmark_phase": "profiling" };
  const b = { "aiperf.benchmark_phase": "warmup" };
  meter.record("h", "s", "d", [1, 2], 0.5, a);
  now = 2_000;
  meter.record("h", "s", "d", [1, 2], 1.5, { ...a }); // same set, keys compared by value
  meter.record("h", "s", "d", [1, 2], 3, b);
  meter.add("counter", "c", "1", "d", 2, a);
  meter.add("counter", "c", "1", "d", 3, a);
  meter.add("upDown", "g", "1", "d", 4, a);
  meter.add("upDown", "g", "1", "d", -4, a);
  const [h, c, g] = meter.collect(5_000.5);
  const [pa, pb] = h.histogram!.dataPoints;
  assert.equal(h.histogram!.aggregationTemporality, CUMULATIVE);
  assert.deepEqual(
    { count: pa.count, sum: pa.sum, min: pa.min, max: pa.max, buckets: pa.bucketCounts, start: pa.startTimeUnixNano },
    { count: "2", sum: 2, min: 0.5, max: 1.5, buckets: ["1", "1", "0"], start: "1000000000" },
  );
  assert.deepEqual([pb.count, pb.bucketCounts], ["1", ["0", "0", "1"]]);
  assert.equal(pa.timeUnixNano, "5000500000");
  assert.deepEqual([c.sum!.dataPoints[0].asDouble, c.sum!.isMonotonic], [5, true]);
  assert.deepEqual([g.sum!.dataPoints[0].asDouble, g.sum!.isMonotonic], [0, false]);
  assert.equal(meter.value("c", a), 5);
});

Deno.test("otlp epoch nanoseconds keep microseconds and stay exact past 2^53", () => {
  assert.equal(epochNanos(1_795_872_596_476.253), "1795872596476253000");
  assert.equal(epochNanos(0), "0");
});

Deno.test("otlp attributes send whole numbers as intValue strings, fractions as doubles, booleans and strings as such", () => {
  const req = exportRequest({ n: 12, f: 1.5, b: false, s: "x" }, "scope", []);
  assert.deepEqual(req.resourceMetrics[0].resource.attributes, [
    { key: "n", value: { intValue: "12" } },
    { key: "f", value: { doubleValue: 1.5 } },
    { key: "b", value: { boolValue: false } },
    { key: "s", value: { stringValue: "x" } },
  ]);
});

Deno.test("otlp protobuf encoding decodes to the same request as the JSON encoding", () => {
  const meter = new MeterState(() => 1_700_000_000_000.25);
  meter.record("gen_ai.client.operation.duration", "s", "d", [0.01, 0.02], 0.015, {
    "aiperf.has_error": false,
    "aiperf.total": 3,
  });
  meter.add("counter", "aiperf.timing.requests.sent", "1", "c", 7, { "aiperf.benchmark_phase": "profiling" });
  meter.add("upDown", "aiperf.timing.requests.in_flight", "1", "g", 2, { x: -1.25 });
  const request = exportRequest({ "service.name": "infermeter" }, "aiperf.records", meter.collect(1_700_000_001_000));
  const decoded = decodeMessage(encodeExportRequest(request));
  const json = JSON.parse(JSON.stringify(request));
  // protobuf leaves a false `isMonotonic` out (proto3 default)
  delete json.resourceMetrics[0].scopeMetrics[0].metrics[2].sum.isMonotonic;
  assert.deepEqual(decoded, json);
});

Deno.test("otel url is read as AIPerf reads it: http added, /v1/metrics appended once, other schemes refused", () => {
  const cases: [string, string][] = [
    ["127.0.0.1:4318", "http://127.0.0.1:4318/v1/metrics"],
    ["http://127.0.0.1:4318/", "http://127.0.0.1:4318/v1/metrics"],
    ["https://collector/v1/metrics", "https://collector/v1/metrics"],
    ["http://collector:4318/otlp", "http://collector:4318/otlp/v1/metrics"],
  ];
  for (const [raw, want] of cases) assert.equal(otlpMetricsUrl(raw), want, raw);
  assert.throws(() => otlpMetricsUrl("grpc://collector:4317"), /only http and https/);
  assert.throws(() => otlpMetricsUrl("  "), /empty/);
});
