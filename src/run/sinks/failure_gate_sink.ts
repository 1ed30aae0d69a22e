/**
 * `--failed-request-threshold` (AIPerf): judged on profiling records as they arrive, after max(concurrency, 10)
 * of them; when tripped the run is stopped through the given callback.
 */
import type { RequestRecord } from "../../records/request_record.ts";
import { FailureGate } from "../../timing/failure_gate.ts";
import type { RecordSink } from "../record_sink.ts";

export class FailureGateSink implements RecordSink {
  readonly name = "failure-gate";
  readonly #gate: FailureGate;
  readonly #stop: () => void;

  constructor(options: { threshold: number; concurrency: number | undefined; stop: () => void }) {
    this.#gate = new FailureGate({ threshold: options.threshold, judgeAfter: Math.max(options.concurrency ?? 1, 10) });
    this.#stop = options.stop;
  }

  /** Why the run was stopped, once tripped. */
  get tripped(): string | undefined {
    return this.#gate.tripped;
  }

  arrived(record: RequestRecord): void {
    if (record.phase !== "profiling") return;
    if (this.#gate.observe(record.error !== undefined) !== undefined) this.#stop();
  }
}
