import assert from "node:assert/strict";
import { LiveRun } from "../../src/run/live_run.ts";
import { RecordBus } from "../../src/run/record_bus.ts";
import { MetricsSink } from "../../src/run/sinks/metrics_sink.ts";
import { FailureGateSink } from "../../src/run/sinks/failure_gate_sink.ts";
import { DispatchSink } from "../../src/run/sinks/dispatch_sink.ts";
import { METRIC_REGISTRY } from "../../src/metrics/metric_registry.ts";
import type { PhaseSpec } from "../../src/timing/phase_spec.ts";
import { makeRecord } from "../metrics/record_fixture.ts";

const metrics = METRIC_REGISTRY.selectMetrics({
  streaming: true,
  producesTokens: true,
  tokenizesInput: true,
  supportsReasoning: false,
  goodput: false,
});
const phases: PhaseSpec[] = [
  { name: "warmup", strategy: { name: "concurrency", options: { concurrency: 1 } }, stops: { requestCount: 1 } },
  { name: "profiling", strategy: { name: "concurrency", options: { concurrency: 2 } }, stops: { requestCount: 3 } },
] as unknown as PhaseSpec[];

Deno.test("the live view follows phases, arrivals and measured figures; warmup stays out of profiling figures", () => {
  const sink = new MetricsSink(metrics, { timeOriginMs: 1000, warmup: true });
  const live = new LiveRun({ metrics: sink, phases, timeOriginMs: 1000 });
  const bus = new RecordBus([sink, live], sink.measure);
  assert.equal(live.snapshot().state, "starting");

  bus.phaseStarted("warmup", 1);
  const w = makeRecord({ phase: "warmup", startAt: 1, responseTimes: [3, 4], endAt: 4, outputTokens: 2, isl: 5 });
  bus.arrived(w);
  bus.measured(w);
  bus.phaseStarted("profiling", 10);
  // request latency 100 and 300 ms; one error
  const a = makeRecord({ startAt: 10, responseTimes: [50, 110], endAt: 110, outputTokens: 2, isl: 5 });
  const b = makeRecord({ startAt: 20, responseTimes: [100, 320], endAt: 320, outputTokens: 2, isl: 5 });
  const e = makeRecord({ startAt: 30, endAt: 40, error: { type: "HTTPError", code: 500, message: "x" } });
  for (const r of [a, b, e]) bus.arrived(r);
  bus.measured(a);
  let snap = live.snapshot();
  assert.equal(snap.state, "profiling");
  assert.deepEqual(snap.phases.map((p) => [p.name, p.startedAtMs, p.completed, p.errors, p.expected]), [
    ["warmup", 1001, 1, 0, 1],
    ["profiling", 1010, 3, 1, 3],
  ]);
  // Measured figures lag arrivals (token counting); only `a` is measured so far.
  assert.equal(snap.metrics.successCount, 1);
  assert.equal(snap.metrics.averages.request_latency, 100);
  bus.measured(b);
  bus.measured(e);
  snap = live.snapshot();
  assert.equal(snap.metrics.successCount, 2);
  assert.equal(snap.metrics.errorCount, 1);
  assert.equal(snap.metrics.averages.request_latency, 200);
  assert.equal(snap.metrics.sums.output_sequence_length, 4);
  assert.equal(sink.warmup!.snapshot().successCount, 1);
  live.close();
  assert.equal(live.snapshot().state, "finished");
});

Deno.test("the failure gate sink stops the run once the failed share exceeds the threshold", () => {
  let stopped = 0;
  const gate = new FailureGateSink({ threshold: 0.5, concurrency: 2, stop: () => stopped++ });
  const ok = makeRecord({});
  const bad = makeRecord({ error: { type: "HTTPError", code: 500, message: "x" } });
  // Warmup records are not judged.
  for (let i = 0; i < 20; i++) gate.arrived(makeRecord({ phase: "warmup", error: bad.error }));
  assert.equal(stopped, 0);
  // Judged after max(concurrency, 10) = 10 records: 6 of 10 failed > 50 %.
  for (const r of [ok, bad, ok, bad, ok, bad, ok, bad, bad]) gate.arrived(r);
  assert.equal(stopped, 0);
  gate.arrived(bad);
  assert.equal(stopped, 1);
  assert.match(gate.tripped ?? "", /threshold/);
});

Deno.test("the dispatch sink keeps each profiling request's permit-to-send time", () => {
  const d = new DispatchSink();
  d.arrived(makeRecord({ phase: "warmup", creditIssuedAt: 0, startAt: 9 }));
  d.arrived(makeRecord({ creditIssuedAt: 10, startAt: 10.25 }));
  d.arrived(makeRecord({ creditIssuedAt: 20, startAt: 20.5 }));
  assert.deepEqual([...d.column.view()], [0.25, 0.5]);
});
