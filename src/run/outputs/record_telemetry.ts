/**
 * A run as OpenTelemetry instruments, the way AIPerf 0.13 streams it: every request's metric values as histograms
 * (warmup and profiling, told apart by `aiperf.benchmark_phase`; the four GenAI semantic-convention metrics under
 * their spec names, the others as `aiperf.<tag>` in AIPerf's base units), and each phase's progress as counters and
 * gauges (`aiperf.timing.*`), sampled from the live view. Values also go to a listener, for MLflow's live metrics.
 *
 * Of AIPerf's timing instruments, those about sessions in flight and phase time-outs are not sent: the live view does
 * not know them. Points carry `aiperf.worker.id` but not AIPerf's `aiperf.record_processor.id` (no such process here).
 */
import type { ProfileConfig } from "../../config/profile_config.ts";
import type { MetricDef } from "../../metrics/metric_def.ts";
import type { RecordRow } from "../../metrics/record_row.ts";
import type { Phase, ProcessedRecord, RequestRecord } from "../../records/request_record.ts";
import {
  aiperfBaseUnit,
  DEFAULT_HISTOGRAM_BOUNDS,
  genAiErrorType,
  genAiOperationName,
  genAiProviderName,
  SEMCONV_METRICS,
} from "../../export/genai_semconv.ts";
import { type Attributes, AttributeSet, MeterState } from "../../export/otlp_metrics.ts";
import { resourceAttributes } from "../../config/check_tracking_export.ts";
import type { LiveRun } from "../live_run.ts";

/** Hears every value as it is recorded: a histogram observation, or a counter's / gauge's new value. */
export type ValueListener = (event: {
  readonly kind: "histogram" | "counter" | "gauge";
  readonly name: string;
  readonly value: number;
  readonly phase: Phase;
}) => void;

/** The OpenTelemetry resource of a run: who sent the metrics, for which benchmark, endpoint and model. */
export function runResource(config: ProfileConfig, benchmarkId: string): Record<string, string> {
  return {
    "service.name": "infermeter",
    "service.instance.id": "records_manager",
    "aiperf.benchmark.id": benchmarkId,
    "aiperf.endpoint.type": config.endpointType,
    ...(config.modelNames.length > 0 ? { "aiperf.model.name": config.modelNames[0] } : {}),
    ...resourceAttributes(config.otelResourceAttributes),
  };
}

interface RecordAttributeSets {
  readonly base: AttributeSet;
  readonly duration: AttributeSet;
  readonly tokens: AttributeSet;
}

interface PhaseCounts {
  cancelled: number;
  sessionsCompleted: number;
}

const TIMING_COUNTERS = [
  ["aiperf.timing.requests.sent", "requests_sent"],
  ["aiperf.timing.requests.completed", "requests_completed"],
  ["aiperf.timing.requests.cancelled", "requests_cancelled"],
  ["aiperf.timing.requests.errors", "request_errors"],
  ["aiperf.timing.sessions.completed", "completed_sessions"],
] as const;

const TIMING_GAUGES = [
  ["aiperf.timing.requests.in_flight", "in_flight_requests", "1"],
  ["aiperf.timing.phase.elapsed_sec", "requests_elapsed_time", "s"],
] as const;

export class RecordTelemetry {
  readonly meter: MeterState;
  readonly #metrics: boolean;
  readonly #timing: boolean;
  readonly #units = new Map<string, { unit: string; scale: number }>();
  readonly #genAi: Attributes;
  readonly #listener?: ValueListener;
  readonly #phases = new Map<Phase, PhaseCounts>();
  readonly #sets = new Map<string, RecordAttributeSets>();
  /** The last value sent of each timing instrument, by phase: counters and gauges are sent as differences. */
  readonly #sent = new Map<string, number>();
  #live?: LiveRun;

