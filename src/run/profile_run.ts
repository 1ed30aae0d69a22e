/**
 * A profile run, from parsed options to written exports: tokenizer → dataset → conversations → preflight →
 * engine (records on the bus to their sinks) → summaries → exports. Returns what happened; the CLI alone turns
 * that into an exit code.
 */
import { joinPath as join } from "../runtime/file_path.ts";
import type { ParsedProfile } from "../config/parse_profile_args.ts";
import type { ProfileConfig } from "../config/profile_config.ts";
import { toInputConfig } from "../config/input_config.ts";
import { resolveAdapter } from "../endpoints/endpoint_registry.ts";
import { requestPath } from "../endpoints/endpoint_adapter.ts";
import { prepareServer } from "../engine/prepare_server.ts";
import { readServerIdentity } from "../engine/server_probe.ts";
import type { PreparedConversation } from "../engine/prepared_conversation.ts";
import { credentialNotices, endpointPath, requestHeaders, targetPath } from "../engine/request_headers.ts";
import { checkReachable } from "../engine/preflight.ts";
import { describeLostShards } from "../engine/coordinate_shards.ts";
import { parseTarget } from "../transport/parse_target.ts";
import type { Target } from "../transport/http_exchange.ts";
import { phaseConcurrency, phaseRate } from "../timing/phase_spec.ts";
import { createTokenCounter } from "../tokenizer/token_counter.ts";
import type { TokenCounter } from "../tokenizer/token_counter.ts";
import type { Tokenizer } from "../tokenizer/tokenizer.ts";
import { METRIC_REGISTRY } from "../metrics/metric_registry.ts";
import { goodputTags, resolveGoodput } from "../metrics/goodput.ts";
import { REPLAY_SCHED_DEGRADED_THRESHOLD_MS } from "../metrics/metric_defs.ts";
import type { RunSummary } from "../metrics/run_summary.ts";
import type { Float64Column } from "../metrics/float64_column.ts";
import { computeStats } from "../metrics/stats.ts";
import { artifactPaths, resolveArtifactDir } from "../export/artifact_paths.ts";
import { writeInputsJson } from "../export/inputs_json.ts";
import { renderTimeslicesCsv, renderTimeslicesJson } from "../export/timeslice_export.ts";
import type { JsonObject } from "../export/json_export.ts";
import type { ClientOverhead } from "../export/console_table.ts";
import { FileSink, type Logger, sinceStart } from "../ui/logger.ts";
import { VERSION } from "../base/version.ts";
import { peakRssBytes } from "../runtime/peak_rss.ts";
import { CPU_DMA_LATENCY_PATH, holdCpuDmaLatency } from "../runtime/cpu_dma_latency.ts";
import { ensureFdLimit } from "../runtime/fd_limit.ts";
import { CPU_WARN_PERCENT } from "../runtime/cpu_time.ts";
import { type CollectOptions, collectRecords } from "./collect_records.ts";
import { buildRunSpec } from "./run_spec.ts";
import { EXPORTERS } from "./exporters.ts";
import { writeRunReport } from "../report/run_report.ts";
import type { LiveRun } from "./live_run.ts";
import type { RecordSink } from "./record_sink.ts";
import { InputError } from "../base/input_error.ts";
import { finishTelemetry, probeTelemetry } from "./telemetry_session.ts";
import { summaryJsonObject } from "../export/json_export.ts";
import { lockArtifactDir } from "./artifact_dir_lock.ts";
import { describeUnwritten, errorReason, type UnwrittenFile } from "./unwritten_file.ts";
import { defaultShards, engineLayout, FD_RESERVE } from "./engine_layout.ts";
import { notWrittenLine, renderConsole } from "./run_console.ts";

/** How a profile run ended; the CLI maps each to an exit code. */
export type ProfileEnd =
  /** Ran to completion and at least one request succeeded. */
  | "completed"
  /** Ran, but no request succeeded. */
  | "all_failed"
  /** `--failed-request-threshold` stopped it. */
  | "threshold_exceeded"
  /** Stopped by the caller's signal (Ctrl-C); partial results written. */
  | "cancelled"
  /** Stopped before anything was sent. */
  | "interrupted_before_start"
  /** A server could not be reached; nothing was sent. */
  | "unreachable"
  /** Ran, but some result files could not be written (a full disk); the rest and the console summary were. */
  | "results_unwritten"
  /** Ran, but some engine shards did not run to their end: what they measured is merged; the load was lower. */
  | "shards_lost";

