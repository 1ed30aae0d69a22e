/**
 * Thrown by work that stopped because the user interrupted the run (Ctrl-C, SIGTERM) before it had begun: a dataset
 * load, request preparation. The caller that owns the signal turns it into the interrupted outcome (exit 130).
 */
export class InterruptedError extends Error {
  override readonly name = "InterruptedError";

  constructor(what: string) {
    super(`interrupted while ${what}`);
  }
}
