/**
 * Runs one phase (warmup or profiling) of one shard: one loop for every load mode. The strategy says when a request
 * may go out (timing/load_strategy.ts), the stop conditions whether one may (timing/stop_conditions.ts), and this
 * loop what goes: a running session's next turn when the strategy paces them (open loop; priority, as in AIPerf),
 * else a new session, which holds a session slot until its last turn.
 *
 * A session's turns run in order on one virtual user: turn k waits for turn k − 1's answer, then its think time
 * (`delay`) or its own timestamp (trace replay), then — open loop — a tick of its own. Every request carries its due
 * time (`scheduledAt`) when it had one, so lateness is measured, not hidden.
 *
 * A session may start child sessions (an agent's sub-agents, engine/session_tree.ts): after a turn's answer its
 * children run concurrently with it on virtual users of their own, without session slots of their own and without
 * ticks (their turns follow their think times; each request still counts against the request budget and takes a
 * prefill slot); a later turn that joins them waits until they have all ended, and the session holds its slot until
 * its whole tree has. A session without children runs exactly as before.
 *
 * Stopping: no request once a stop condition says so; at the duration's deadline, requests in flight may finish
 * during the grace period and are then cancelled; cancellation (Ctrl-C, the failure gate) stops issuing and cancels
 * requests in flight, which become records with `RequestCancellationError`.
 */
import type { Clock } from "../timing/clock.ts";
import type { SeededRandom } from "../base/seeded_random.ts";
import type { LoadStrategy, LoadStrategyEntry, Tick } from "../timing/load_strategy.ts";
import type { Registry } from "../base/registry.ts";
import { LOAD_STRATEGIES } from "../timing/load_strategies.ts";
import type { ShardPhase } from "../timing/phase_spec.ts";
import { type IssueState, PhaseStops } from "../timing/stop_conditions.ts";
import { SlotGate } from "../timing/slot_gate.ts";
import { rampUp } from "../timing/concurrency_strategy.ts";
import { nextMacrotask } from "../runtime/next_macrotask.ts";
import type { YieldToIo } from "../runtime/io_yield.ts";
import type { RecordLineage } from "../records/request_record.ts";
import { type ChildSession, SessionTree } from "./session_tree.ts";
import { RequestTimers } from "../timing/request_timers.ts";

/**
 * Longest stretch of back-to-back request issuing before yielding to the event loop with `yieldToIo`, which lets
 * the thread's pending socket reads complete (runtime/io_yield.ts). When hundreds of streams finish together (a
 * batching server's decode step), a closed loop re-issues hundreds of requests at once; issuing them in one go
 * (~20–30 µs each, ~6 ms for 256 here) would hold up the socket reads, and so the timestamps, of the streams
 * still receiving their last tokens.
 */
const ISSUE_SLICE_MS = 1;

/** What one request of a session is, for the code that sends it. */
export interface SendMeta {
  /** Global request index within the phase (unique across shards). */
  readonly requestIndex: number;
  /** Global index of the session (AIPerf `session_num`). */
  readonly sessionIndex: number;
  readonly turnIndex: number;
  /** No later turn of the session follows. @default true */
  readonly lastTurn?: boolean;
  /** When the permission to send was given (closed loop: when the slot or the previous turn freed it). */
  readonly creditIssuedAt: number;
  /** The due time, where the request had one (open loop, trace replay, think time). */
  readonly scheduledAt?: number;
  /** Cancel the request this many ms after it is fully sent (request cancellation); undefined = never. */
  readonly cancelAfterMs?: number;
  /** Called once when the first response (SSE event or body) arrives: frees the request's prefill slot. */
  readonly onFirstResponse?: () => void;
  /** `scheduledAt` is the trace's own timestamp (fixed schedule), not a tick of a rate or a think time. */
  readonly timestampScheduled?: boolean;
  /** A child session's place in its tree (set by the session that sends it); absent for a root session. */
  readonly lineage?: RecordLineage;
}