export interface ProfileOutcome {
  readonly end: ProfileEnd;
  /** The console tables and footer (also in the console export), when the run produced a summary. */
  readonly consoleText?: string;
  /** Where the artifacts are. */
  readonly artifactDir: string;
  /** The profiling phase's metrics, when the run produced a summary (for aggregation across runs). */
  readonly summary?: RunSummary;
  /** Result files a write failure left missing or incomplete (a full disk). */
  readonly unwritten?: readonly UnwrittenFile[];
}

export interface ProfileRunOptions {
  readonly logger: Logger;
  readonly isTty: boolean;
  /** Stops the run the way Ctrl-C does: partial results are written. */
  readonly stop?: AbortSignal;
  /** Called with the live view before anything is sent (an HTTP API, a dashboard). */
  readonly onLive?: (live: LiveRun) => void;
  /** Further record consumers. */
  readonly sinks?: readonly RecordSink[];
  /** Where the console tables go (stdout). @default console.log */
  readonly print?: (text: string) => void;
  /**
   * What produces the records (collect_records.ts). With one, the servers are reached by it, not by this
   * process: no readiness wait, model discovery or reachability check here (`--model` must be given).
   */
  readonly engine?: CollectOptions["engine"];
}

/** Runs a parsed profile; throws InputError / DatasetError for input found bad before anything is sent. */
export async function runProfileRun(parsed: ParsedProfile, o: ProfileRunOptions): Promise<ProfileOutcome> {
  const { logger, isTty, stop } = o;
  const { config: given, redactedCommand: cliCommand } = parsed;
  logger.info(`Starting infermeter ${VERSION}`);
  logger.debug(`command: ${cliCommand}`);
  const adapter = await resolveAdapter(given.endpointType, {
    extraInputs: given.extraInputs,
    readTextFile: readTemplateFile,
  }).catch((err: Error) => {
    throw new InputError(`--endpoint-type ${given.endpointType}: ${err.message}`);
  });
  const noLegacy = adapter.capabilities.refusesLegacyMaxTokens;
  if (given.useLegacyMaxTokens && noLegacy !== undefined) {
    throw new InputError(`--use-legacy-max-tokens does not apply to --endpoint-type ${adapter.name}: ${noLegacy}.`);
  }
  const streaming = given.streaming && adapter.capabilities.supportsStreaming;
  const targets = resolveTargets(given);
  const target = targets[0];
  // Readiness wait and model discovery (engine/prepare_server.ts); the server's identity is read beside the run.
  const probe = {
    target,
    headers: requestHeaders(target, {
      endpointHeaders: adapter.headers({ streaming, apiKey: given.apiKey }),
      userHeaders: given.headers,
    }),
  };
  const server = o.engine !== undefined
    ? { ok: true as const, modelNames: given.modelNames }
    : await prepareServer(probe, {
      modelNames: given.modelNames,
      wait: {
        timeoutS: given.waitForModelTimeout,
        intervalS: given.waitForModelInterval,
        mode: given.waitForModelMode,
      },
      adapter,
      path: endpointPath(given.customEndpoint ?? requestPath(adapter.capabilities, streaming)),
      log: logger,
      signal: stop,
    });
  if (!server.ok) {
    logger.error(server.message);
    return { end: "unreachable", artifactDir: resolveArtifactDir(given) };
  }
  const config: ProfileConfig = server.modelNames === given.modelNames
    ? given
    : { ...given, modelNames: server.modelNames };
  const identity = o.engine !== undefined
    ? Promise.resolve(undefined)
    : readServerIdentity(probe).catch(() => undefined);
  // Network I/O, so it overlaps the CPU work of loading the tokenizer and building the dataset.
  const reachable = o.engine !== undefined
    ? Promise.resolve(targets.map(() => ({ ok: true as const, connectMs: undefined, message: undefined })))
    : Promise.all(targets.map((t) => checkReachable(t)));
  // Likewise the server-metrics and GPU endpoints' probes (each one's first scrape is its baseline).
  const telemetryProbe = probeTelemetry(config);
  telemetryProbe.catch(() => {}); // seen where awaited
  // Metrics and goodput first: a typo in --goodput should fail before tokenizers load.
  const selection = {
    streaming,
    producesTokens: adapter.capabilities.producesTokens,
    tokenizesInput: adapter.capabilities.tokenizesInput,
    supportsReasoning: adapter.capabilities.supportsReasoning,
    goodput: config.goodput.length > 0,
  };
  let metrics = METRIC_REGISTRY.selectMetrics(selection);
  const validTags = goodputTags();
  for (const slo of config.goodput) {
    if (!validTags.includes(slo.tag)) {
      throw new InputError(`unknown --goodput metric '${slo.tag}'; use one of: ${validTags.join(", ")}.`);
    }
  }
  const goodput = resolveGoodput(config.goodput, metrics);
  for (const w of goodput.warnings) logger.warning(w);

  let shards = config.workers ?? defaultShards({
    concurrency: config.concurrency,
    rate: config.requestRate,
    outputTokensMean: config.outputTokensMean,
  });
  // The counting Worker counts with the tables this thread loaded (shared memory), or loads its own (the builtin
  // tokenizer's, from the on-disk cache when there) on its own thread while this one builds the dataset.
  let counterReady: Promise<TokenCounter> | undefined;
  let loadedTokenizer: Tokenizer | undefined;
  const built = await buildRunSpec({
    parsed,
    config,
    adapter,
    streaming,
    targets,
    logger,
    onTokenizer: (tokenizerSpec, loaded) => {
      loadedTokenizer = loaded;
      if (!config.useServerTokenCount) {
        counterReady = createTokenCounter(tokenizerSpec, { inWorker: true, workers: Math.ceil(shards / 4), loaded });
      }
    },
  }).catch((err) => {
    void counterReady?.then((c) => c.close(), () => {});
    throw err;
  });
  const counter = counterReady && deferredCounter(counterReady);
  const { seed, tokenizer, conversations, totalTurns, plans, spec, path } = built;
  // Session metrics only where a session is more than one request.
  if (totalTurns > conversations.length) metrics = METRIC_REGISTRY.selectMetrics({ ...selection, multiTurn: true });
  for (const notice of plans.notices) logger.info(notice);
  const profiling = plans.phases[plans.phases.length - 1];

  // Artifacts: the directory and the log file exist before anything is sent (inputs.json comes after the run).
  const dir = resolveArtifactDir(config);
  const paths = artifactPaths(dir, config.profileExportPrefix);
  // One run per directory; this also proves it writable before anything is sent. Released on every return.
  await using lock = await lockArtifactDir(dir);
  const logFile = await FileSink.open(join(dir, "logs", "infermeter.log")).catch((err: Error) => {
    throw new InputError(`cannot write the log file in ${dir}: ${err.message}`);
  });
  logger.addSink(logFile, "DEBUG");
  logger.debug(`command: ${cliCommand}`); // again, now that the log file receives it
  if (lock.notice) logger.warning(lock.notice);

  const benchmarkId = crypto.randomUUID();
  const inputConfig = toInputConfig(config) as JsonObject;
  const runInfoBlock: JsonObject = {
    benchmark_id: benchmarkId,
    sweep_id: null,
    random_seed: seed,
    trial: 0,
    run_label: "run_0001",
    variation_label: "base",
    variation_index: 0,
    variation_values: {},
    cli_command: cliCommand,
  };
  // The HTTP API (and its server library) is loaded only when asked for.
  const api = config.apiPort === undefined ? undefined : await (await import("./api_session.ts")).ApiSession.start({
    config,
    identity: {
      benchmarkId,
      model: config.modelNames.join(","),
      endpointType: config.endpointType,
      streaming,
      concurrency: config.concurrency,
      requestRate: config.requestRate,
      version: VERSION,
    },
    inputConfig,
    runInfo: runInfoBlock,
    artifactDir: dir,
    metrics,
    shards,
  }, logger);
  if (config.apiPort !== undefined && api === undefined) {
    counter?.close();
    await logFile.close();
    throw new InputError(`--api-port ${config.apiPort}: the API server cannot listen there; choose a free port.`);
  }

  const reaches = await reachable;
  const reach = reaches.find((r) => !r.ok) ?? reaches[0];
  if (!reach.ok) {
    logger.error(reach.message!);
    counter?.close();
    await writeInputsJson(paths.inputsJson, inputSessions(conversations)).catch((err) =>
      logger.error(`could not write ${paths.inputsJson}: ${errorReason(err)}`)
    );
    api?.fail();
    await api?.close(stop, logger);
    await logFile.close();
    return { end: "unreachable", artifactDir: dir };
  }
  // Baseline scrapes were taken before anything is sent (warm-up included), so that counters' increases cover the
  // profiling window; polling starts now.
  const telemetry = (await telemetryProbe)?.start(logger);
  logger.debug(`server reachable (connect ${reach.connectMs?.toFixed(2)} ms) ${sinceStart()}`);
  const shownPath = targetPath(target.basePath, path, config.customEndpoint !== undefined);
  logger.info(
    `Using ${shownPath} endpoint` + (targets.length > 1 ? ` on ${targets.length} servers (round robin)` : ""),
  );

  const headerOptions = {
    endpointHeaders: adapter.headers({ streaming, apiKey: config.apiKey }),
    userHeaders: config.headers,
  };
  for (const notice of credentialNotices(target, headerOptions)) logger.info(notice);

  // Every stream is a socket (file descriptor). One process holds at most its open-file limit: beyond that
  // (or when asked) the shards run as `infermeter shard` processes, each holding its share of the connections.
  const concurrency = phaseConcurrency(profiling);
  const sockets = (concurrency ?? 0) + 64;
  const fds = ensureFdLimit(sockets);
  const perProcess = fds === undefined ? Infinity : Math.max(256, fds.hard - FD_RESERVE);
  const asProcesses = config.workersMode === "processes" ||
    (config.workersMode === "auto" && fds !== undefined && sockets > fds.hard);
  if (asProcesses) shards = Math.max(shards, Math.ceil((concurrency ?? 0) / perProcess));
  if (!asProcesses && fds !== undefined && fds.soft < sockets) {
    logger.warning(
      `--concurrency ${concurrency} needs about ${sockets} open files, but this process may open only ` +
        `${fds.soft} (hard limit ${fds.hard}); connections beyond that fail with 'Too many open files'. Raise the ` +
        "limit (ulimit -n), lower the concurrency, or use --workers-mode processes.",
    );
  }
  if (plans.phases.length === 1 && (concurrency ?? 0) >= 64) {
    logger.info(
      `Hint: the first ${concurrency} requests run on cold code (JIT), which can add milliseconds to ` +
        `their timings; add --warmup-request-count ${concurrency} for steady-state figures.`,
    );
  }
  const layout = engineLayout(shards, asProcesses);
  if (shards > 1) logger.info(`Engine: ${layout.text}`);
  // When the engine threads have every core this process may use (e.g. `taskset -c 0`), nothing is sent while
  // the counting Worker still builds its tables: on the engine's core that work would delay the first
  // requests' timestamps. With a core to spare it builds there while the run starts (start-up: −20 to −80 ms).
  // A load failure is reported through the counts either way.
  if (counterReady !== undefined && navigator.hardwareConcurrency <= shards) {
    const waitStart = performance.now();
    await counterReady.catch(() => {});
    logger.debug(`token counter ready (waited ${(performance.now() - waitStart).toFixed(1)} ms) ${sinceStart()}`);
  }
  if (stop?.aborted) {
    logger.warning("Interrupted before the benchmark started; nothing was sent.");
    counter?.close();
    await telemetry?.stop();
    await writeInputsJson(paths.inputsJson, inputSessions(conversations)).catch((err) =>
      logger.error(`could not write ${paths.inputsJson}: ${errorReason(err)}`)
    );
    api?.fail();
    await api?.close(stop, logger);
    await logFile.close();
    return { end: "interrupted_before_start", artifactDir: dir };
  }
  const wake = config.cpuDmaLatency === undefined ? undefined : holdCpuDmaLatency(config.cpuDmaLatency);
  if (wake?.held) {
    logger.info(
      `Holding the CPU wake-up latency limit at ${wake.requestedUs} µs for the run (${CPU_DMA_LATENCY_PATH})`,
    );
  } else if (wake !== undefined) {
    logger.warning(`--cpu-dma-latency ${wake.requestedUs} has no effect: ${wake.reason}.`);
  }
  const run = await collectRecords({
    stop,
    benchmarkId,
    onLive: (live) => {
      api?.attach(live);
      o.onLive?.(live);
    },
    sinks: o.sinks,
    engine: o.engine,
    shards,
    cores: asProcesses ? undefined : layout.cores,
    processes: asProcesses
      ? {
        argv: parsed.argv,
        seed,
        discoveredModels: parsed.sources.modelNames === "default" ? config.modelNames : undefined,
        cores: layout.cores,
      }
      : undefined,
    counter,
    config,
    spec,
    targets,
    metrics,
    goodput: goodput.evaluator,
    paths,
    logger,
    isTty,
  }).catch(async (err) => {
    await telemetry?.stop();
    api?.fail();
    await api?.close(undefined, logger);
    throw err;
  }).finally(() => wake?.release());

  // From here on a failed write (a full disk) loses that file only: the others, the console summary and the
  // records already written are kept, and the outcome lists what is missing.
  const unwritten: UnwrittenFile[] = [...run.unwritten];
  const attempt = async (label: string, path: string, write: () => Promise<unknown>): Promise<boolean> => {
    try {
      await write();
      return true;
    } catch (err) {
      const file = { label, path, reason: errorReason(err) };
      unwritten.push(file);
      logger.error(describeUnwritten(file));
      return false;
    }
  };
  const unpinned = run.outcome?.pinning?.find((p) => p.startsWith("not pinned"));
  if (unpinned !== undefined) logger.info(`Engine shard threads run unpinned (${unpinned}).`);
  // inputs.json is written after the run: rendering it is not needed to send anything (startup budget).
  await attempt("Inputs", paths.inputsJson, () => writeInputsJson(paths.inputsJson, inputSessions(conversations)));
  // Summaries and exports: always written, also after Ctrl-C or a failure gate.
  // Throughputs divide by the profiling phase's window (phase start → last response), as AIPerf 0.13 does.
  const window = run.startEpochMs !== undefined && run.endEpochMs !== undefined
    ? { start: run.startEpochMs, end: run.endEpochMs }
    : undefined;
  const summary = run.metrics.profiling.summarize({
    observationSec: window === undefined ? undefined : (window.end - window.start) / 1000,
    windowEpochMs: window,
  });
  warnIfReplayDegraded(summary, logger);
  const warmupSummary = run.metrics.warmup?.summarize();
  const cpu = run.outcome?.cpu;
  // CPU time is read in 10 ms ticks: judge it only over runs long enough for that to be precise.
  const overThreshold = cpu !== undefined && cpu.wallMs >= 1000 && cpu.percentPerShard > CPU_WARN_PERCENT;
  if (overThreshold) {
    logger.warning(
      `each engine thread used ${cpu.percentPerShard.toFixed(0)}% of a CPU core during profiling; above ` +
        `~${CPU_WARN_PERCENT}% its timestamps lag the network and latencies read high (use more --workers, or a ` +
        "bigger client machine).",
    );
  }
  const load = run.load.report(phaseRate(profiling));
  if (load.warning !== undefined) logger.warning(`The client could not hold the schedule: ${load.warning}.`);
  const infermeter: JsonObject = {
    load: {
      requests: load.requests,
      target_rate: load.targetRate,
      achieved_rate: load.achievedRate,
      schedule_lag_ms: load.scheduleLagMs === null ? null : { ...load.scheduleLagMs },
      peak_in_flight: load.peakInFlight,
      avg_in_flight: load.avgInFlight,
      cancelled_requests: load.cancelledRequests,
      schedule_held: load.warning === undefined,
      ...(load.warning === undefined ? {} : { warning: load.warning }),
    },
    client_cpu: cpu
      ? {
        user_ms: cpu.userMs,
        system_ms: cpu.systemMs,
        wall_ms: cpu.wallMs,
        percent_of_core: cpu.percentOfCore,
        percent_per_shard: cpu.percentPerShard,
        over_threshold: overThreshold,
        threshold_percent: CPU_WARN_PERCENT,
      }
      : null,
    dispatch_overhead_ms: statsObject(run.dispatch.column),
    workers: shards,
    engine_layout: {
      shards,
      mode: asProcesses ? "processes" : shards > 1 ? "threads" : "main thread",
      client_cores: layout.clientCores,
      pinned: layout.cores !== undefined,
      pinning: run.outcome?.pinning ?? [],
      description: layout.text,
    },
    shard_processes: run.outcome?.processes?.map((p) => ({
      pid: p.pid,
      peak_rss_bytes: p.peakRssBytes,
      start_lateness_ms: p.startLatenessMs ?? null,
    })) ?? null,
    cpu_dma_latency: wake ? { requested_us: wake.requestedUs, held: wake.held, reason: wake.reason ?? null } : null,
    peak_rss_bytes: peakRssBytes(),
    retained_bytes_per_request: summary.successCount + summary.errorCount > 0
      ? run.metrics.profiling.retainedBytes() / (summary.successCount + summary.errorCount)
      : null,
    tokenizer: tokenizer.name,
  };
  const width = config.consoleWidth ??
    (Deno.stdout.isTerminal() ? Math.max(80, Deno.consoleSize().columns) : 140);
  const windowEndMs = run.endEpochMs ?? Date.now();
  const telemetryOut = telemetry === undefined ? undefined : await finishTelemetry(telemetry, {
    window: { startMs: run.startEpochMs ?? windowEndMs, endMs: windowEndMs },
    benchmarkId: run.benchmarkId,
    infermeterVersion: VERSION,
    inputConfig,
    paths,
    outputTokens: summary.metrics.find((m) => m.tag === "total_osl")?.value,
    maxWidth: width,
  });
  const info = {
    infermeterVersion: VERSION,
    benchmarkId: run.benchmarkId,
    startTimeMs: run.startEpochMs,
    endTimeMs: run.endEpochMs,
    wasCancelled: run.cancelled,
    inputConfig,
    runInfo: { randomSeed: seed, cliCommand, server: (await identity) as JsonObject | undefined },
    warmup: warmupSummary,
    infermeter,
    telemetryData: telemetryOut?.telemetryData,
  };

  const logPath = join(dir, "logs", "infermeter.log");
  if (logFile.failure !== undefined) {
    unwritten.push({ label: "Log File", path: logPath, reason: errorReason(logFile.failure) });
  }
  const written: { label: string; path: string }[] = [...(telemetryOut?.written ?? [])];
  for (const exporter of EXPORTERS.entries()) {
    const path = exporter.path(paths);
    if (await attempt(exporter.label, path, () => exporter.write({ summary, paths, info }))) {
      written.push({ label: exporter.label, path });
    }
  }
  if (run.timeslices !== undefined) {
    const slices = run.timeslices.timeslices();
    await Deno.writeTextFile(paths.timeslicesCsv, renderTimeslicesCsv(slices, performance.timeOrigin));
    await Deno.writeTextFile(
      paths.timeslicesJson,
      renderTimeslicesJson(slices, performance.timeOrigin, info.inputConfig),
    );
    written.push(
      { label: "Timeslice CSV Export", path: paths.timeslicesCsv },
      { label: "Timeslice JSON Export", path: paths.timeslicesJson },
    );
  }
  const exportsList = [
    ...written,
    ...(run.jsonlWritten ? [{ label: "JSONL Export", path: paths.recordsJsonl }] : []),
    ...(run.rawWritten ? [{ label: "Raw Export", path: paths.rawJsonl }] : []),
    { label: "Log File", path: logPath },
  ].filter((e) => !unwritten.some((u) => u.label === e.label));
  const client: ClientOverhead | undefined = cpu && {
    percentOfCore: cpu.percentOfCore,
    engineThreads: shards,
    overThresholdPercent: overThreshold ? CPU_WARN_PERCENT : undefined,
    scheduleLatenessP50Ms: summary.scheduleLatenessMs?.p50,
    scheduleLatenessP99Ms: summary.scheduleLatenessMs?.p99,
  };
  const consoleText = renderConsole(
    summary,
    adapter,
    cliCommand,
    run.cancelled,
    exportsList,
    client,
    telemetryOut?.tables ?? [],
    width,
    unwritten,
  );
  const consoleSaved = await attempt(
    "Console Export",
    paths.consoleTxt,
    () => Deno.writeTextFile(paths.consoleTxt, consoleText + "\n"),
  );
  (o.print ?? console.log)(consoleSaved ? consoleText : `${consoleText}\n${notWrittenLine(unwritten.at(-1)!)}`);
  // The HTML report reads the exports just written; a failure to draw it loses no result.
  await writeRunReport(dir).then(
    (report) => logger.info(`HTML report: ${report.path}`),
    (err: Error) => logger.warning(`the HTML report could not be written: ${err.message}`),
  );

  let end: ProfileEnd = "completed";
  if (run.cancelled) {
    logger.warning("Benchmark cancelled early; partial results were written.");
    end = "cancelled";
  } else if (run.thresholdExceeded) {
    logger.error(run.thresholdExceeded);
    end = "threshold_exceeded";
  } else if (summary.successCount === 0) {
    logger.error(`all ${summary.errorCount} requests failed; see the error summary above.`);
    end = "all_failed";
  } else if (run.outcome?.lostShards?.length) {
    logger.error(describeLostShards(run.outcome.lostShards, run.outcome.shardCount ?? shards));
    end = "shards_lost";
  }
  // Missing results outrank a failed run (its numbers are what is missing), not a cancelled one.
  if (unwritten.length > 0 && end !== "cancelled") {
    logger.error(
      `${unwritten.length} result file${unwritten.length === 1 ? "" : "s"} could not be written (listed above); ` +
        "free space or fix the directory and run again.",
    );
    end = "results_unwritten";
  }
  if (end === "completed") logger.info("Benchmark completed successfully");
  logger.info(`Results saved to: ${dir}/`);
  // A first load of a tokenizer.json on this machine was a quick start; build and cache its full tables now, with
  // the results written and nothing being measured, so that later runs read them.
  if (loadedTokenizer?.persist !== undefined && !stop?.aborted) {
    const persistStart = performance.now();
    await loadedTokenizer.persist();
    logger.debug(`tokenizer tables cached (${(performance.now() - persistStart).toFixed(0)} ms)`);
  }
  if (api !== undefined) {
    api.finish(summaryJsonObject(summary, info), run.cancelled);
    await api.close(stop, logger);
  }
  await logFile.close();
  return { end, consoleText, artifactDir: dir, summary, unwritten };
}

