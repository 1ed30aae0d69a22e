import assert from "node:assert/strict";
import { MetricAccumulator } from "../../src/metrics/metric_accumulator.ts";
import { METRIC_REGISTRY } from "../../src/metrics/metric_registry.ts";
import { REPLAY_SEND_SCHEDULE_OFFSET, SESSION_COUNT, SESSION_THROUGHPUT } from "../../src/metrics/metric_defs.ts";
import type { RunSummary } from "../../src/metrics/run_summary.ts";
import { makeRecord } from "./record_fixture.ts";

const base = { streaming: false, producesTokens: true, tokenizesInput: true, supportsReasoning: false, goodput: false };

function summarize(multiTurn: boolean, records: ReturnType<typeof makeRecord>[]): RunSummary {
  const acc = new MetricAccumulator(METRIC_REGISTRY.selectMetrics({ ...base, multiTurn }));
  for (const r of records) acc.add(r);
  return acc.summarize();
}

const value = (s: RunSummary, tag: string) => s.metrics.find((m) => m.tag === tag)?.value;

Deno.test("session metrics apply to multi-turn runs only", () => {
  const tags = (multiTurn: boolean) => METRIC_REGISTRY.selectMetrics({ ...base, multiTurn }).map((m) => m.tag);
  assert.ok(!tags(false).includes("session_count"));
  assert.ok(!tags(false).includes("session_throughput"));
  assert.ok(tags(true).includes("session_count"));
  assert.ok(tags(true).includes("session_throughput"));
});

Deno.test("session_count counts successful final turns; session_throughput is per hour of the run", () => {
  // Two 2-turn sessions and one whose final turn failed. Requests span 0 ms … 1800 ms (last end 1800):
  // benchmark_duration = 1.8 s; successful final turns = 2 → session_throughput = 2 / (1.8 / 3600) = 4000 /h.
  const s = summarize(true, [
    makeRecord({ startAt: 0, endAt: 400, responseTimes: [400], turnIndex: 0 }),
    makeRecord({ startAt: 500, endAt: 900, responseTimes: [900], turnIndex: 1, isFinalTurn: true }),
    makeRecord({ startAt: 100, endAt: 600, responseTimes: [600], turnIndex: 0 }),
    makeRecord({ startAt: 700, endAt: 1800, responseTimes: [1800], turnIndex: 1, isFinalTurn: true }),
    makeRecord({ startAt: 200, endAt: 300, responseTimes: [300], turnIndex: 0 }),
    makeRecord({
      startAt: 400,
      endAt: 450,
      turnIndex: 1,
      isFinalTurn: true,
      error: { type: "HTTPError", code: 500, message: "x" },
    }),
  ]);
  assert.equal(value(s, "request_count"), 5);
  assert.equal(value(s, "session_count"), 2);
  assert.equal(value(s, "benchmark_duration"), 1.8);
  assert.ok(Math.abs(value(s, "session_throughput")! - 4000) < 1e-9);
  assert.equal(SESSION_COUNT.unit, "sessions");
  assert.equal(SESSION_THROUGHPUT.unit, "sessions/hour");
});

Deno.test("replay_send_schedule_offset only for requests due at their trace timestamp", () => {
  const due = makeRecord({ startAt: 105, scheduledAt: 100, timestampScheduled: true });
  assert.equal(REPLAY_SEND_SCHEDULE_OFFSET.compute(due, {}), 5);
  // a rate tick or a think time is no trace timestamp
  assert.equal(REPLAY_SEND_SCHEDULE_OFFSET.compute(makeRecord({ startAt: 105, scheduledAt: 100 }), {}), undefined);
  assert.equal(REPLAY_SEND_SCHEDULE_OFFSET.compute(makeRecord({ startAt: 105 }), {}), undefined);
});

Deno.test("replay lag percentiles are anchored at the least-late request; degraded over 500 ms p99", () => {
  // Offsets (start − due) 2, 3, 4, 6, 12 ms → lags 0, 1, 2, 4, 10. numpy linear percentiles of the lags:
  // p50 = 2; p90: index 0.9·4 = 3.6 → 4 + 0.6·(10 − 4) = 7.6; p99: index 3.96 → 4 + 0.96·6 = 9.76.
  const offsets = [2, 3, 4, 6, 12];
  const records = offsets.map((o, i) =>
    makeRecord({ startAt: 1000 * i + o, scheduledAt: 1000 * i, timestampScheduled: true, endAt: 1000 * i + 50 })
  );
  const s = summarize(false, records);
  const close = (tag: string, want: number) => {
    const got = value(s, tag);
    assert.ok(got !== undefined && Math.abs(got - want) < 1e-9, `${tag}: ${got} ≠ ${want}`);
  };
  close("replay_sched_lag_p50", 2);
  close("replay_sched_lag_p90", 7.6);
  close("replay_sched_lag_p99", 9.76);
  assert.equal(value(s, "replay_sched_degraded"), 0);
  // the offset itself is internal: never in the summary
  assert.equal(s.metrics.find((m) => m.tag === "replay_send_schedule_offset"), undefined);

  // one request 600 ms later than the rest: p99 of lags [0, 0, 0, 0, 600] = 0 + 0.96·600 = 576 > 500
  const late = [0, 0, 0, 0, 600].map((o, i) =>
    makeRecord({ startAt: 1000 * i + o, scheduledAt: 1000 * i, timestampScheduled: true, endAt: 1000 * i + o + 1 })
  );
  const d = summarize(false, late);
  assert.ok(Math.abs(value(d, "replay_sched_lag_p99")! - 576) < 1e-9);
  assert.equal(value(d, "replay_sched_degraded"), 1);
});

Deno.test("no replay lag metrics without trace-scheduled requests", () => {
  const s = summarize(false, [makeRecord({ startAt: 0, endAt: 10, scheduledAt: 0 })]);
  assert.equal(s.metrics.filter((m) => m.tag.startsWith("replay_")).length, 0);
});