/** One running conversation, as the phase loop drives it. */
export interface PhaseSession {
  readonly turnCount: number;
  /** Think time before turn `k` (k ≥ 1), ms after turn k − 1's answer. */
  delayBefore(k: number): number | undefined;
  /** Turn `k`'s own send time, ms from the phase start (k ≥ 1; consulted in trace replay only). */
  timestampOf(k: number): number | undefined;
  /** Sends turn `k` and resolves once its record has been handed on. Must not reject. */
  send(k: number, meta: SendMeta, signal: AbortSignal): Promise<void>;
  /**
   * Some turn starts child sessions (or children start before the first turn): the session runs as a tree and
   * `childrenAfter`, `requestFree` and, for a request-free or child session's first turn, `delayBefore(0)` are
   * consulted. @default false
   */
  readonly spawns?: boolean;
  /** The children started after turn `k` is answered (k = −1: before the first turn); undefined when none. */
  childrenAfter?(k: number): readonly ChildSession<PhaseSession>[] | undefined;
  /** Turn `k` sends nothing: it waits (its joins, its delay) and starts its children. */
  requestFree?(k: number): boolean;
}

/** Starts the session with global index `sessionIndex` for a tick (which may name its conversation). */
export type OpenSession = (sessionIndex: number, tick: Tick) => PhaseSession;

export interface PhaseRunOptions {
  readonly shard: ShardPhase;
  readonly clock: Clock;
  /** Arrival-time randomness (open loop). */
  readonly rng: SeededRandom;
  /** Aborted by Ctrl-C or a failure gate: stop issuing and cancel in-flight requests. */
  readonly signal: AbortSignal;
  readonly openSession: OpenSession;
  /** Awaited between issuing slices (see ISSUE_SLICE_MS). @default nextMacrotask */
  readonly yieldToIo?: YieldToIo;
  /** Where the phase's strategy is looked up by name. @default LOAD_STRATEGIES */
  readonly strategies?: Registry<LoadStrategyEntry>;
}

export interface PhaseOutcome {
  /** Requests sent. */
  readonly issued: number;
  readonly sessionsStarted: number;
  readonly startedAt: number;
  readonly endedAt: number;
  /** Issuing stopped because the duration elapsed. */
  readonly durationReached: boolean;
  /** In-flight requests that were cancelled (grace period over, or the run was cancelled). */
  readonly cancelledInFlight: number;
  readonly cancelled: boolean;
}

/** Yields to the event loop when issuing has gone on for more than ISSUE_SLICE_MS without a pause. */
class IssueSlicer {
  readonly #yield: YieldToIo;
  #sliceStart = -Infinity;
  #lastIssueAt = -Infinity;
  constructor(yieldToIo: YieldToIo) {
    this.#yield = yieldToIo;
  }
  /**
   * Undefined when the caller may issue at once; else a promise to await first. `now`: `performance.now()` read by
   * the caller just before.
   */
  beforeIssue(now: number): Promise<void> | undefined {
    let pause: Promise<void> | undefined;
    if (now - this.#lastIssueAt > ISSUE_SLICE_MS) {
      this.#sliceStart = now; // the loop was idle: a new burst starts
    } else if (now - this.#sliceStart > ISSUE_SLICE_MS) {
      pause = this.#yield().then(() => {
        this.#sliceStart = performance.now();
      });
    }
    this.#lastIssueAt = now;
    return pause;
  }
}

