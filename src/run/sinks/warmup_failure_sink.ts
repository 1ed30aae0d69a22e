/**
 * Stops a run whose warm-up must succeed (agentic replay: each warm-up request primes a lane, and a lane measured
 * without it would bias the steady state), as AIPerf 0.13 aborts on a failed trajectory warm-up: once every warm-up
 * request has ended, a failed or cancelled one stops the run before the measured phase; it ends with exit 1.
 */
import type { Phase, RequestRecord } from "../../records/request_record.ts";
import type { RecordSink } from "../record_sink.ts";

export class WarmupFailureSink implements RecordSink {
  readonly name = "warmup-failure";
  readonly #expected: number;
  readonly #stop: () => void;
  readonly #failed = new Set<string>();
  #ended = 0;
  #reason: string | undefined;

  /** @param expected the warm-up's requests */
  constructor(options: { expected: number; stop: () => void }) {
    this.#expected = options.expected;
    this.#stop = options.stop;
  }

  /** Why the run was stopped, once it was. */
  get tripped(): string | undefined {
    return this.#reason;
  }

  phaseStarted(phase: Phase): void {
    if (phase === "profiling") this.#judge();
  }

  arrived(record: RequestRecord): void {
    if (record.phase !== "warmup") return;
    if (record.error !== undefined || record.cancelled) this.#failed.add(record.conversationId);
    if (++this.#ended === this.#expected) this.#judge();
  }

  #judge(): void {
    if (this.#reason !== undefined || this.#failed.size === 0) return;
    const ids = [...this.#failed];
    this.#reason = `the warm-up failed for ${ids.length} trace stream${ids.length === 1 ? "" : "s"} ` +
      `(${ids.join(", ")}); the run was stopped before measuring, as a lane without its warm-up would bias the ` +
      "results.";
    this.#stop();
  }
}
