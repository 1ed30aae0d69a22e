import assert from "node:assert/strict";
import { type PhaseSession, runPhase, type SendMeta } from "../../src/engine/phase_runner.ts";
import { ManualClock, SystemClock } from "../../src/timing/clock.ts";
import { type PhaseSpec, shardPhase } from "../../src/timing/phase_spec.ts";
import type { StopSpec } from "../../src/timing/stop_conditions.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { IoYield } from "../../src/runtime/io_yield.ts";
import { busy, readyRead } from "../runtime/ready_read.ts";

interface Sent {
  readonly meta: SendMeta;
  readonly startedAt: number;
  endedAt?: number;
  cancelled?: boolean;
}

/** A conversation shape: per turn, its think time and own timestamp. */
interface Shape {
  readonly delays?: readonly (number | undefined)[];
  readonly timestamps?: readonly (number | undefined)[];
  readonly turns: number;
}

const SINGLE: Shape = { turns: 1 };

const closed = (concurrency: number, stops: Partial<StopSpec>, rampMs?: number): PhaseSpec => ({
  name: "profiling",
  strategy: { name: "concurrency", options: { concurrency, rampMs } },
  stops: { gracePeriodMs: 0, ...stops },
});

const open = (rate: number, stops: Partial<StopSpec>, concurrency?: number): PhaseSpec => ({
  name: "profiling",
  strategy: { name: "request_rate", options: { rate, pattern: "constant", concurrency } },
  stops: { gracePeriodMs: 0, ...stops },
});

/** Sessions of one turn each, sent by `send`. */
const oneTurn = (send: PhaseSession["send"]) => (): PhaseSession => ({
  turnCount: 1,
  delayBefore: () => undefined,
  timestampOf: () => undefined,
  send,
});

/**
 * Runs a phase on a virtual clock where every request takes `serviceMs`; session k runs `shapes[k % n]`, or the
 * conversation the tick names.
 */
async function simulate(
  phase: PhaseSpec,
  serviceMs: number,
  until: number,
  shapes: readonly Shape[] = [SINGLE],
  signal = new AbortController().signal,
) {
  const clock = new ManualClock(1000);
  const sent: Sent[] = [];
  const sessions: number[] = [];
  const done = runPhase({
    shard: shardPhase(phase, 0, 1),
    clock,
    rng: new SeededRandom(3),
    signal,
    openSession: (sessionIndex, tick): PhaseSession => {
      const shape = shapes[tick.conversationIndex ?? sessionIndex % shapes.length];
      sessions.push(tick.conversationIndex ?? sessionIndex);
      return {
        turnCount: shape.turns,
        delayBefore: (k) => shape.delays?.[k],
        timestampOf: (k) => shape.timestamps?.[k],
        send: async (_k, meta, reqSignal) => {
          const rec: Sent = { meta, startedAt: clock.now() };
          sent.push(rec);
          await clock.sleepUntil(clock.now() + serviceMs, reqSignal);
          rec.endedAt = clock.now();
          rec.cancelled = reqSignal.aborted;
        },
      };
    },
  });
  await clock.advanceTo(until);
  return { outcome: await done, sent, sessions, clock };
}

Deno.test("closed loop keeps exactly `concurrency` requests in flight until the count is reached", async () => {
  const { outcome, sent } = await simulate(closed(2, { requestCount: 5 }), 100, 5000);
  assert.equal(outcome.issued, 5);
  assert.deepStrictEqual(sent.map((l) => l.startedAt), [1000, 1000, 1100, 1100, 1200]);
  assert.deepStrictEqual(sent.map((l) => l.meta.requestIndex), [0, 1, 2, 3, 4]);
  // Closed loop: the credit is issued when the slot frees, and there is no schedule.
  assert.deepStrictEqual(sent.map((l) => l.meta.creditIssuedAt), [1000, 1000, 1100, 1100, 1200]);
  assert.ok(sent.every((l) => l.meta.scheduledAt === undefined));
  assert.equal(outcome.endedAt, 1300);
});

Deno.test("open loop sends on the absolute schedule regardless of response times", async () => {
  const { outcome, sent } = await simulate(open(10, { requestCount: 4 }), 250, 5000);
  assert.equal(outcome.issued, 4);
  assert.deepStrictEqual(sent.map((l) => l.meta.scheduledAt), [1000, 1100, 1200, 1300]);
  assert.deepStrictEqual(sent.map((l) => l.startedAt), [1000, 1100, 1200, 1300]);
});

