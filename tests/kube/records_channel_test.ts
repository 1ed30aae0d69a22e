import assert from "node:assert/strict";
import { assembleStreams, gzip, parseIndexes, planMerge, recordChunkObjects } from "../../src/kube/records_channel.ts";
import { replayShardStreams, shiftRecord } from "../../src/kube/replay_shard_streams.ts";
import { encodeShardMessage } from "../../src/run/shard_stream.ts";
import type { Phase, RequestRecord } from "../../src/records/request_record.ts";

function record(i: number, endAt: number): RequestRecord {
  return {
    phase: "profiling",
    requestIndex: i,
    sessionNum: i,
    conversationId: `s${i}`,
    turnIndex: 0,
    xRequestId: `r${i}`,
    xCorrelationId: `c${i}`,
    workerId: "worker_0",
    creditIssuedAt: endAt - 30,
    startAt: endAt - 29.5,
    endAt,
    responseTimes: [endAt - 20 + 1 / 3, endAt],
    status: 200,
    content: `answer ${i}`,
    reasoning: "",
    cancelled: false,
  } as RequestRecord;
}

function stream(index: number, of: number, origin: number, records: RequestRecord[], done = true): Uint8Array {
  const lines = [
    encodeShardMessage({ t: "hello", index, of, pid: 1, timeOriginMs: origin }),
    encodeShardMessage({ t: "ready" }),
    encodeShardMessage({ t: "started", startEpochMs: 5000, latenessMs: 0.25 * (index + 1) }),
    encodeShardMessage({ t: "phase", phase: "profiling", at: 10 + index }),
    ...records.map((r) => encodeShardMessage({ t: "r", r })),
    ...(done
      ? [encodeShardMessage({
        t: "done",
        outcome: {
          profiling: {
            issued: records.length,
            sessionsStarted: records.length,
            startedAt: 10 + index,
            endedAt: 500 + index,
            durationReached: false,
            cancelledInFlight: 0,
            cancelled: false,
          },
        },
        peakRssBytes: 1,
      } as never)]
      : []),
  ];
  return new TextEncoder().encode(lines.join(""));
}

Deno.test("records channel: a stream split into chunk ConfigMaps comes back byte for byte", async () => {
  const bytes = crypto.getRandomValues(new Uint8Array(50_000)); // incompressible: several chunks
  const objects = await recordChunkObjects({
    run: "r",
    namespace: "ns",
    index: 3,
    pod: "p3",
    gzipped: await gzip(bytes),
    chunkBytes: 16_000,
  });
  assert.ok(objects.length >= 4);
  const back = await assembleStreams(objects.reverse() as never);
  assert.deepEqual([...back.keys()], [3]);
  assert.deepEqual(back.get(3), bytes);
});

Deno.test("records channel: a missing chunk, a chunk twice, or two pods for one index is refused", async () => {
  const gz = await gzip(crypto.getRandomValues(new Uint8Array(40_000)));
  const objects = await recordChunkObjects({
    run: "r",
    namespace: "ns",
    index: 1,
    pod: "p1",
    gzipped: gz,
    chunkBytes: 16_000,
  });
  await assert.rejects(() => assembleStreams(objects.slice(1) as never), /incomplete/);
  await assert.rejects(() => assembleStreams([...objects, objects[0]] as never), /duplicated/);
  const other = await recordChunkObjects({
    run: "r",
    namespace: "ns",
    index: 1,
    pod: "p1b",
    gzipped: gz,
    chunkBytes: 16_000,
  });
  await assert.rejects(() => assembleStreams([...objects, ...other] as never), /2 pods.*duplicated/);
});

Deno.test("records channel: merge plan follows the Job's completedIndexes exactly", () => {
  assert.deepEqual(parseIndexes("0,2-4,7"), [0, 2, 3, 4, 7]);
  const full = planMerge(4, "0-3", [0, 1, 2, 3]);
  assert.deepEqual(full, { merge: [0, 1, 2, 3], notCompleted: [], problems: [] });
  const killed = planMerge(4, "0,2-3", [0, 2, 3]);
  assert.deepEqual(killed.merge, [0, 2, 3]);
  assert.deepEqual(killed.notCompleted, [1]);
  const lost = planMerge(3, "0-2", [0, 2]);
  assert.deepEqual(lost.merge, [0, 2]);
  assert.match(lost.problems[0], /index 1: completed but no records/);
  const stray = planMerge(2, "0", [0, 1]);
  assert.match(stray.problems[0], /index 1: records present but the Job does not list it/);
});

Deno.test("replay: the union of shards' records on this clock, exactly one process's set", async () => {
  const all = Array.from({ length: 12 }, (_, i) => record(i, 100 + i * 7.125 + 1 / 7));
  const myOrigin = 1_700_000_000_000.5;
  // Shard k's clock origin is 3 ms later than ours per index: its times read 3k ms less.
  const streams = new Map<number, Uint8Array>();
  for (let k = 0; k < 3; k++) {
    const mine = all.filter((_, i) => i % 3 === k).map((r) => shiftRecord(r, -3 * k));
    streams.set(k, stream(k, 3, myOrigin + 3 * k, mine));
  }
  const got: RequestRecord[] = [];
  const phases: [Phase, number][] = [];
  const out = await replayShardStreams(streams, {
    timeOriginMs: myOrigin,
    onRecord: (r) => got.push(r),
    onPhaseStart: (p, at) => phases.push([p, at]),
  });
  assert.equal(out.records, 12);
  assert.deepEqual(got, [...all].sort((a, b) => a.endAt - b.endAt));
  assert.deepEqual(phases, [["profiling", 10]]);
  assert.equal(out.profilingStartedAt, 10);
  assert.equal(out.profilingEndedAt, 502 + 6);
  assert.deepEqual(out.starts.map((s) => s.latenessMs), [0.25, 0.5, 0.75]);
  assert.equal(out.failures.size, 0);
});

Deno.test("replay: a stream that ends without done is reported as a failure", async () => {
  const out = await replayShardStreams(new Map([[0, stream(0, 1, 0, [record(0, 50)], false)]]), {
    timeOriginMs: 0,
    onRecord: () => {},
  });
  assert.match(out.failures.get(0)!, /ended early/);
});
