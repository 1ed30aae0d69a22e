import assert from "node:assert/strict";
import { TimesliceSink } from "../../../src/run/sinks/timeslice_sink.ts";
import type { ColumnData, ColumnStore } from "../../../src/metrics/float64_column.ts";
import { METRIC_REGISTRY } from "../../../src/metrics/metric_registry.ts";
import { makeRecord } from "../../metrics/record_fixture.ts";
import type { ProcessedRecord } from "../../../src/records/request_record.ts";
import { SeededRandom } from "../../../src/base/seeded_random.ts";
import { MetricAccumulator } from "../../../src/metrics/metric_accumulator.ts";

const metrics = METRIC_REGISTRY.selectMetrics({
  streaming: true,
  producesTokens: true,
  tokenizesInput: true,
  supportsReasoning: false,
  goodput: false,
});

/** 3,000 streamed requests over 30 windows of 100 ms, handed on in completion order (some very late). */
function records(): ProcessedRecord[] {
  const random = new SeededRandom(3);
  const out: ProcessedRecord[] = [];
  for (let i = 0; i < 3000; i++) {
    const start = i + random.next();
    const late = random.next() < 0.02 ? 400 + random.next() * 500 : 0;
    const times = Array.from({ length: 8 }, (_, k) => start + 5 + k * (1 + random.next()) + late);
    out.push(makeRecord({ startAt: start, endAt: times[7] + 0.5, responseTimes: times, outputTokens: 8, isl: 16 }));
  }
  return out.sort((a, b) => a.endAt - b.endAt);
}

Deno.test("time slices give the same figures when closed windows hand their columns to the store", () => {
  const stored: number[] = [];
  const store: ColumnStore = { put: (data: ColumnData) => (stored.push(data.length), { read: () => data }) };
  const plain = new TimesliceSink(metrics, 100, { timeOriginMs: 0 });
  const sealed = new TimesliceSink(metrics, 100, { timeOriginMs: 0, store });
  const measure = new MetricAccumulator(metrics);
  for (const sink of [plain, sealed]) sink.phaseStarted("profiling", 0);
  for (const r of records()) {
    const values = measure.measure(r);
    plain.measured(r, values);
    sealed.measured(r, values);
  }
  // The windows went to the store as they closed (about ten columns each); late records still counted after that.
  assert.ok(stored.length >= 28 * 10, `${stored.length} segments stored`);
  assert.deepEqual(sealed.timeslices(), plain.timeslices());
  assert.equal(plain.timeslices().length, 30);
});
