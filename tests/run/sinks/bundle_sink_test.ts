import assert from "node:assert/strict";
import { join } from "node:path";
import { BundleSink, type SentRequestLine } from "../../../src/run/sinks/bundle_sink.ts";
import { makeRecord } from "../../metrics/record_fixture.ts";

Deno.test("bundle sink keeps each profiling request's body and times, and the schedule's first due time", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const sink = await BundleSink.open(join(dir, "scratch"));
    sink.phaseStarted("warmup", 1);
    sink.measured(makeRecord({ phase: "warmup", sentBody: "{}", scheduledAt: 2, startAt: 2 }));
    sink.phaseStarted("profiling", 10);
    sink.phaseStarted("profiling", 11); // a second shard's start: the first one counts
    const later = makeRecord({ sessionNum: 1, turnIndex: 1, scheduledAt: 12, startAt: 12.5, sentBody: '{"b":2}' });
    sink.measured(later);
    sink.measured(makeRecord({ sessionNum: 2, scheduledAt: 30.25, startAt: 30.5, sentBody: '{"b":3}' }));
    sink.measured(makeRecord({ sessionNum: 1, scheduledAt: 10.75, startAt: 11, sentBody: '{"b":1.0}' }));
    sink.measured(makeRecord({ sessionNum: 3, scheduledAt: 40, startAt: 40 }));
    await sink.close();
    assert.equal(sink.unwritten(), undefined);
    assert.equal(sink.phaseStartAt, 10);
    assert.equal(sink.firstDueAt, 10.75, "a later turn's due time is not the schedule's start");
    assert.equal(sink.missingBodies, 1);
    const lines = (await Deno.readTextFile(join(dir, "scratch"))).trim().split("\n").map((l) =>
      JSON.parse(l) as SentRequestLine
    );
    assert.deepEqual(lines.map((l) => l.body), ['{"b":2}', '{"b":3}', '{"b":1.0}']);
    assert.deepEqual(lines[0], {
      request_index: 0,
      session: 1,
      worker: later.workerId,
      conversation_id: later.conversationId,
      turn: 1,
      scheduled_at: 12,
      start_at: 12.5,
      body: '{"b":2}',
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