export async function runPhase(opts: PhaseRunOptions): Promise<PhaseOutcome> {
  const { clock, openSession } = opts;
  const { spec, firstIndex, indexStride } = opts.shard;
  const startedAt = clock.now();
  const stops = new PhaseStops(spec.stops, startedAt);
  const slicer = new IssueSlicer(opts.yieldToIo ?? nextMacrotask);

  // Aborting `stop` ends issuing; aborting `inflight` cancels requests already sent.
  const stop = new AbortController();
  const inflight = new AbortController();
  const onCancel = () => {
    stop.abort();
    inflight.abort();
  };
  if (opts.signal.aborted) onCancel();
  opts.signal.addEventListener("abort", onCancel, { once: true });

  const entry = (opts.strategies ?? LOAD_STRATEGIES).get(spec.strategy.name);
  // A system idle cap moves every pending request earlier when nothing is in flight (timing/request_timers.ts).
  const idleCapMs = entry.systemIdleGapCapMs?.(spec.strategy.options);
  const timers = idleCapMs === undefined ? undefined : new RequestTimers(clock, idleCapMs, startedAt);
  const strategy: LoadStrategy = entry.create(spec.strategy.options, {
    clock,
    rng: opts.rng,
    shardIndex: opts.shard.shardIndex,
    shardCount: opts.shard.shardCount,
    startedAt,
    stop: stop.signal,
    ...(timers === undefined ? {} : { timers }),
  });
  const followsTimestamps = entry.followsTimestamps === true;
  const pacesSessions = strategy.nextTurnDue !== undefined;

  // Prefill limit: a slot is held from just before a request is sent until its first response arrives.
  const prefillRamping = (spec.prefillRampMs ?? 0) > 0 && (spec.prefillConcurrency ?? 1) > 1;
  const prefill = spec.prefillConcurrency === undefined
    ? undefined
    : new SlotGate(prefillRamping ? 1 : spec.prefillConcurrency);
  if (prefill !== undefined && prefillRamping) {
    rampUp(prefill, spec.prefillConcurrency!, startedAt, spec.prefillRampMs!, clock, stop.signal);
  }
  // Which requests are cancelled is drawn in issue order from a seeded stream, so a run repeats exactly.
  const cancellation = spec.cancellation !== undefined && spec.cancellation.percent > 0 ? spec.cancellation : undefined;
  const cancelRng = cancellation === undefined ? undefined : opts.rng.derive("request-cancellation");

  let durationReached = false;
  if (stops.deadline !== Infinity) {
    clock.sleepUntil(stops.deadline, stop.signal).then(() => {
      if (!stop.signal.aborted) {
        durationReached = true;
        stop.abort();
      }
    });
  }

  // Running sessions' next turns waiting for a tick (open loop), first come first served.
  const waitingForTick: ((tick: Tick | undefined) => void)[] = [];
  const releaseWaiting = () => {
    for (const wake of waitingForTick.splice(0)) wake(undefined);
  };
  stop.signal.addEventListener("abort", () => {
    strategy.close();
    prefill?.close();
    releaseWaiting();
  }, { once: true });

  let requestsSent = 0;
  let sessionsStarted = 0;
  let inFlight = 0;
  const state = (): IssueState => ({ requestsSent, sessionsStarted, now: clock.now() });
  /** `state()` at the moment `performance.now()` read `t`: one clock read where the clock follows it. */
  const fromPerformanceNow = clock.fromPerformanceNow?.bind(clock);
  const stateAt = (t: number): IssueState =>
    fromPerformanceNow === undefined ? state() : { requestsSent, sessionsStarted, now: fromPerformanceNow(t) };
  const running = new Set<Promise<void>>();
  /** The loop gives no more ticks: a session must not start waiting for one. */
  let ticksOver = false;

  /**
   * Sends turn k: counted now (synchronously, so budgets and indices follow issue order), then awaited. The
   * caller has taken a prefill slot when there is a prefill limit; it is given back at the first response.
   */
  const sendTurn = async (
    session: PhaseSession,
    sessionIndex: number,
    k: number,
    at: Tick | undefined,
    turns: number,
    fromTimestamp: boolean,
    issuedAt?: number,
  ) => {
    const requestIndex = firstIndex + requestsSent++ * indexStride;
    inFlight++;
    timers?.requestStarted();
    let prefillHeld = prefill !== undefined;
    const freePrefill = () => {
      if (prefillHeld) {
        prefillHeld = false;
        prefill!.release();
      }
    };
    const cancelAfterMs = cancelRng !== undefined && cancelRng.next() < cancellation!.percent / 100
      ? cancellation!.delayMs
      : undefined;
    try {
      await session.send(k, {
        requestIndex,
        sessionIndex,
        turnIndex: k,
        lastTurn: k === turns - 1,
        // The clock read of the check that let this request go, where the caller made one just before.
        creditIssuedAt: at?.scheduledAt ?? issuedAt ?? clock.now(),
        scheduledAt: at?.scheduledAt,
        cancelAfterMs,
        onFirstResponse: prefill === undefined ? undefined : freePrefill,
        timestampScheduled: fromTimestamp && at?.scheduledAt !== undefined,
      }, inflight.signal);
    } finally {
      freePrefill();
      inFlight--;
      timers?.requestEnded();
    }
  };

  /** Takes a prefill slot where there is a limit; false when the phase stopped while waiting. */
  const takePrefill = (): Promise<boolean> | boolean => prefill === undefined ? true : prefill.acquire();

  /** Sleeps until a request's due time; resolves with that time, brought forward when the idle cap moved it. */
  const sleepTo = async (due: number): Promise<number> => {
    if (timers !== undefined) return await timers.sleepUntil(due, stop.signal);
    await clock.sleepUntil(due, stop.signal);
    return due;
  };

  /** Sleeps `ms` from now (a think time); false when the phase stopped meanwhile. */
  const think = async (ms: number | undefined): Promise<boolean> => {
    if (ms !== undefined && ms > 0) await sleepTo(clock.now() + ms);
    return !stop.signal.aborted;
  };

  /** When turn `k` ≥ 1 of a session is due: the strategy's pacing, the turn's own timestamp, or its think time. */
  const turnDue = (
    session: PhaseSession,
    k: number,
    previousDue: number,
  ): { due: number | undefined; own: number | undefined } => {
    const own = followsTimestamps ? session.timestampOf(k) : undefined;
    const delay = pacesSessions ? undefined : session.delayBefore(k);
    const due = pacesSessions
      ? strategy.nextTurnDue!(previousDue, clock.now())
      : own !== undefined
      ? startedAt + own
      : delay !== undefined && delay > 0
      ? clock.now() + delay
      : undefined;
    return { due, own };
  };

  /**
   * Sends turn `k` ≥ 1 once it is due (and its tick has come, where the strategy paces continuations); false when the
   * session must end instead.
   */
  const sendLaterTurn = async (
    session: PhaseSession,
    sessionIndex: number,
    k: number,
    turns: number,
    due: number | undefined,
    own: number | undefined,
  ): Promise<boolean> => {
    const sentAt = due === undefined ? undefined : await sleepTo(due);
    if (stop.signal.aborted) return false;
    let at: Tick | undefined = sentAt === undefined ? undefined : { scheduledAt: sentAt };
    if (strategy.pacesContinuations) {
      if (ticksOver || !stops.canSendAnyTurn(state())) return false;
      at = await new Promise<Tick | undefined>((wake) => waitingForTick.push(wake));
      if (at === undefined) return false;
    }
    if (!stops.canSendAnyTurn(state())) return false;
    if (!(await takePrefill())) return false;
    // The slicer's reading is the issue check's too (the credit time), unless the slicer paused in between.
    const readAt = performance.now();
    const pause = slicer.beforeIssue(readAt);
    if (pause !== undefined) await pause;
    const issue = pause === undefined ? stateAt(readAt) : state();
    if (stop.signal.aborted || !stops.canSendAnyTurn(issue)) {
      prefill?.release();
      return false;
    }
    await sendTurn(session, sessionIndex, k, at, turns, own !== undefined && !strategy.pacesContinuations, issue.now);
    return true;
  };

  const runSession = async (
    session: PhaseSession,
    sessionIndex: number,
    first: Tick,
    turns: number,
    issuedAt: number,
  ): Promise<void> => {
    await sendTurn(session, sessionIndex, 0, first, turns, followsTimestamps, issuedAt);
    let previousDue = first.scheduledAt ?? clock.now();
    for (let k = 1; k < turns && !inflight.signal.aborted; k++) {
      const { due, own } = turnDue(session, k, previousDue);
      if (due !== undefined) previousDue = due;
      if (!(await sendLaterTurn(session, sessionIndex, k, turns, due, own))) return;
    }
  };

  /**
   * A session that starts children (`spawns`): its turns go as `runSession`'s do, each joining turn also waiting for
   * its children, and it ends once its whole tree has.
   */
  const runTreeSession = async (
    session: PhaseSession,
    sessionIndex: number,
    first: Tick,
    turns: number,
  ): Promise<void> => {
    const tree = new SessionTree(session, (child) => runChild(child, sessionIndex));
    try {
      tree.start(-1);
      if (session.requestFree!(0)) {
        prefill?.release(); // taken for the first turn, which sends nothing
        if (!(await think(session.delayBefore(0))) || !stops.canSendAnyTurn(state())) return;
      } else {
        await sendTurn(session, sessionIndex, 0, first, turns, followsTimestamps);
      }
      tree.start(0);
      let previousDue = first.scheduledAt ?? clock.now();
      for (let k = 1; k < turns && !inflight.signal.aborted; k++) {
        const join = tree.joinBefore(k);
        if (session.requestFree!(k)) {
          // A request-free turn's think time starts once the children it waits for have ended.
          if (join !== undefined) await join;
          if (!(await think(session.delayBefore(k))) || !stops.canSendAnyTurn(state())) return;
          tree.start(k);
          continue;
        }
        const { due, own } = turnDue(session, k, previousDue);
        if (due !== undefined) previousDue = due;
        // The think time runs while the children finish: the turn goes at the later of the two.
        if (join !== undefined) await join;
        if (!(await sendLaterTurn(session, sessionIndex, k, turns, due, own))) return;
        tree.start(k);
      }
    } finally {
      // The session (and its slot) ends when its whole tree has: children stopped early end early too.
      await tree.drain();
    }
  };

  /**
   * Runs a child session to its end (its own children included): its first turn after its start offset, each later
   * one after the previous answer and its think time (or, in a trace replay, at its own timestamp), with no tick.
   * Its requests are numbered, counted and limited like every other; it takes no session slot.
   */
  const runChild = async (child: PhaseSession, sessionIndex: number): Promise<void> => {
    const turns = child.turnCount;
    const tree = child.spawns === true ? new SessionTree(child, (c) => runChild(c, sessionIndex)) : undefined;
    try {
      tree?.start(-1);
      for (let k = 0; k < turns && !inflight.signal.aborted; k++) {
        let join = tree?.joinBefore(k);
        const requestFree = tree !== undefined && child.requestFree!(k);
        if (requestFree && join !== undefined) {
          await join;
          join = undefined;
        }
        const own = followsTimestamps && k > 0 ? child.timestampOf(k) : undefined;
        const delay = own === undefined ? child.delayBefore(k) : undefined;
        let due = own !== undefined
          ? startedAt + own
          : delay !== undefined && delay > 0
          ? clock.now() + delay
          : undefined;
        if (join !== undefined) await join;
        if (due !== undefined) due = await sleepTo(due);
        if (stop.signal.aborted || !stops.canSendAnyTurn(state())) return;
        if (!requestFree) {
          if (!(await takePrefill())) return;
          const pause = slicer.beforeIssue(performance.now());
          if (pause !== undefined) await pause;
          if (stop.signal.aborted || !stops.canSendAnyTurn(state())) {
            prefill?.release();
            return;
          }
          const at = due === undefined ? undefined : { scheduledAt: due };
          await sendTurn(child, sessionIndex, k, at, turns, own !== undefined);
        }
        tree?.start(k);
      }
    } finally {
      if (tree !== undefined) await tree.drain();
    }
  };

  while (!stop.signal.aborted) {
    const tick = await strategy.nextTick(stop.signal, stops.deadline);
    if (tick === undefined || stop.signal.aborted) break;
    const waiting = waitingForTick.shift();
    if (waiting !== undefined) {
      waiting(tick);
      continue;
    }
    if (!stops.canStartNewSession(state())) {
      // Ticks go on while running sessions may still want some for their later turns.
      if (strategy.pacesContinuations && running.size > 0 && stops.canSendAnyTurn(state())) continue;
      break;
    }
    if (!(await strategy.acquireSession())) break;
    // Without a prefill limit the slot is `true` at once: no await (and no turn of the microtask queue) for it.
    const slot = takePrefill();
    if (slot !== true && !(await slot)) {
      strategy.releaseSession();
      break;
    }
    // The slicer's reading is the issue check's too (the credit time), unless the slicer paused in between.
    const readAt = performance.now();
    const pause = slicer.beforeIssue(readAt);
    if (pause !== undefined) await pause;
    const issue = pause === undefined ? stateAt(readAt) : state();
    if (stop.signal.aborted || !stops.canStartNewSession(issue)) {
      prefill?.release();
      strategy.releaseSession();
      break;
    }
    const sessionIndex = firstIndex + sessionsStarted++ * indexStride;
    const session = openSession(sessionIndex, tick);
    const turns = Math.min(session.turnCount, tick.maxTurns ?? Infinity);
    strategy.sessionStarted?.(tick, turns);
    // Most sessions are one request: no per-turn loop for them.
    const run = session.spawns === true
      ? runTreeSession(session, sessionIndex, tick, turns)
      : turns === 1
      ? sendTurn(session, sessionIndex, 0, tick, 1, followsTimestamps, issue.now)
      : runSession(session, sessionIndex, tick, turns, issue.now);
    // `then` with a handler for each outcome rather than `finally`, which makes two more promises and three closures
    // per request; a rejection still rejects `p`, after the session was given back.
    const settled = (): void => {
      running.delete(p);
      strategy.releaseSession();
    };
    const p: Promise<void> = run.then(settled, (err: unknown) => {
      settled();
      throw err;
    });
    running.add(p);
  }
  // Nothing more will be issued by the loop: sessions waiting for a tick end here; the others go on with their
  // later turns while the stop conditions allow.
  ticksOver = true;
  releaseWaiting();

  let cancelledInFlight = 0;
  if (running.size > 0) {
    if (opts.signal.aborted) {
      cancelledInFlight = inFlight;
    } else if ((durationReached || spec.graceAfterSending === true) && stops.gracePeriodMs !== Infinity) {
      // Wait for stragglers until the grace period ends (after the deadline, or after the last request was sent
      // for a phase whose grace starts there), then cancel what is left.
      const graceOver = new AbortController();
      const all = Promise.all(running).then(() => graceOver.abort());
      const from = durationReached ? stops.deadline : clock.now();
      await clock.sleepUntil(from + stops.gracePeriodMs, graceOver.signal);
      if (running.size > 0) {
        cancelledInFlight = inFlight;
        inflight.abort();
      }
      await all;
    }
    await Promise.all(running);
  }
  opts.signal.removeEventListener("abort", onCancel);
  stop.abort(); // ends the duration sleeper and the strategy if still pending
  return {
    issued: requestsSent,
    sessionsStarted,
    startedAt,
    endedAt: clock.now(),
    durationReached,
    cancelledInFlight,
    cancelled: opts.signal.aborted,
  };
}
