/**
 * The running part of a profile: starts the engine and puts its records on the record bus — progress, token
 * counting (off the engine's hot path), metrics, the failure gate, the live view, and whatever sinks the caller
 * adds (the outputs' per-record files among them). Knows the engine only through `runBenchmark` and its record callback.
 */
import type { ProfileConfig } from "../config/profile_config.ts";
import { type BenchmarkOptions, type BenchmarkOutcome, runBenchmark } from "../engine/run_benchmark.ts";
import type { ShardSpec } from "../engine/run_shard.ts";
import type { Target } from "../transport/http_exchange.ts";
import type { TokenCounter } from "../tokenizer/token_counter.ts";
import { RecordProcessor, type RecordProcessorOptions } from "../records/record_processor.ts";
import { IoYield } from "../runtime/io_yield.ts";
import type { Phase, RequestRecord } from "../records/request_record.ts";
import type { GoodputEvaluator } from "../metrics/goodput.ts";
import type { MetricDef } from "../metrics/metric_def.ts";
import type { ColumnStore } from "../metrics/float64_column.ts";
import type { ScratchFactory } from "../metrics/sweep_stream.ts";
import { type Logger, sinceStart } from "../ui/logger.ts";
import { phaseConcurrency } from "../timing/phase_spec.ts";
import type { StopSpec } from "../timing/stop_conditions.ts";
import { RecordBus } from "./record_bus.ts";
import type { RecordSink } from "./record_sink.ts";
import { MetricsSink } from "./sinks/metrics_sink.ts";
import { ProgressSink } from "./sinks/progress_sink.ts";
import { DashboardSink } from "./sinks/dashboard_sink.ts";
import { FailureGateSink } from "./sinks/failure_gate_sink.ts";
import { ThresholdAbortSink } from "./sinks/threshold_abort_sink.ts";
import { ServerGoneSink } from "./sinks/server_gone_sink.ts";
import { WarmupFailureSink } from "./sinks/warmup_failure_sink.ts";
import type { MetricAccumulator } from "../metrics/metric_accumulator.ts";
import type { RunThreshold } from "../report/run_thresholds.ts";
import { DispatchSink } from "./sinks/dispatch_sink.ts";
import { LoadSink } from "./sinks/load_sink.ts";
import { LiveRun } from "./live_run.ts";
import { runShardProcesses, type ShardProcessesOptions } from "./shard_processes.ts";

export interface CollectOptions {
  readonly config: ProfileConfig;
  readonly spec: ShardSpec;
  readonly targets: readonly Target[];
  readonly metrics: readonly MetricDef[];
  readonly goodput?: GoodputEvaluator;
  readonly logger: Logger;
  readonly isTty: boolean;
  readonly stop?: AbortSignal;
  readonly shards: number;
  /** CPUs the shard threads pin themselves to (one each), when the layout gives them their own. */
  readonly cores?: readonly number[];
  readonly counter?: TokenCounter;
  /** Where long columns hand their segments (`OpenRun.spill`); without one they stay in memory. */
  readonly store?: ColumnStore;
  /** Where the time-weighted statistics set value ranges aside at the end (`OpenRun.scratch`). */
  readonly scratch?: ScratchFactory;
  /** Renders a prompt built at send time for its ISL (`--apply-chat-template`; `RecordProcessorOptions`). */
  readonly renderInput?: RecordProcessorOptions["renderInput"];
  /** Called with the live view before anything is sent (an HTTP API, a dashboard). */
  readonly onLive?: (live: LiveRun) => void;
  /** `--threshold-abort`: thresholds judged live; the first that fails stops the run. */
  readonly abortOn?: readonly RunThreshold[];
  /** Further consumers (the outputs' per-record files, the caller's), after the built-in ones. */
  readonly sinks?: readonly RecordSink[];
  /** Run the shards as `infermeter shard` processes (their records come back through the exact codec). */
  readonly processes?: Omit<ShardProcessesOptions, "signal" | "onRecord" | "onPhaseStart" | "onActivity" | "count">;
  /** The run's id (drawn when not given). */
  readonly benchmarkId?: string;
  /** What produces the records: this process's engine by default; `kube run` gives one that gathers its pods'. */
  readonly engine?: (o: BenchmarkOptions) => Promise<BenchmarkOutcome>;
}

