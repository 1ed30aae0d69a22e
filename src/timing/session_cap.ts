/**
 * The session slots of an open-loop strategy with an optional concurrency cap (request rate, user-centric rate, a
 * replayed trace): without a cap every session may start at once.
 */
import { SlotGate } from "./slot_gate.ts";

export abstract class SessionCap {
  readonly #gate: SlotGate | undefined;

  constructor(cap: number | undefined) {
    this.#gate = cap === undefined ? undefined : new SlotGate(cap);
  }

  acquireSession(): Promise<boolean> {
    return this.#gate === undefined ? Promise.resolve(true) : this.#gate.acquire();
  }

  releaseSession(): void {
    this.#gate?.release();
  }

  close(): void {
    this.#gate?.close();
  }
}