  constructor(o: {
    config: ProfileConfig;
    metrics: readonly MetricDef[];
    streamMetrics: boolean;
    streamTiming: boolean;
    listener?: ValueListener;
    now?: () => number;
  }) {
    this.meter = new MeterState(o.now);
    this.#metrics = o.streamMetrics;
    this.#timing = o.streamTiming;
    this.#listener = o.listener;
    for (const def of o.metrics) this.#units.set(def.tag, aiperfBaseUnit(def.unit));
    const { config } = o;
    this.#genAi = {
      "gen_ai.operation.name": genAiOperationName(config.endpointType),
      "gen_ai.provider.name": genAiProviderName(config.genAiProvider, config.urls),
      ...(config.modelNames.length > 0 ? { "gen_ai.request.model": config.modelNames[0] } : {}),
    };
  }

  watchLive(live: LiveRun): void {
    this.#live = live;
  }

  arrived(record: RequestRecord): void {
    let counts = this.#phases.get(record.phase);
    if (counts === undefined) {
      counts = { cancelled: 0, sessionsCompleted: 0 };
      this.#phases.set(record.phase, counts);
    }
    if (record.cancelled) counts.cancelled++;
    else if (record.error === undefined && record.isFinalTurn !== false) counts.sessionsCompleted++;
  }

  measured(record: ProcessedRecord, row: RecordRow): void {
    if (!this.#metrics) return;
    const sets = this.#attributeSets(record);
    const tags = row.layout.tags;
    for (let i = 0; i < tags.length; i++) {
      const value = row.value(i);
      if (value === undefined) continue;
      const tag = tags[i];
      const spec = SEMCONV_METRICS[tag];
      if (spec !== undefined) {
        const set = spec.tokenType !== undefined ? sets.tokens : sets.duration;
        const description = `GenAI semconv metric: ${spec.name}`;
        this.#observe(spec.name, spec.unit, description, spec.bounds, value, spec.scale, set, record.phase);
        continue;
      }
      const base = this.#units.get(tag) ?? { unit: "1", scale: 1 };
      const description = `AIPerf streaming metric: ${tag}`;
      const name = `aiperf.${tag}`;
      this.#observe(name, base.unit, description, DEFAULT_HISTOGRAM_BOUNDS, value, base.scale, sets.base, record.phase);
    }
  }

  /** A record's attribute sets, built once per distinct combination (a few per run), not per record. */
  #attributeSets(record: ProcessedRecord): RecordAttributeSets {
    const errorType = genAiErrorType(record.error);
    const hasError = record.error !== undefined;
    const key = `${record.workerId}\u0000${record.phase}\u0000${record.cancelled}\u0000${hasError}\u0000${errorType}`;
    let sets = this.#sets.get(key);
    if (sets === undefined) {
      const attrs: Attributes = {
        "aiperf.worker.id": record.workerId,
        "aiperf.benchmark_phase": record.phase,
        "aiperf.was_cancelled": record.cancelled,
        "aiperf.has_error": hasError,
      };
      sets = {
        base: new AttributeSet(attrs),
        duration: new AttributeSet({
          ...attrs,
          ...this.#genAi,
          ...(errorType === undefined ? {} : { "error.type": errorType }),
        }),
        tokens: new AttributeSet({ ...attrs, ...this.#genAi, "gen_ai.token.type": "output" }),
      };
      this.#sets.set(key, sets);
    }
    return sets;
  }

  #observe(
    name: string,
    unit: string,
    description: string,
    bounds: readonly number[],
    value: number | readonly number[],
    scale: number,
    attrs: AttributeSet,
    phase: Phase,
  ): void {
    const each = typeof value === "number" ? [value] : value;
    for (const v of each) {
      // ms → ns gives whole nanoseconds, as AIPerf's clocks do (no float residue like 6140839.000000142).
      const scaled = scale === 1e6 ? Math.round(v * scale) : v * scale;
      this.meter.record(name, unit, description, bounds, scaled, attrs);
      this.#listener?.({ kind: "histogram", name, value: scaled, phase });
    }
  }

  /** Brings the `aiperf.timing.*` instruments up to date with the live view (at each export, and at the end). */
  sampleTiming(atMs: number = performance.timeOrigin + performance.now()): void {
    if (!this.#timing || this.#live === undefined) return;
    const snapshot = this.#live.snapshot();
    const last = snapshot.phases.at(-1);
    for (const phase of snapshot.phases) {
      const current = phase === last && snapshot.state !== "finished";
      const inFlight = current ? snapshot.inFlight : 0;
      const own = this.#phases.get(phase.name) ?? { cancelled: 0, sessionsCompleted: 0 };
      const attrs: Attributes = {
        "aiperf.benchmark_phase": phase.name,
        ...(phase.expected === undefined ? {} : { "aiperf.total_expected_requests": phase.expected }),
        ...(phase.durationSec === undefined ? {} : { "aiperf.expected_duration_sec": phase.durationSec }),
        ...this.#genAi,
      };
      const counters: Record<(typeof TIMING_COUNTERS)[number][1], number> = {
        requests_sent: phase.completed + inFlight,
        requests_completed: phase.completed,
        requests_cancelled: own.cancelled,
        request_errors: phase.errors,
        completed_sessions: own.sessionsCompleted,
      };
      for (const [name, field] of TIMING_COUNTERS) {
        const delta = this.#delta(name, phase.name, counters[field]);
        if (delta > 0) {
          this.#timingValue("counter", name, `AIPerf timing counter: ${field}`, "1", delta, attrs, phase.name);
        }
      }
      const endMs = phase.endedAtMs ?? (current ? atMs : phase.startedAtMs);
      const gauges: Record<(typeof TIMING_GAUGES)[number][1], number> = {
        in_flight_requests: inFlight,
        requests_elapsed_time: Math.max(0, endMs - phase.startedAtMs) / 1000,
      };
      for (const [name, field, unit] of TIMING_GAUGES) {
        const delta = this.#delta(name, phase.name, gauges[field]);
        if (Math.abs(delta) >= 1e-9) {
          this.#timingValue("upDown", name, `AIPerf timing gauge metric: ${field}`, unit, delta, attrs, phase.name);
        }
      }
    }
  }

  #delta(name: string, phase: Phase, value: number): number {
    const key = `${phase}\u0000${name}`;
    const before = this.#sent.get(key) ?? 0;
    // A counter never goes back (a delta < 0 would double count): AIPerf skips such a sample too.
    if (value < before && name !== "aiperf.timing.requests.in_flight" && name !== "aiperf.timing.phase.elapsed_sec") {
      return 0;
    }
    this.#sent.set(key, value);
    return value - before;
  }

  #timingValue(
    kind: "counter" | "upDown",
    name: string,
    description: string,
    unit: string,
    delta: number,
    attrs: Attributes,
    phase: Phase,
  ): void {
    this.meter.add(kind, name, unit, description, delta, attrs);
    this.#listener?.({
      kind: kind === "counter" ? "counter" : "gauge",
      name,
      value: this.meter.value(name, attrs),
      phase,
    });
  }
}
