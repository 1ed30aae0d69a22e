/**
 * The children one running session has started (an agent's sub-agents, `Conversation.spawns`) and the turns that
 * wait for them. A child runs as soon as it is started; a join resolves once every child registered for that turn
 * has ended, its own children included (each child drains its own tree before its run resolves). The session ends
 * when its whole tree has drained, so its session slot is held until then.
 */

/** A child session a turn starts, and the turn of its parent that waits for it. */
export interface ChildSession<S> {
  readonly session: S;
  /** The parent's turn that waits until this child's tree has ended; undefined: only the parent's end waits. */
  readonly joinAt?: number;
}

/** A session that may start children. */
export interface SpawningSession<S> {
  /** The children started after turn `k` is answered (k = −1: before the first turn); undefined when none. */
  childrenAfter?(k: number): readonly ChildSession<S>[] | undefined;
}

export class SessionTree<S extends SpawningSession<S>> {
  readonly #session: S;
  readonly #run: (child: S) => Promise<void>;
  readonly #all: Promise<void>[] = [];
  #joins: Map<number, Promise<void>[]> | undefined;

  /** `run` runs one child to its end and must not reject. */
  constructor(session: S, run: (child: S) => Promise<void>) {
    this.#session = session;
    this.#run = run;
  }

  /** Starts the children turn `k` starts once answered (k = −1: those started before the first turn). */
  start(k: number): void {
    const children = this.#session.childrenAfter?.(k);
    if (children === undefined) return;
    for (const child of children) {
      const ended = this.#run(child.session);
      this.#all.push(ended);
      if (child.joinAt === undefined) continue;
      const joins = this.#joins ??= new Map();
      const waiting = joins.get(child.joinAt);
      if (waiting === undefined) joins.set(child.joinAt, [ended]);
      else waiting.push(ended);
    }
  }

  /** Resolves when every child turn `k` waits for has ended; undefined when it waits for none. */
  joinBefore(k: number): Promise<unknown> | undefined {
    const waiting = this.#joins?.get(k);
    if (waiting === undefined) return undefined;
    this.#joins!.delete(k);
    return Promise.all(waiting);
  }

  /** Resolves when every child started so far has ended. */
  drain(): Promise<unknown> {
    return Promise.all(this.#all);
  }
}
