/**
 * A session that resumes its conversation at turn `from` instead of its first (agentic replay, timing/trajectory.ts):
 * the phase runner sees turns 0, 1, … and this view sends the conversation's turns `from`, `from + 1`, … with their
 * own indices, think times and children, their joins renumbered.
 *
 * A root resumed at a sampled instant starts with a request-free wait (`lead`): its sub-agents live at that instant
 * start with it (each after its own delay), and the root's turn goes `firstDelayMs` later — or, when it joins live
 * sub-agents, once they have ended. A sub-agent resumed mid-way needs no wait: its first turn's delay is its start.
 */
import type { PhaseSession, SendMeta } from "./phase_runner.ts";
import type { ChildSession } from "./session_tree.ts";

export class ResumedSession implements PhaseSession {
  readonly turnCount: number;
  readonly spawns: boolean;
  readonly #inner: PhaseSession;
  readonly #shift: number;
  readonly #firstDelayMs: number;
  readonly #lead: readonly ChildSession<PhaseSession>[] | undefined;

  /**
   * @param from the conversation's first turn to send (its turn count: none, only the lead's children)
   * @param firstDelayMs wait before that turn, from the session's start
   * @param lead with a lead: the live children started with the session (their `joinAt` in the conversation's
   *   numbering); without one, the view starts directly at `from`
   */
  constructor(
    inner: PhaseSession,
    from: number,
    firstDelayMs: number,
    lead?: readonly ChildSession<PhaseSession>[],
  ) {
    this.#inner = inner;
    this.#lead = lead;
    this.#shift = lead === undefined ? from : from - 1;
    this.#firstDelayMs = firstDelayMs;
    this.turnCount = Math.max(0, inner.turnCount - from) + (lead === undefined ? 0 : 1);
    this.spawns = lead !== undefined || inner.spawns === true;
  }

  /** The conversation's turn for the view's turn `j`. */
  #turn(j: number): number {
    return j + this.#shift;
  }

  /** A join in the conversation's numbering, in the view's; a join already passed is dropped. */
  #join(child: ChildSession<PhaseSession>): ChildSession<PhaseSession> {
    if (child.joinAt === undefined) return child;
    const j = child.joinAt - this.#shift;
    return j >= (this.#lead === undefined ? 0 : 1) ? { session: child.session, joinAt: j } : { session: child.session };
  }

  delayBefore(j: number): number | undefined {
    if (j === 0) return this.#firstDelayMs;
    if (j === 1 && this.#lead !== undefined) return undefined; // the lead waited already
    return this.#inner.delayBefore(this.#turn(j));
  }

  timestampOf(): number | undefined {
    return undefined;
  }

  requestFree(j: number): boolean {
    if (j === 0 && this.#lead !== undefined) return true;
    return this.#inner.requestFree?.(this.#turn(j)) ?? false;
  }

  childrenAfter(j: number): readonly ChildSession<PhaseSession>[] | undefined {
    if (j === -1) return this.#lead?.map((c) => this.#join(c));
    if (j === 0 && this.#lead !== undefined) return undefined;
    return this.#inner.childrenAfter?.(this.#turn(j))?.map((c) => this.#join(c));
  }

  send(j: number, meta: SendMeta, signal: AbortSignal): Promise<void> {
    const k = this.#turn(j);
    return this.#inner.send(k, { ...meta, turnIndex: k, lastTurn: k === this.#inner.turnCount - 1 }, signal);
  }

  /** A session of this view's first turn alone, starting no child (a warm-up request). */
  firstTurnOnly(): PhaseSession {
    return {
      turnCount: Math.min(1, this.turnCount),
      delayBefore: () => undefined,
      timestampOf: () => undefined,
      send: (_j, meta, signal) => this.send(0, meta, signal),
    };
  }
}
