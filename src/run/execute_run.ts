/**
 * Step 3 of a profile run: opens the outputs' record sinks, then runs the engine (here, in shard processes, or a
 * caller's, e.g. `kube run`'s) and feeds every record to the bus. Returns what the engine and the built-in sinks
 * measured; nothing is written from it yet.
 */
import type { Logger } from "../ui/logger.ts";
import { sinceStart } from "../ui/logger.ts";
import { type CollectOptions, collectRecords, type CollectResult } from "./collect_records.ts";
import type { LiveRun } from "./live_run.ts";
import type { RecordSink } from "./record_sink.ts";
import type { OpenRun } from "./open_run.ts";
import type { RunPlan } from "./plan_run.ts";
import type { Output, OutputSink, SinkContext } from "./outputs/output.ts";
import { errorReason } from "./unwritten_file.ts";

export interface ExecuteOptions {
  readonly isTty: boolean;
  readonly stop?: AbortSignal;
  /** Called with the live view before anything is sent (a dashboard). */
  readonly onLive?: (live: LiveRun) => void;
  /** Further record consumers. */
  readonly sinks?: readonly RecordSink[];
  /** What produces the records; this process's engine (or its shard processes) when absent. */
  readonly engine?: CollectOptions["engine"];
}

export interface ExecutedRun extends CollectResult {
  /** Each output's record sink, closed. */
  readonly outputSinks: ReadonlyMap<Output, OutputSink>;
}

export async function executeRun(plan: RunPlan, run: OpenRun, o: ExecuteOptions): Promise<ExecutedRun> {
  const { logger } = run;
  const { spec, seed } = plan.workload;
  const timeOriginMs = performance.timeOrigin;
  const outputSinks = await openOutputSinks(plan, {
    config: plan.config,
    paths: plan.paths,
    metrics: plan.metrics,
    goodput: plan.goodput.evaluator,
    commonHeaders: spec.headers,
    timeOriginMs,
    withWarmup: spec.phases.some((p) => p.name === "warmup"),
    benchmarkId: plan.benchmarkId,
    logger,
    store: run.spill,
    onWriteFailure: (path) => (err) =>
      logger.error(
        `could not write ${path}: ${errorReason(err)}; the run goes on, and its summary still counts every record.`,
      ),
    ...(plan.workload.accuracy === undefined ? {} : { accuracy: plan.workload.accuracy }),
  });
  await waitForCounterWhenNoCoreIsFree(plan, run, logger);
  const { layout, config, parsed } = { ...plan, parsed: plan.endpoint.parsed };
  const result = await collectRecords({
    stop: o.stop,
    benchmarkId: plan.benchmarkId,
    onLive: (live) => {
      run.api?.attach(live);
      for (const sink of outputSinks.values()) sink.watchLive?.(live);
      o.onLive?.(live);
    },
    sinks: [...outputSinks.values(), ...(o.sinks ?? [])],
    engine: o.engine,
    shards: layout.shards,
    cores: layout.asProcesses ? undefined : layout.cores,
    processes: layout.asProcesses
      ? {
        argv: parsed.argv,
        seed,
        discoveredModels: parsed.sources.modelNames === "default" ? config.modelNames : undefined,
        cores: layout.cores,
      }
      : undefined,
    counter: run.counter,
    store: run.spill,
    scratch: run.scratch,
    renderInput: plan.workload.renderInput,
    config,
    spec,
    targets: plan.endpoint.targets,
    metrics: plan.metrics,
    goodput: plan.goodput.evaluator,
    abortOn: config.thresholdAbort ? plan.endpoint.thresholds : undefined,
    logger,
    isTty: o.isTty,
  });
  const unpinned = result.outcome?.pinning?.find((p) => p.startsWith("not pinned"));
  if (unpinned !== undefined) logger.info(`Engine shard threads run unpinned (${unpinned}).`);
  return { ...result, outputSinks };
}

/** Opens every output's sink; when one cannot be opened, those already open are closed and the error is raised. */
async function openOutputSinks(plan: RunPlan, ctx: SinkContext): Promise<Map<Output, OutputSink>> {
  const sinks = new Map<Output, OutputSink>();
  try {
    for (const output of plan.outputs) if (output.sink !== undefined) sinks.set(output, await output.sink(ctx));
  } catch (err) {
    for (const sink of sinks.values()) await Promise.resolve(sink.close?.()).catch(() => {});
    throw err;
  }
  return sinks;
}

/**
 * When the engine threads have every core this process may use (e.g. `taskset -c 0`), the counting Worker builds
 * its tables before anything is sent: on the engine's core that work would delay the first requests' timestamps.
 * With a core to spare it builds there at the run's first count. A load failure is reported through the counts
 * either way.
 */
async function waitForCounterWhenNoCoreIsFree(plan: RunPlan, run: OpenRun, logger: Logger): Promise<void> {
  if (run.counter === undefined || navigator.hardwareConcurrency > plan.layout.shards) return;
  const waitStart = performance.now();
  await run.counter.load().catch(() => {});
  logger.debug(`token counter ready (waited ${(performance.now() - waitStart).toFixed(1)} ms) ${sinceStart()}`);
}
