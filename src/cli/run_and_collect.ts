/**
 * The running part of `infermeter profile`: starts the engine and consumes its records — progress, token
 * counting (off the engine's hot path), metrics, per-record and raw JSONL, Ctrl-C / SIGTERM, and the
 * `--failed-request-threshold` gate. Knows the engine only through `runBenchmark` and its record callback.
 */
import type { ProfileConfig } from "../config/profile_config.ts";
import { type BenchmarkOutcome, runBenchmark } from "../engine/run_benchmark.ts";
import type { ShardSpec } from "../engine/run_shard.ts";
import type { Target } from "../transport/http_exchange.ts";
import type { TokenCounter } from "../tokenizer/token_counter.ts";
import { RecordProcessor } from "../records/record_processor.ts";
import { IoYield } from "../runtime/io_yield.ts";
import type { ProcessedRecord, RequestRecord } from "../records/request_record.ts";
import type { resolveGoodput } from "../metrics/goodput.ts";
import { MetricAccumulator } from "../metrics/metric_accumulator.ts";
import type { MetricDef } from "../metrics/metric_def.ts";
import { Float64Column } from "../metrics/float64_column.ts";
import type { ArtifactPaths } from "../export/artifact_paths.ts";
import { JsonlWriter } from "../export/jsonl_writer.ts";
import { LineFileWriter } from "../export/line_file_writer.ts";
import { rawRecordLine } from "../export/raw_record_line.ts";
import { type Logger, sinceStart } from "../ui/logger.ts";
import { ProgressBar } from "../ui/progress_bar.ts";
import { EXIT } from "./exit_codes.ts";
import { FailureGate } from "../timing/failure_gate.ts";
import { phaseConcurrency } from "../timing/phase_spec.ts";

export interface CollectOptions {
  readonly config: ProfileConfig;
  readonly spec: ShardSpec;
  readonly targets: readonly Target[];
  readonly metrics: readonly MetricDef[];
  readonly goodputEvaluator: ReturnType<typeof resolveGoodput>["evaluator"];
  readonly paths: ArtifactPaths;
  readonly logger: Logger;
  readonly isTty: boolean;
  readonly stop?: AbortSignal;
  readonly shards: number;
  readonly counter?: TokenCounter;
}

export interface CollectResult {
  readonly accumulator: MetricAccumulator;
  readonly warmupAccumulator?: MetricAccumulator;
  readonly outcome?: BenchmarkOutcome;
  readonly dispatch: Float64Column;
  readonly cancelled: boolean;
  readonly thresholdExceeded?: string;
  readonly jsonlWritten: boolean;
  readonly rawWritten: boolean;
  readonly benchmarkId: string;
  readonly startEpochMs?: number;
  readonly endEpochMs?: number;
}

