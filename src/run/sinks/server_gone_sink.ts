/**
 * Stops a run whose server went away (timing/server_gone.ts): judged on records as they arrive, every phase; when
 * tripped the run is stopped through the given callback and ends with exit 3, its records up to then written.
 */
import type { RequestRecord } from "../../records/request_record.ts";
import { CONNECT_FAILURE_TYPES, ServerGone } from "../../timing/server_gone.ts";
import type { RecordSink } from "../record_sink.ts";

/** Connect failures in a row, at the least, that stop a run (more with more concurrency). */
export const SERVER_GONE_MIN_FAILURES = 10;
/**
 * How long they must span: a port closed for a moment (a hot reload) is waited for, while a dead server at tens of
 * thousands of refusals a second is left within a few thousand attempts.
 */
export const SERVER_GONE_MS = 100;

export class ServerGoneSink implements RecordSink {
  readonly name = "server-gone";
  readonly #gone: ServerGone;
  readonly #stop: () => void;
  readonly #target: string;

  constructor(options: { concurrency: number | undefined; target: string; stop: () => void }) {
    this.#gone = new ServerGone({
      atLeast: Math.max(options.concurrency ?? 1, SERVER_GONE_MIN_FAILURES),
      forMs: SERVER_GONE_MS,
    });
    this.#stop = options.stop;
    this.#target = options.target;
  }

  /** Why the run was stopped, once tripped. */
  get tripped(): string | undefined {
    return this.#gone.tripped;
  }

  arrived(record: RequestRecord): void {
    const failed = record.error !== undefined && CONNECT_FAILURE_TYPES.has(record.error.type);
    if (this.#gone.observe(failed, record.endAt, this.#target) !== undefined) this.#stop();
  }
}