export interface CollectResult {
  readonly metrics: MetricsSink;
  readonly outcome?: BenchmarkOutcome;
  readonly dispatch: DispatchSink;
  /** Send times of the profiling requests (achieved rate, schedule lag, in-flight). */
  readonly load: LoadSink;
  readonly cancelled: boolean;
  readonly thresholdExceeded?: string;
  /** Why `--threshold-abort` stopped the run. */
  readonly thresholdAborted?: string;
  /** Why the run stopped because its server went away (a run of connection failures). */
  readonly serverGone?: string;
  /** Why a warm-up that must succeed stopped the run (agentic replay). */
  readonly warmupFailed?: string;
  readonly benchmarkId: string;
  readonly startEpochMs?: number;
  readonly endEpochMs?: number;
}

/** Runs the engine and hands its records to the sinks; every sink is closed (files flushed) whatever happens. */
export async function collectRecords(o: CollectOptions): Promise<CollectResult> {
  const { config, logger, spec } = o;
  const timeOriginMs = performance.timeOrigin;
  const profilingPhase = spec.phases.find((p) => p.name === "profiling")!;
  const cancel = new AbortController();

  const withWarmup = spec.phases.some((p) => p.name === "warmup");
  // The requests a stop of the run's own cancels are no outcome of the server's (gate, gone and abort are set below).
  const stoppedItself = (): boolean =>
    gate?.tripped !== undefined || gone.tripped !== undefined || abort?.tripped !== undefined ||
    warmupFailed?.tripped !== undefined;
  const metrics = new MetricsSink(o.metrics, {
    timeOriginMs,
    goodput: o.goodput,
    warmup: withWarmup,
    stoppedItself,
    store: o.store,
    scratch: o.scratch,
  });
  const gate = config.failedRequestThreshold === undefined ? undefined : new FailureGateSink({
    threshold: config.failedRequestThreshold,
    concurrency: phaseConcurrency(profilingPhase),
    stop: () => cancel.abort(),
  });
  const abort: ThresholdAbortSink | undefined = o.abortOn === undefined || o.abortOn.length === 0
    ? undefined
    : new ThresholdAbortSink({
      thresholds: o.abortOn,
      metrics: (): MetricAccumulator => metrics.profiling,
      stop: () => cancel.abort(),
    });
  const gone = new ServerGoneSink({
    concurrency: phaseConcurrency(profilingPhase),
    target: o.targets.map((t) => `${t.scheme}://${t.hostHeader}`).join(", "),
    stop: () => cancel.abort(),
  });
  const warmupPhase = spec.phases.find((p) => p.name === "warmup");
  const warmupFailed = warmupPhase?.mustSucceed === true
    ? new WarmupFailureSink({ expected: warmupPhase.stops.requestCount ?? Infinity, stop: () => cancel.abort() })
    : undefined;
  const dispatch = new DispatchSink(o.store);
  const load = new LoadSink(o.store);
  const live = new LiveRun({ metrics, phases: spec.phases, timeOriginMs });
  const write = (s: string) => Deno.stderr.writeSync(new TextEncoder().encode(s));
  const progress = config.ui === "dashboard"
    ? new DashboardSink({
      live,
      metrics,
      isTty: o.isTty,
      write,
      width: o.isTty ? Deno.consoleSize().columns : undefined,
      concurrency: phaseConcurrency(profilingPhase),
    })
    : config.ui === "simple"
    ? new ProgressSink({
      phases: spec.phases,
      isTty: o.isTty,
      write,
      live,
      metrics,
      pipeIntervalMs: config.progressEvery * 1000,
    })
    : undefined;
  const sinks: RecordSink[] = [metrics, dispatch, load, live];
  for (const sink of [progress, gate, gone, abort, warmupFailed, ...(o.sinks ?? [])]) {
    if (sink !== undefined) sinks.push(sink);
  }
  const bus = new RecordBus(sinks, metrics.measure);
  o.onLive?.(live);

  // One I/O yield for this thread's slicing: record hand-on here, and the in-process shard's sleeps and issuing.
  const io = new IoYield();
  const processor = new RecordProcessor({
    counter: o.counter,
    renderInput: o.renderInput,
    useServerTokenCount: config.useServerTokenCount,
    yieldToIo: io.wait,
    onProcessed: (r) => bus.measured(r),
    onNotice: (message) => logger.info(message),
  });

  const onStop = () => {
    logger.warning("Interrupted: stopping and writing partial results (press Ctrl+C again to force quit).");
    cancel.abort();
  };
  if (o.stop?.aborted) onStop();
  else o.stop?.addEventListener("abort", onStop, { once: true });
  logger.beforeConsoleWrite = () => progress?.clearLine();

  let startEpochMs: number | undefined;
  const benchmarkId = o.benchmarkId ?? crypto.randomUUID();
  // Tens of thousands of streams: one small read buffer per connection, no read posted ahead (where one would be).
  const manyStreams = (phaseConcurrency(profilingPhase) ?? 0) > 1000;
  let outcome: BenchmarkOutcome | undefined;
  try {
    const onPhaseStart = (phase: Phase, at: number) => {
      bus.phaseStarted(phase, at);
      if (phase === "profiling") {
        startEpochMs = timeOriginMs + at;
        logger.debug(`profiling phase starts ${sinceStart()}`);
        logger.info("infermeter is PROFILING");
      } else {
        logger.info(`Warming up (${describeStops(spec.phases.find((p) => p.name === phase)?.stops)})`);
      }
    };
    const onRecord = (r: RequestRecord) => {
      bus.arrived(r);
      processor.push(r);
    };
    outcome = o.processes !== undefined
      ? await runShardProcesses({
        ...o.processes,
        count: o.shards,
        signal: cancel.signal,
        onRecord,
        onPhaseStart,
        onActivity: (read) => live.watchActivity(read),
      })
      : await (o.engine ?? runBenchmark)({
        targets: o.targets,
        spec,
        shards: o.shards,
        cores: o.cores,
        readBufferBytes: manyStreams ? 16 * 1024 : undefined,
        pipelinedReads: !manyStreams,
        reuse: config.connectionReuseStrategy === "never" ? "never" : "pooled",
        signal: cancel.signal,
        ioYield: io,
        onStall: (notice) => logger.warning(notice),
        onActivity: (read) => live.watchActivity(read),
        stallNoticeMs: config.stallNoticeSeconds * 1000,
        onPhaseStart,
        onRecord,
      });
  } finally {
    o.stop?.removeEventListener("abort", onStop);
    logger.beforeConsoleWrite = undefined;
    try {
      await processor.drain(o.stop);
    } finally {
      o.counter?.close();
      io.close();
      await bus.close();
    }
  }
  const endAt = outcome?.profilingEndedAt;
  return {
    metrics,
    outcome,
    dispatch,
    load,
    cancelled: cancel.signal.aborted && !stoppedItself(),
    thresholdExceeded: gate?.tripped,
    thresholdAborted: abort?.tripped,
    serverGone: gone.tripped,
    warmupFailed: warmupFailed?.tripped,
    benchmarkId,
    startEpochMs,
    endEpochMs: endAt !== undefined ? timeOriginMs + endAt : undefined,
  };
}

/** A phase's bounds in words, e.g. "20 requests" or "5 s". */
function describeStops(stops: StopSpec | undefined): string {
  const parts: string[] = [];
  if (stops?.requestCount !== undefined) parts.push(`${stops.requestCount} requests`);
  if (stops?.sessionCount !== undefined) parts.push(`${stops.sessionCount} sessions`);
  if (stops?.durationMs !== undefined) parts.push(`${stops.durationMs / 1000} s`);
  return parts.length === 0 ? "unbounded" : parts.join(" or ") + (parts.length > 1 ? ", whichever comes first" : "");
}