/** A counter usable at once: calls wait for the Worker to be ready; a load failure rejects every count. */
function deferredCounter(ready: Promise<TokenCounter>): TokenCounter {
  ready.catch(() => {}); // reported through count() rejections, not as an unhandled rejection
  return {
    count: async (texts) => (await ready).count(texts),
    close: () => void ready.then((c) => c.close(), () => {}),
  };
}

/** A payload template named by path; undefined when the text is not a readable file (then it is the template). */
function readTemplateFile(path: string): string | undefined {
  if (path.length > 4096 || path.includes("{")) return undefined;
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
}

function resolveTargets(config: ProfileConfig): Target[] {
  try {
    return config.urls.map((u) => parseTarget(u));
  } catch (err) {
    throw new InputError((err as Error).message);
  }
}

function inputSessions(conversations: readonly PreparedConversation[]) {
  return conversations.map((c) => ({ sessionId: c.id, payloads: c.turns.map((t) => t.payload) }));
}

/** AIPerf warns once when a replay could not keep to its schedule (anchored p99 lag over the threshold). */
function warnIfReplayDegraded(summary: RunSummary, logger: Logger): void {
  const value = (tag: string) => summary.metrics.find((r) => r.tag === tag)?.value;
  if (value("replay_sched_degraded") !== 1) return;
  const lag = (q: number) => value(`replay_sched_lag_p${q}`)?.toFixed(1);
  logger.warning(
    `the trace replay fell behind its schedule: send lag p50 ${lag(50)} ms, p90 ${lag(90)} ms, p99 ${lag(99)} ms ` +
      `(over ${REPLAY_SCHED_DEGRADED_THRESHOLD_MS} ms), so latencies and concurrency no longer reflect the ` +
      "recorded arrivals; use more --workers or a bigger client machine.",
  );
}

function statsObject(column: Float64Column): JsonObject | null {
  const stats = computeStats(column.view().slice());
  return stats ? { ...stats } as unknown as JsonObject : null;
}
