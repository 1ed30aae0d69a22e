/**
 * A cheap, read-only view of a run while it goes, for the embedded HTTP API, the Prometheus endpoint and live
 * displays: which phase runs, how many records arrived, and the running metric figures. Reading it costs
 * O(number of metrics) and never touches the engine.
 */
import type { Phase, RequestRecord } from "../records/request_record.ts";
import type { LiveSnapshot } from "../metrics/run_summary.ts";
import type { PhaseSpec } from "../timing/phase_spec.ts";
import type { RecordSink } from "./record_sink.ts";
import type { TransportActivity } from "../transport/http_client.ts";
import type { MetricsSink } from "./sinks/metrics_sink.ts";

export type RunState = "starting" | Phase | "finished";

export interface LivePhase {
  readonly name: Phase;
  /** Epoch ms the phase started. */
  readonly startedAtMs: number;
  /** Records delivered by the engine so far (successes and errors). */
  readonly completed: number;
  readonly errors: number;
  /** Requests the phase is to send, when count-bounded or a trace replayed once. */
  readonly expected?: number;
  /** The phase's duration, when time-bounded, s. */
  readonly durationSec?: number;
  /** Epoch ms the phase ended (the next one began, or the run finished). */
  readonly endedAtMs?: number;
}

/** Records one engine worker (shard) delivered, all phases together. */
export interface LiveWorker {
  readonly workerId: string;
  readonly completed: number;
  readonly errors: number;
}

export interface LiveRunSnapshot {
  readonly state: RunState;
  /** Epoch ms of this snapshot. */
  readonly atMs: number;
  /** Epoch ms at run-clock 0 (record times and `metrics.lastEndMs` are on the run clock). */
  readonly timeOriginMs: number;
  readonly phases: readonly LivePhase[];
  readonly workers: readonly LiveWorker[];
  /** Requests sent and not yet answered, over every shard and target (0 before the engine starts). */
  readonly inFlight: number;
  /** Running figures of the profiling phase (records counted and measured so far). */
  readonly metrics: LiveSnapshot;
}

interface PhaseCounts {
  readonly name: Phase;
  readonly startedAtMs: number;
  completed: number;
  errors: number;
  endedAtMs?: number;
}

export class LiveRun implements RecordSink {
  readonly name = "live";
  readonly #metrics: MetricsSink;
  readonly #specs: readonly PhaseSpec[];
  readonly #timeOriginMs: number;
  readonly #phases: PhaseCounts[] = [];
  #current: PhaseCounts | undefined;
  #state: RunState = "starting";
  readonly #workers = new Map<string, { workerId: string; completed: number; errors: number }>();
  #activity: (() => readonly TransportActivity[]) | undefined;

  constructor(options: { metrics: MetricsSink; phases: readonly PhaseSpec[]; timeOriginMs: number }) {
    this.#metrics = options.metrics;
    this.#specs = options.phases;
    this.#timeOriginMs = options.timeOriginMs;
  }

  phaseStarted(phase: Phase, at: number): void {
    if (this.#current !== undefined) this.#current.endedAtMs = this.#timeOriginMs + at;
    this.#current = { name: phase, startedAtMs: this.#timeOriginMs + at, completed: 0, errors: 0 };
    this.#phases.push(this.#current);
    this.#state = phase;
  }

  arrived(record: RequestRecord): void {
    const current = this.#current;
    if (current === undefined || current.name !== record.phase) return;
    current.completed++;
    if (record.error !== undefined) current.errors++;
    let worker = this.#workers.get(record.workerId);
    if (worker === undefined) {
      worker = { workerId: record.workerId, completed: 0, errors: 0 };
      this.#workers.set(record.workerId, worker);
    }
    worker.completed++;
    if (record.error !== undefined) worker.errors++;
  }

  /** Reads what the engine's requests are doing (given by the engine when it starts). */
  watchActivity(read: () => readonly TransportActivity[]): void {
    this.#activity = read;
  }

  close(): void {
    this.#activity = undefined;
    if (this.#current !== undefined) this.#current.endedAtMs ??= this.#timeOriginMs + performance.now();
    this.#state = "finished";
  }

  snapshot(): LiveRunSnapshot {
    return {
      state: this.#state,
      atMs: this.#timeOriginMs + performance.now(),
      timeOriginMs: this.#timeOriginMs,
      phases: this.#phases.map((p) => {
        const spec = this.#specs.find((s) => s.name === p.name);
        const expected = spec?.stops.requestCount ?? spec?.expectedRequests;
        const durationMs = spec?.stops.durationMs;
        return {
          ...p,
          ...(expected === undefined ? {} : { expected }),
          ...(durationMs === undefined ? {} : { durationSec: durationMs / 1000 }),
        };
      }),
      workers: [...this.#workers.values()].map((w) => ({ ...w })),
      inFlight: this.#activity?.().reduce((n, a) => n + a.inFlight, 0) ?? 0,
      metrics: this.#metrics.profiling.snapshot(),
    };
  }
}
