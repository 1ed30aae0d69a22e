import assert from "node:assert/strict";
import { RecordBus } from "../../src/run/record_bus.ts";
import type { RecordSink } from "../../src/run/record_sink.ts";
import type { ProcessedRecord, RequestRecord } from "../../src/records/request_record.ts";
import { makeRecord } from "../metrics/record_fixture.ts";
import { RecordRow } from "../../src/metrics/record_row.ts";

function journalSink(name: string, journal: string[], fail = false): RecordSink {
  return {
    name,
    phaseStarted: (phase, at) => journal.push(`${name}:phase:${phase}@${at}`),
    arrived: (r: RequestRecord) => journal.push(`${name}:arrived:${r.requestIndex}`),
    measured: (r: ProcessedRecord, v) => journal.push(`${name}:measured:${r.requestIndex}:${v.get("request_latency")}`),
    close: () => {
      journal.push(`${name}:close`);
      if (fail) throw new Error(`${name} failed to close`);
    },
  };
}

Deno.test("the bus measures each record once and hands the same values to every sink, in sink order", () => {
  const journal: string[] = [];
  let measures = 0;
  const bus = new RecordBus([journalSink("a", journal), { name: "quiet" }, journalSink("b", journal)], (r) => {
    measures++;
    return RecordRow.of({ request_latency: r.endAt - r.startAt });
  });
  const r = makeRecord({ requestIndex: 7, startAt: 10, endAt: 35, responseTimes: [20, 35] });
  bus.phaseStarted("profiling", 5);
  bus.arrived(r);
  bus.measured(r);
  assert.equal(measures, 1);
  assert.deepEqual(journal, [
    "a:phase:profiling@5",
    "b:phase:profiling@5",
    "a:arrived:7",
    "b:arrived:7",
    "a:measured:7:25",
    "b:measured:7:25",
  ]);
});

Deno.test("the bus closes every sink even when one fails, then reports the first failure", async () => {
  const journal: string[] = [];
  const bus = new RecordBus(
    [journalSink("a", journal, true), journalSink("b", journal), journalSink("c", journal, true)],
    () => RecordRow.of({}),
  );
  await assert.rejects(() => bus.close(), /a failed to close/);
  assert.deepEqual(journal, ["a:close", "b:close", "c:close"]);
});
