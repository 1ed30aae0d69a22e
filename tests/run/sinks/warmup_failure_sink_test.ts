import assert from "node:assert/strict";
import { WarmupFailureSink } from "../../../src/run/sinks/warmup_failure_sink.ts";
import type { RequestRecord } from "../../../src/records/request_record.ts";

const record = (conversationId: string, o: { error?: boolean; cancelled?: boolean; phase?: "warmup" | "profiling" }) =>
  ({
    phase: o.phase ?? "warmup",
    conversationId,
    cancelled: o.cancelled === true,
    ...(o.error === true ? { error: { type: "HTTPError", message: "500", code: 500 } } : {}),
  }) as unknown as RequestRecord;

Deno.test("warm-up failure: once every warm-up request has ended, a failed or cancelled one stops the run", () => {
  let stops = 0;
  const sink = new WarmupFailureSink({ expected: 3, stop: () => stops++ });
  sink.arrived(record("a", { error: true }));
  sink.arrived(record("b", { cancelled: true }));
  assert.equal(stops, 0, "not before every warm-up request has ended");
  sink.arrived(record("c", {}));
  assert.equal(stops, 1);
  assert.match(sink.tripped!, /^the warm-up failed for 2 trace streams \(a, b\)/);
  sink.arrived(record("d", { error: true, phase: "profiling" }));
  sink.phaseStarted("profiling");
  assert.equal(stops, 1, "stopped once");
});

Deno.test("warm-up failure: a clean warm-up lets the run go on; a failure is still caught when measuring starts", () => {
  let stops = 0;
  const clean = new WarmupFailureSink({ expected: 2, stop: () => stops++ });
  clean.arrived(record("a", {}));
  clean.arrived(record("b", {}));
  clean.phaseStarted("profiling");
  assert.equal([stops, clean.tripped].join(), "0,");
  const late = new WarmupFailureSink({ expected: 5, stop: () => stops++ });
  late.arrived(record("a", { error: true }));
  late.phaseStarted("profiling");
  assert.equal(stops, 1);
});