Deno.test("open loop with a concurrency cap waits for a slot and records the lateness", async () => {
  const { sent } = await simulate(open(10, { requestCount: 3 }, 1), 250, 5000);
  // Due at 1000, 1100, 1200 but each must wait for the previous one to finish (250 ms service).
  assert.deepStrictEqual(sent.map((l) => l.meta.scheduledAt), [1000, 1100, 1200]);
  assert.deepStrictEqual(sent.map((l) => l.startedAt), [1000, 1250, 1500]);
});

Deno.test("duration stops issuing, waits the grace period, then cancels stragglers", async () => {
  const { outcome, sent } = await simulate(closed(1, { durationMs: 250, gracePeriodMs: 30 }), 100, 5000);
  // Requests at 1000, 1100, 1200 (the one at 1200 runs past the 1250 deadline; grace ends at 1280).
  assert.equal(outcome.issued, 3);
  assert.equal(outcome.durationReached, true);
  assert.equal(outcome.cancelledInFlight, 1);
  assert.equal(sent[2].cancelled, true);
  assert.equal(sent[2].endedAt, 1280);
});

Deno.test("cancellation stops issuing and aborts requests in flight", async () => {
  const ac = new AbortController();
  const clock = new ManualClock(0);
  const seen: boolean[] = [];
  const done = runPhase({
    shard: shardPhase(closed(2, { requestCount: 100 }), 0, 1),
    clock,
    rng: new SeededRandom(1),
    signal: ac.signal,
    openSession: oneTurn(async (_k, _meta, reqSignal) => {
      await clock.sleepUntil(clock.now() + 100, reqSignal);
      seen.push(reqSignal.aborted);
    }),
  });
  await clock.advanceTo(250);
  ac.abort();
  const outcome = await done;
  assert.equal(outcome.cancelled, true);
  assert.equal(outcome.issued, 6);
  assert.equal(outcome.cancelledInFlight, 2);
  assert.deepStrictEqual(seen, [false, false, false, false, true, true]);
});

Deno.test("a concurrency ramp opens slots evenly from 1 to the target over the ramp duration", async () => {
  const { sent } = await simulate(closed(5, { requestCount: 5 }, 400), 1000, 5000);
  // One slot at the start, then one more every 400/4 = 100 ms (checked at ≥ 10 ms intervals).
  assert.deepStrictEqual(sent.map((l) => l.startedAt), [1000, 1100, 1200, 1300, 1400]);
});

Deno.test("a session's turns run in order on one slot, each after the previous answer and its think time", async () => {
  const shape: Shape = { turns: 3, delays: [undefined, 50, 0] };
  const { outcome, sent } = await simulate(closed(1, { requestCount: 6 }), 100, 5000, [shape]);
  assert.equal(outcome.issued, 6);
  assert.equal(outcome.sessionsStarted, 2);
  // Session 0: 1000 (ends 1100), +50 think → 1150 (ends 1250), no delay → 1250; session 1 starts at 1350.
  assert.deepStrictEqual(sent.map((l) => l.startedAt), [1000, 1150, 1250, 1350, 1500, 1600]);
  assert.deepStrictEqual(sent.map((l) => [l.meta.sessionIndex, l.meta.turnIndex]), [
    [0, 0],
    [0, 1],
    [0, 2],
    [1, 0],
    [1, 1],
    [1, 2],
  ]);
  assert.deepStrictEqual(sent.map((l) => l.meta.requestIndex), [0, 1, 2, 3, 4, 5]);
  // A turn after think time was due when the think time ended.
  assert.equal(sent[1].meta.scheduledAt, 1150);
  assert.equal(sent[2].meta.scheduledAt, undefined);
});

Deno.test("the request count caps every turn: a session is cut short when the budget is spent", async () => {
  const { outcome, sent } = await simulate(closed(2, { requestCount: 3 }), 100, 5000, [{ turns: 3 }]);
  assert.equal(outcome.issued, 3);
  assert.equal(outcome.sessionsStarted, 2);
  assert.deepStrictEqual(sent.map((l) => [l.meta.sessionIndex, l.meta.turnIndex]), [[0, 0], [1, 0], [0, 1]]);
});

