/**
 * The running part of a profile: starts the engine and puts its records on the record bus — progress, token
 * counting (off the engine's hot path), metrics, per-record and raw JSONL, the failure gate, the live view, and
 * whatever sinks the caller adds. Knows the engine only through `runBenchmark` and its record callback.
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
import type { ArtifactPaths } from "../export/artifact_paths.ts";
import { type Logger, sinceStart } from "../ui/logger.ts";
import { phaseConcurrency } from "../timing/phase_spec.ts";
import type { StopSpec } from "../timing/stop_conditions.ts";
import { RecordBus } from "./record_bus.ts";
import type { RecordSink } from "./record_sink.ts";
import { MetricsSink } from "./sinks/metrics_sink.ts";
import { JsonlSink } from "./sinks/jsonl_sink.ts";
import { RawSink } from "./sinks/raw_sink.ts";
import { ProgressSink } from "./sinks/progress_sink.ts";
import { DashboardSink } from "./sinks/dashboard_sink.ts";
import { FailureGateSink } from "./sinks/failure_gate_sink.ts";
import { DispatchSink } from "./sinks/dispatch_sink.ts";
import { LoadSink } from "./sinks/load_sink.ts";
import { TimesliceSink } from "./sinks/timeslice_sink.ts";
import { LiveRun } from "./live_run.ts";
import { errorReason, type UnwrittenFile } from "./unwritten_file.ts";
import { InputError } from "../base/input_error.ts";
import { runShardProcesses, type ShardProcessesOptions } from "./shard_processes.ts";

export interface CollectOptions {
  readonly config: ProfileConfig;
  readonly spec: ShardSpec;
  readonly targets: readonly Target[];
  readonly metrics: readonly MetricDef[];
  readonly goodput?: GoodputEvaluator;
  readonly paths: ArtifactPaths;
  readonly logger: Logger;
  readonly isTty: boolean;
  readonly stop?: AbortSignal;
  readonly shards: number;
  /** CPUs the shard threads pin themselves to (one each), when the layout gives them their own. */
  readonly cores?: readonly number[];
  readonly counter?: TokenCounter;
  /** Renders a prompt built at send time for its ISL (`--apply-chat-template`; `RecordProcessorOptions`). */
  readonly renderInput?: RecordProcessorOptions["renderInput"];
  /** Called with the live view before anything is sent (an HTTP API, a dashboard). */
  readonly onLive?: (live: LiveRun) => void;
  /** Further consumers, after the built-in ones. */
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
  /** Metrics per time slice, with `--slice-duration`. */
  readonly timeslices?: TimesliceSink;
  readonly cancelled: boolean;
  readonly thresholdExceeded?: string;
  readonly jsonlWritten: boolean;
  readonly rawWritten: boolean;
  /** Per-record files a write failure left incomplete. */
  readonly unwritten: readonly UnwrittenFile[];
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
  const metrics = new MetricsSink(o.metrics, { timeOriginMs, goodput: o.goodput, warmup: withWarmup });
  // A failed write mid-run (a full disk) is said at once; the run goes on and the summary still counts every record.
  const onWriteFailure = (path: string) => (err: unknown) =>
    logger.error(
      `could not write ${path}: ${errorReason(err)}; the run goes on, and its summary still counts every record.`,
    );
  const opening = (path: string) => (err: unknown) => {
    throw new InputError(`cannot create ${path}: ${errorReason(err)}`);
  };
  const jsonl = config.exportLevel === "summary" ? undefined : await JsonlSink.open(
    o.paths.recordsJsonl,
    o.metrics,
    timeOriginMs,
    withWarmup,
    onWriteFailure(o.paths.recordsJsonl),
  )
    .catch(opening(o.paths.recordsJsonl));
  const raw = config.exportLevel === "raw"
    ? await RawSink.open(
      o.paths.rawJsonl,
      { timeOriginMs, commonHeaders: spec.headers, withWarmup },
      onWriteFailure(o.paths.rawJsonl),
    ).catch(opening(o.paths.rawJsonl))
    : undefined;
  const gate = config.failedRequestThreshold === undefined ? undefined : new FailureGateSink({
    threshold: config.failedRequestThreshold,
    concurrency: phaseConcurrency(profilingPhase),
    stop: () => cancel.abort(),
  });
  const dispatch = new DispatchSink();
  const load = new LoadSink();
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
    ? new ProgressSink({ phases: spec.phases, isTty: o.isTty, write })
    : undefined;
  const sinks: RecordSink[] = [metrics, dispatch, load, live];
  const timeslices = config.sliceDuration === undefined
    ? undefined
    : new TimesliceSink(o.metrics, config.sliceDuration * 1000, { timeOriginMs, goodput: o.goodput });
  for (const sink of [timeslices, jsonl, raw, progress, gate, ...(o.sinks ?? [])]) {
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
      await processor.drain();
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
    timeslices,
    cancelled: cancel.signal.aborted && gate?.tripped === undefined,
    thresholdExceeded: gate?.tripped,
    jsonlWritten: jsonl !== undefined,
    rawWritten: raw !== undefined,
    unwritten: [jsonl?.unwritten(), raw?.unwritten()].filter((u) => u !== undefined),
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