/** Runs the engine and consumes its records: progress, token counting, metrics, JSONL, Ctrl-C, failure gate. */
export async function runAndCollect(o: CollectOptions): Promise<CollectResult> {
  const { config, logger } = o;
  const timeOriginMs = performance.timeOrigin;
  const accumulator = new MetricAccumulator(o.metrics, { timeOriginMs, goodput: o.goodputEvaluator });
  const warmupPhase = o.spec.phases.find((p) => p.name === "warmup");
  const profilingPhase = o.spec.phases.find((p) => p.name === "profiling")!;
  const warmupAccumulator = warmupPhase
    ? new MetricAccumulator(o.metrics, { timeOriginMs, goodput: o.goodputEvaluator })
    : undefined;
  const raw = config.exportLevel === "raw" ? await LineFileWriter.open(o.paths.rawJsonl) : undefined;
  const rawContext = { timeOriginMs, commonHeaders: o.spec.headers, withWarmup: warmupPhase !== undefined };
  const payloads = raw
    ? new Map(
      o.spec.conversations.flatMap((c) => c.turns).map((t) => [`${t.conversationId}#${t.turnIndex}`, t.payload]),
    )
    : undefined;
  const jsonl = config.exportLevel === "summary" ? undefined : await JsonlWriter.open(o.paths.recordsJsonl, {
    metrics: o.metrics,
    timeOriginMs,
    withWarmup: warmupPhase !== undefined,
  });
  const dispatch = new Float64Column(1024);

  const counter = o.counter;
  // One I/O yield for this thread's slicing: record hand-on here, and the in-process shard's sleeps and issuing.
  const io = new IoYield();
  const processor = new RecordProcessor({
    counter,
    useServerTokenCount: config.useServerTokenCount,
    yieldToIo: io.wait,
    onProcessed: (r: ProcessedRecord) => {
      if (r.phase === "warmup") {
        const values = warmupAccumulator?.add(r);
        if (values !== undefined) jsonl?.rehearse(r, values);
        return;
      }
      const values = accumulator.add(r);
      jsonl?.write(r, values);
      raw?.writeLine(rawRecordLine(r, payloads?.get(`${r.conversationId}#${r.turnIndex}`), rawContext));
    },
  });

  // Ctrl-C once: stop issuing, cancel in-flight requests, export what we have. Twice: leave now.
  const cancel = new AbortController();
  o.stop?.addEventListener("abort", () => cancel.abort(), { once: true });
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts === 1) {
      progress?.clearLine();
      logger.warning("Interrupted: stopping and writing partial results (press Ctrl+C again to force quit).");
      cancel.abort();
    } else {
      Deno.exit(EXIT.INTERRUPTED);
    }
  };
  Deno.addSignalListener("SIGINT", onSigint);
  // SIGTERM (kill, container stop, CI timeout) stops the same graceful way; Windows has no SIGTERM listener.
  const onSigterm = Deno.build.os === "windows" ? undefined : onSigint;
  if (onSigterm) Deno.addSignalListener("SIGTERM", onSigterm);

  let progress: ProgressBar | undefined;
  const showProgress = config.ui !== "none";
  const refresher = showProgress ? setInterval(() => progress?.refresh(), 500) : undefined;
  logger.beforeConsoleWrite = () => progress?.clearLine();

  // The failure gate (AIPerf --failed-request-threshold): judged after max(concurrency, 10) records.
  const gate = config.failedRequestThreshold === undefined ? undefined : new FailureGate({
    threshold: config.failedRequestThreshold,
    judgeAfter: Math.max(phaseConcurrency(profilingPhase) ?? 1, 10),
  });

  let startEpochMs: number | undefined;
  const benchmarkId = crypto.randomUUID();
  // Tens of thousands of streams: one small read buffer per connection, no read posted ahead (where one would be).
  const manyStreams = (phaseConcurrency(profilingPhase) ?? 0) > 1000;
  let outcome: BenchmarkOutcome | undefined;
  try {
    outcome = await runBenchmark({
      targets: o.targets,
      spec: o.spec,
      shards: o.shards,
      readBufferBytes: manyStreams ? 16 * 1024 : undefined,
      pipelinedReads: !manyStreams,
      reuse: config.connectionReuseStrategy === "never" ? "never" : "pooled",
      signal: cancel.signal,
      ioYield: io,
      onPhaseStart: (phase, at) => {
        progress?.finish();
        const spec = phase === "warmup" ? warmupPhase! : profilingPhase;
        const plan = spec.stops;
        if (phase === "profiling") {
          startEpochMs = timeOriginMs + at;
          logger.debug(`profiling phase starts ${sinceStart()}`);
          logger.info("infermeter is PROFILING");
        } else {
          logger.info(`Warming up with ${plan.requestCount} requests`);
        }
        progress = showProgress
          ? new ProgressBar({
            label: phase === "warmup" ? "Warming Up" : "Profiling",
            total: plan.requestCount ?? spec.expectedRequests,
            durationMs: plan.durationMs,
            isTty: o.isTty,
            write: (s) => Deno.stderr.writeSync(new TextEncoder().encode(s)),
          })
          : undefined;
      },
      onRecord: (r: RequestRecord) => {
        progress?.tick();
        processor.push(r);
        if (r.phase !== "profiling") return;
        dispatch.push(r.startAt - r.creditIssuedAt);
        if (gate?.observe(r.error !== undefined) !== undefined) cancel.abort();
      },
    });
  } finally {
    if (refresher !== undefined) clearInterval(refresher);
    progress?.finish();
    logger.beforeConsoleWrite = undefined;
    Deno.removeSignalListener("SIGINT", onSigint);
    if (onSigterm) Deno.removeSignalListener("SIGTERM", onSigterm);
    try {
      await processor.drain();
    } finally {
      counter?.close();
      io.close();
      await jsonl?.close();
      await raw?.close();
    }
  }
  const endAt = outcome?.profilingEndedAt;
  return {
    accumulator,
    warmupAccumulator,
    outcome,
    dispatch,
    cancelled: cancel.signal.aborted && gate?.tripped === undefined,
    thresholdExceeded: gate?.tripped,
    jsonlWritten: jsonl !== undefined,
    rawWritten: raw !== undefined,
    benchmarkId,
    startEpochMs,
    endEpochMs: endAt !== undefined ? timeOriginMs + endAt : undefined,
  };
}