Deno.test("a session count stops new sessions while started ones finish their turns", async () => {
  const { outcome, sent } = await simulate(closed(2, { sessionCount: 3 }), 100, 5000, [{ turns: 2 }]);
  assert.equal(outcome.sessionsStarted, 3);
  assert.equal(outcome.issued, 6);
  assert.deepStrictEqual(sent.map((l) => l.meta.sessionIndex).sort(), [0, 0, 1, 1, 2, 2]);
});

Deno.test("open loop gives ticks to running sessions' next turns before new sessions", async () => {
  // One tick every 100 ms; a session has 2 turns; a request takes 50 ms.
  const { sent } = await simulate(open(10, { requestCount: 6 }), 50, 5000, [{ turns: 2 }]);
  // t=1000 s0 turn 0; t=1100 s0 turn 1 (waiting since 1050, has priority); t=1200 s1 turn 0; …
  assert.deepStrictEqual(sent.map((l) => [l.startedAt, l.meta.sessionIndex, l.meta.turnIndex]), [
    [1000, 0, 0],
    [1100, 0, 1],
    [1200, 1, 0],
    [1300, 1, 1],
    [1400, 2, 0],
    [1500, 2, 1],
  ]);
  assert.deepStrictEqual(sent.map((l) => l.meta.scheduledAt), [1000, 1100, 1200, 1300, 1400, 1500]);
  // A rate's ticks are no trace timestamps.
  assert.ok(sent.every((l) => l.meta.timestampScheduled === false));
  assert.deepStrictEqual(sent.map((l) => l.meta.lastTurn), [false, true, false, true, false, true]);
});

Deno.test("open loop: a session whose next turn comes after the last tick ends instead of waiting forever", async () => {
  // The budget is spent by a new session while session 0 is in its think time.
  const { outcome, sent } = await simulate(open(10, { requestCount: 2 }), 50, 5000, [{ turns: 2, delays: [0, 500] }]);
  assert.equal(outcome.issued, 2);
  assert.deepStrictEqual(sent.map((l) => [l.meta.sessionIndex, l.meta.turnIndex]), [[0, 0], [1, 0]]);
});

Deno.test("trace replay starts each conversation at its timestamp; later turns follow their own", async () => {
  const shapes: Shape[] = [
    { turns: 2, timestamps: [0, 500] },
    { turns: 1, timestamps: [200] },
    { turns: 2, delays: [undefined, 30], timestamps: [100] },
  ];
  const phase: PhaseSpec = {
    name: "profiling",
    strategy: {
      name: "fixed_schedule",
      options: {
        starts: [
          { conversationIndex: 0, atMs: 0 },
          { conversationIndex: 2, atMs: 100 },
          { conversationIndex: 1, atMs: 200 },
        ],
      },
    },
    stops: { gracePeriodMs: 0 },
  };
  const { outcome, sent, sessions } = await simulate(phase, 40, 5000, shapes);
  assert.deepStrictEqual(sessions, [0, 2, 1], "the tick names the conversation");
  assert.deepStrictEqual(sent.map((l) => [l.startedAt, l.meta.scheduledAt]), [
    [1000, 1000],
    [1100, 1100],
    [1170, 1170], // conversation 2's second turn: answer at 1140 + 30 ms think time
    [1200, 1200],
    [1500, 1500], // conversation 0's second turn at its own timestamp
  ]);
  // Due at a trace timestamp (replay lag) unless paced by a think time; the last turn completes a session.
  assert.deepStrictEqual(sent.map((l) => [l.meta.timestampScheduled, l.meta.lastTurn]), [
    [true, false],
    [true, false],
    [false, true],
    [true, true],
    [true, true],
  ]);
  assert.equal(outcome.issued, 5);
  assert.equal(outcome.sessionsStarted, 3);
});

Deno.test("a duration stop ends a session's think time: nothing is sent after the deadline", async () => {
  const { outcome, sent } = await simulate(closed(1, { durationMs: 150 }), 100, 5000, [{ turns: 2, delays: [0, 100] }]);
  assert.equal(outcome.issued, 1);
  assert.equal(sent.length, 1);
  assert.equal(outcome.durationReached, true);
});

