/**
 * When a phase stops issuing (AIPerf's stop conditions; the first one reached wins), checked before every request:
 * - request count: no request after the phase's budget is spent (every turn of every session counts);
 * - session count: no new session after that many have started (their later turns still go);
 * - duration: nothing is issued at or after the deadline; requests still in flight may finish during the grace
 *   period, then are cancelled (`Infinity` waits for all of them).
 * Cancellation (Ctrl-C, the failure gate) is the phase's abort signal, outside these.
 */

/** A phase's limits as data (they cross to engine Workers). */
export interface StopSpec {
  /** Requests this phase sends at most. */
  readonly requestCount?: number;
  /** Sessions this phase starts at most. */
  readonly sessionCount?: number;
  /** Stop issuing this many ms after the phase starts. */
  readonly durationMs?: number;
  /** After the duration, how long in-flight requests may finish before they are cancelled (ms). */
  readonly gracePeriodMs: number;
}

/** What the phase has issued so far. */
export interface IssueState {
  readonly requestsSent: number;
  readonly sessionsStarted: number;
  /** Run-clock time now. */
  readonly now: number;
}

export interface StopCondition {
  /** May any request (a new session's first turn or a running session's next turn) be sent? */
  canSendAnyTurn(state: IssueState): boolean;
  /** May a new session start? (Checked in addition to `canSendAnyTurn`.) */
  canStartNewSession(state: IssueState): boolean;
}

export class RequestCountStop implements StopCondition {
  readonly #count: number;
  constructor(count: number) {
    this.#count = count;
  }
  canSendAnyTurn(state: IssueState): boolean {
    return state.requestsSent < this.#count;
  }
  canStartNewSession(state: IssueState): boolean {
    return state.requestsSent < this.#count;
  }
}

export class SessionCountStop implements StopCondition {
  readonly #count: number;
  constructor(count: number) {
    this.#count = count;
  }
  canSendAnyTurn(_state: IssueState): boolean {
    return true;
  }
  canStartNewSession(state: IssueState): boolean {
    return state.sessionsStarted < this.#count;
  }
}

export class DurationStop implements StopCondition {
  /** Absolute run-clock deadline. */
  readonly deadline: number;
  constructor(startedAt: number, durationMs: number) {
    this.deadline = startedAt + durationMs;
  }
  canSendAnyTurn(state: IssueState): boolean {
    return state.now < this.deadline;
  }
  canStartNewSession(state: IssueState): boolean {
    return state.now < this.deadline;
  }
}

/** The conditions a spec asks for, bound to the phase's start. */
export class PhaseStops implements StopCondition {
  readonly #all: readonly StopCondition[];
  /** Absolute deadline of issuing (Infinity without a duration). */
  readonly deadline: number;
  readonly gracePeriodMs: number;

  constructor(spec: StopSpec, startedAt: number) {
    const all: StopCondition[] = [];
    if (spec.requestCount !== undefined) all.push(new RequestCountStop(spec.requestCount));
    if (spec.sessionCount !== undefined) all.push(new SessionCountStop(spec.sessionCount));
    const duration = spec.durationMs === undefined ? undefined : new DurationStop(startedAt, spec.durationMs);
    if (duration !== undefined) all.push(duration);
    this.#all = all;
    this.deadline = duration?.deadline ?? Infinity;
    this.gracePeriodMs = spec.gracePeriodMs;
  }

  canSendAnyTurn(state: IssueState): boolean {
    for (const c of this.#all) if (!c.canSendAnyTurn(state)) return false;
    return true;
  }

  canStartNewSession(state: IssueState): boolean {
    for (const c of this.#all) if (!c.canStartNewSession(state)) return false;
    return true;
  }
}
