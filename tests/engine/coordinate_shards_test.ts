import assert from "node:assert/strict";
import { coordinateShards, describeLostShards, ShardStartError } from "../../src/engine/coordinate_shards.ts";
import type { ShardControl, ShardEvent, ShardLink } from "../../src/engine/shard_event.ts";
import type { Phase, RequestRecord } from "../../src/records/request_record.ts";

/** A link the test drives: `emit` hands events on, `end` ends the stream; controls received are kept. */
class TestLink implements ShardLink {
  readonly controls: ShardControl[] = [];
  aborted = false;
  readonly ended: Promise<string | undefined>;
  #handler?: (e: ShardEvent) => void;
  #end!: (reason: string | undefined) => void;
  #queued: ShardEvent[] = [];
  onControlled?: (c: ShardControl) => void;
  constructor() {
    this.ended = new Promise((r) => this.#end = r);
  }
  onEvent(handler: (e: ShardEvent) => void): void {
    this.#handler = handler;
    for (const e of this.#queued.splice(0)) handler(e);
  }
  control(c: ShardControl): void {
    this.controls.push(c);
    this.onControlled?.(c);
  }
  abort(): void {
    this.aborted = true;
    this.#end("was terminated");
  }
  emit(...events: ShardEvent[]): void {
    for (const e of events) this.#handler ? this.#handler(e) : this.#queued.push(e);
  }
  end(reason?: string): void {
    this.#end(reason);
  }
}

function record(i: number, at: number, workerId = "worker_0"): RequestRecord {
  return {
    phase: "profiling",
    requestIndex: i,
    sessionNum: i,
    conversationId: `s${i}`,
    turnIndex: 0,
    xRequestId: `r${i}`,
    xCorrelationId: `c${i}`,
    workerId,
    creditIssuedAt: at - 2,
    startAt: at - 1.5,
    endAt: at,
    responseTimes: [at - 1, at],
    status: 200,
    content: "x",
    reasoning: "",
    cancelled: false,
  } as RequestRecord;
}

const hello = (index: number, timeOriginMs = 1000): ShardEvent => ({
  type: "hello",
  index,
  of: 2,
  pid: 10 + index,
  timeOriginMs,
});
const profiling = (startedAt: number, endedAt: number) => ({
  profiling: {
    issued: 1,
    sessionsStarted: 1,
    startedAt,
    endedAt,
    durationReached: false,
    cancelledInFlight: 0,
    cancelled: false,
  },
});

Deno.test("coordinator: one start for all once every shard is ready, the same instant to each", async () => {
  const links = [new TestLink(), new TestLink()];
  const merging = coordinateShards({
    links,
    timeOriginMs: 1000,
    signal: new AbortController().signal,
    onRecord: () => {},
    sharedStartDelayMs: 50,
  });
  links[0].emit(hello(0), { type: "ready" });
  await Promise.resolve();
  assert.deepEqual(links[0].controls, [], "no start before every shard is ready");
  links[1].emit(hello(1), { type: "ready" });
  assert.equal(links[0].controls.length, 1);
  assert.deepEqual(links[0].controls, links[1].controls);
  const start = links[0].controls[0] as Extract<ShardControl, { type: "start" }>;
  assert.ok(start.epochMs > 1000 + performance.now() + 40 && start.epochMs <= 1000 + performance.now() + 50);
  for (const [i, l] of links.entries()) {
    l.emit({ type: "started", startEpochMs: start.epochMs, latenessMs: 0.1 * (i + 1) }, {
      type: "done",
      outcome: profiling(10, 20 + i),
      peakRssBytes: 5,
      cpuMs: 7,
    });
    l.end();
  }
  const merged = await merging;
  assert.deepEqual(merged.lost, []);
  assert.equal(merged.profilingEndedAt, 21);
  assert.deepEqual(merged.reports.map((r) => [r.pid, r.latenessMs, r.peakRssBytes, r.cpuMs]), [
    [10, 0.1, 5, 7],
    [11, 0.2, 5, 7],
  ]);
});

Deno.test("coordinator: a shard that ends before the start fails the run, naming it and why; the others stop", async () => {
  const links = [new TestLink(), new TestLink()];
  const merging = coordinateShards({
    links,
    timeOriginMs: 1000,
    signal: new AbortController().signal,
    onRecord: () => {},
    sharedStartDelayMs: 50,
    describe: (i) => `engine shard process ${i}`,
  });
  links[0].emit(hello(0), { type: "ready" });
  links[1].emit(hello(1), { type: "failed", message: "a shard needs --model" });
  links[1].end("exited with code 70");
  await assert.rejects(merging, (err: Error) => {
    assert.ok(err instanceof ShardStartError);
    assert.equal(err.message, "engine shard process 1 failed: a shard needs --model");
    return true;
  });
  assert.ok(links[0].aborted, "the ready shard is stopped");
  assert.deepEqual(links[0].controls, [], "no start was sent");
});

Deno.test("coordinator: a shard killed mid-run is lost, what it sent is kept, the others run to their end", async () => {
  const links = [new TestLink(), new TestLink()];
  const got: RequestRecord[] = [];
  const merging = coordinateShards({
    links,
    timeOriginMs: 1000,
    signal: new AbortController().signal,
    onRecord: (r) => got.push(r),
    sharedStartDelayMs: 0,
  });
  for (const l of links) l.emit(hello(links.indexOf(l)), { type: "ready" });
  links[1].emit({ type: "started", startEpochMs: 1, latenessMs: 0 }, {
    type: "records",
    records: [record(1, 5, "worker_1"), record(3, 6, "worker_1")],
  });
  links[1].end("was killed by SIGKILL");
  links[0].emit({ type: "started", startEpochMs: 1, latenessMs: 0 }, {
    type: "records",
    records: [record(0, 5), record(2, 7)],
  }, { type: "done", outcome: profiling(1, 9) });
  links[0].end();
  const merged = await merging;
  assert.equal(got.length, 4);
  assert.deepEqual(merged.lost, [{ index: 1, reason: "was killed by SIGKILL", records: 2 }]);
  assert.equal(merged.outcomes.length, 1);
  assert.equal(
    describeLostShards(merged.lost, 2),
    "partial run: 1 of 2 shards ran to their end; shard 1 was killed by SIGKILL (2 records kept). The results " +
      "include what every shard measured, at less load than asked for.",
  );
});

Deno.test("coordinator: a shard stopped by a signal of its own is lost; after a cancel it is not", async () => {
  for (const cancelled of [false, true]) {
    const link = new TestLink();
    const stop = new AbortController();
    if (cancelled) stop.abort();
    const merging = coordinateShards({ links: [link], timeOriginMs: 1000, signal: stop.signal, onRecord: () => {} });
    link.emit(hello(0), { type: "ready" }, { type: "started", startEpochMs: 1, latenessMs: 0 }, {
      type: "done",
      outcome: profiling(1, 2),
      stoppedBy: "SIGTERM",
    });
    link.end();
    const merged = await merging;
    assert.deepEqual(merged.lost, cancelled ? [] : [{ index: 0, reason: "was stopped by SIGTERM", records: 0 }]);
    assert.deepEqual(link.controls, cancelled ? [{ type: "cancel" }] : []);
  }
});

Deno.test("coordinator: times of a shard counting from another origin move onto this clock", async () => {
  const link = new TestLink();
  const got: RequestRecord[] = [];
  const phases: [Phase, number][] = [];
  const merging = coordinateShards({
    links: [link],
    timeOriginMs: 1000,
    signal: new AbortController().signal,
    onRecord: (r) => got.push(r),
    onPhaseStart: (p, at) => phases.push([p, at]),
  });
  // This shard's clock started 250 ms after ours: its time 10 is our 260.
  link.emit(
    hello(0, 1250),
    { type: "ready" },
    { type: "started", startEpochMs: 1, latenessMs: 0 },
    {
      type: "phase",
      phase: "profiling",
      at: 10,
    },
    { type: "records", records: [record(0, 20)] },
    { type: "done", outcome: profiling(10, 30) },
  );
  link.end();
  const merged = await merging;
  assert.deepEqual(phases, [["profiling", 260]]);
  assert.equal(got[0].endAt, 270);
  assert.deepEqual(got[0].responseTimes, [269, 270]);
  assert.equal(got[0].startAt, 268.5);
  assert.equal(merged.profilingStartedAt, 260);
  assert.equal(merged.profilingEndedAt, 280);
});

Deno.test("coordinator: with phaseStart earliest a phase starts at the earliest shard's report, records held until then", async () => {
  const links = [new TestLink(), new TestLink()];
  const seen: string[] = [];
  const merging = coordinateShards({
    links,
    timeOriginMs: 1000,
    signal: new AbortController().signal,
    onRecord: (r) => seen.push(`r${r.requestIndex}`),
    onPhaseStart: (p, at) => seen.push(`${p}@${at}`),
    phaseStart: "earliest",
    lossBeforeStart: "partial",
  });
  links[1].emit(hello(1), { type: "started", startEpochMs: 1, latenessMs: 0 }, {
    type: "phase",
    phase: "profiling",
    at: 12,
  }, { type: "records", records: [record(1, 20, "worker_1")] });
  assert.deepEqual(seen, [], "held until shard 0 reports the phase");
  links[0].emit(hello(0), { type: "started", startEpochMs: 1, latenessMs: 0 }, {
    type: "phase",
    phase: "profiling",
    at: 11,
  });
  assert.deepEqual(seen, ["profiling@11", "r1"]);
  links[0].emit({ type: "records", records: [record(0, 21)] }, { type: "done", outcome: {} });
  links[1].emit({ type: "done", outcome: {} });
  for (const l of links) l.end();
  await merging;
  assert.deepEqual(seen, ["profiling@11", "r1", "r0"]);
});

Deno.test("coordinator: a measured clock offset corrects a shard's times and its start", async () => {
  const link = new TestLink();
  const got: RequestRecord[] = [];
  const merging = coordinateShards({
    links: [link],
    timeOriginMs: 1000,
    signal: new AbortController().signal,
    onRecord: (r) => got.push(r),
  });
  // Its clock reads 300 ms ahead of ours (offset −300): its origin 1550 is our 1250.
  link.emit(
    hello(0, 1550),
    { type: "ready" },
    { type: "clock", offsetMs: -300, uncertaintyMs: 4 },
    {
      type: "started",
      startEpochMs: 5300,
      latenessMs: 0.2,
    },
    { type: "records", records: [record(0, 20)] },
    { type: "done", outcome: {} },
  );
  link.end();
  const merged = await merging;
  assert.equal(got[0].endAt, 270);
  assert.equal(merged.reports[0].startEpochMs, 5000);
  assert.equal(merged.reports[0].clockOffsetMs, -300);
  assert.equal(merged.reports[0].clockUncertaintyMs, 4);
});