Deno.test("a burst of closed-loop issues lets a pending socket read complete before the burst ends", async () => {
  // The read's data has arrived, like the last token of a stream still running while others are re-issued.
  const io = new IoYield();
  const read = await readyRead();
  try {
    let issuedBefore = 0;
    const outcome = await runPhase({
      shard: shardPhase(closed(40, { requestCount: 40 }), 0, 1),
      clock: new ManualClock(0),
      rng: new SeededRandom(1),
      signal: new AbortController().signal,
      yieldToIo: io.wait,
      openSession: oneTurn(() => {
        busy(0.2); // ~the CPU cost of issuing a request
        if (!read.done()) issuedBefore++;
        return Promise.resolve();
      }),
    });
    assert.equal(outcome.issued, 40);
    assert.ok(read.done());
    assert.ok(issuedBefore >= 1 && issuedBefore < 40, `issued ${issuedBefore} of 40 before the read completed`);
  } finally {
    read.close();
    io.close();
  }
});

Deno.test("closed loop reads the clock twice per single-turn request, the credit time being the read that let it go", async () => {
  // Each clock read costs the engine thread as much as a few fields of a record: the loop reads it once when a
  // session slot is sought and once when the request is let go, whose reading is the request's credit time.
  let reads = 0;
  let t = 5000;
  const clock = new (class extends ManualClock {
    override now(): number {
      reads++;
      return (t += 1);
    }
  })(5000);
  const credits: { credit: number; after: number }[] = [];
  const outcome = await runPhase({
    shard: shardPhase(closed(4, { requestCount: 200 }), 0, 1),
    clock,
    rng: new SeededRandom(3),
    signal: new AbortController().signal,
    openSession: oneTurn(async (_k, meta) => {
      credits.push({ credit: meta.creditIssuedAt, after: t });
      await Promise.resolve();
    }),
  });
  assert.equal(outcome.issued, 200);
  // The credit is the latest reading when the request goes: no read between the check and the send.
  for (const c of credits) assert.equal(c.credit, c.after);
  // Two reads per request, and a few for the phase's start and end.
  assert.ok(reads <= 2 * 200 + 8, `${reads} clock reads for 200 requests`);
});

Deno.test("closed loop on the real clock reads it twice per single-turn request, the issue slicer's reading being the credit time", async () => {
  // The slicer's `performance.now()` and the issue check's clock read were two reads at one moment: one now.
  const real = performance.now.bind(performance);
  let reads = 0;
  let latest = 0;
  performance.now = () => {
    reads++;
    return latest = real();
  };
  const credits: { credit: number; latest: number }[] = [];
  let outcome;
  try {
    outcome = await runPhase({
      shard: shardPhase(closed(4, { requestCount: 200 }), 0, 1),
      clock: new SystemClock(7),
      rng: new SeededRandom(3),
      signal: new AbortController().signal,
      openSession: oneTurn(async (_k, meta) => {
        credits.push({ credit: meta.creditIssuedAt, latest });
        await Promise.resolve();
      }),
    });
  } finally {
    performance.now = real;
  }
  assert.equal(outcome.issued, 200);
  // The credit is the latest reading on the run clock (offset 7) when the request goes.
  for (const c of credits) assert.equal(c.credit, c.latest + 7);
  assert.ok(reads <= 2 * 200 + 8, `${reads} clock reads for 200 requests`);
});

Deno.test("a session whose send rejects gives its slot back, and its error is not swallowed", async () => {
  // Sessions must not reject; where one does anyway, its slot is not lost (later sessions run) and its error still
  // surfaces (an unhandled rejection, as before: nothing in the loop awaits a finished session).
  const surfaced: unknown[] = [];
  const onUnhandled = (e: PromiseRejectionEvent) => {
    surfaced.push(e.reason);
    e.preventDefault();
  };
  globalThis.addEventListener("unhandledrejection", onUnhandled);
  let sent = 0;
  const boom = new Error("boom");
  try {
    const phase = runPhase({
      shard: shardPhase(closed(1, { requestCount: 3 }), 0, 1),
      clock: new ManualClock(0),
      rng: new SeededRandom(5),
      signal: new AbortController().signal,
      openSession: oneTurn(async () => {
        await Promise.resolve();
        if (sent++ === 0) throw boom;
      }),
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hung = new Promise<string>((r) => timer = setTimeout(() => r("hung"), 2_000));
    const result = await Promise.race([phase.then((o) => o.issued, (e) => e), hung]);
    clearTimeout(timer);
    assert.equal(result, 3);
    assert.equal(sent, 3);
    await new Promise((r) => setTimeout(r, 20)); // the runtime reports unhandled rejections at the end of a turn
  } finally {
    globalThis.removeEventListener("unhandledrejection", onUnhandled);
  }
  assert.deepEqual(surfaced, [boom]);
});
