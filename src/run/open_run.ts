/**
 * Step 2 of a profile run: acquires what the run holds — the artifact directory's lock, the log file, the HTTP API,
 * the token counter, the CPU wake-up limit, the telemetry scrapers — into one `AsyncDisposableStack`, so success,
 * failure and Ctrl-C all leave through the same teardown (`await using`). Then the servers are probed: readiness
 * (`--wait-for-model-*`), reachability with a connect timeout that starts only now (no blocking work runs while it
 * ticks), the server's identity and the telemetry endpoints.
 */
import { joinPath as join } from "../runtime/file_path.ts";
import { FileSink, type Logger, sinceStart } from "../ui/logger.ts";
import { VERSION } from "../base/version.ts";
import { InputError } from "../base/input_error.ts";
import { checkReachable } from "../engine/preflight.ts";
import { waitUntilReady } from "../engine/prepare_server.ts";
import { readServerIdentity } from "../engine/server_probe.ts";
import { credentialNotices, targetPath } from "../engine/request_headers.ts";
import type { StartedTokenCounter } from "../tokenizer/token_counter.ts";
import type { TelemetryCollector } from "../telemetry/telemetry_collector.ts";
import type { JsonObject } from "../export/json_export.ts";
import { CPU_DMA_LATENCY_PATH, type CpuDmaLatencyHold, holdCpuDmaLatency } from "../runtime/cpu_dma_latency.ts";
import { lockArtifactDir } from "./artifact_dir_lock.ts";
import { ColumnSpill, scratchFiles, SPILL_FILE_NAME } from "../metrics/column_spill.ts";
import type { ScratchFactory } from "../metrics/sweep_stream.ts";
import { errorReason } from "./unwritten_file.ts";
import { probeTelemetry } from "./telemetry_session.ts";
import type { ApiSession } from "./api_session.ts";
import type { RunPlan } from "./plan_run.ts";
import { serverOptions } from "./resolve_endpoint.ts";

/** What an open run holds; disposing it releases everything, in reverse order. */
export interface OpenRun extends AsyncDisposable {
  readonly logger: Logger;
  readonly logFile: FileSink;
  readonly logPath: string;
  readonly api?: ApiSession;
  /** Counts tokens once its Worker is ready (calls wait for it; the first one starts the tokenizer's loading). */
  readonly counter?: StartedTokenCounter;
  readonly wake?: CpuDmaLatencyHold;
  /** The file long columns hand their segments to (removed when the run is disposed); none when it cannot be made. */
  readonly spill?: ColumnSpill;
  /** Opens a file in the run's directory where a time-weighted statistic sets value ranges aside at the end. */
  readonly scratch: ScratchFactory;
  /** Scraping the server's metrics and GPUs, once {@linkcode probeServers} started it. */
  telemetry?: TelemetryCollector;
  /** What the server says it is (`run_info.server`). */
  identity?: JsonObject;
}

export interface OpenOptions {
  readonly logger: Logger;
  readonly stop?: AbortSignal;
}

/** Acquires the run's resources; a failure releases those already held and is an input error. */
export async function openRun(plan: RunPlan, o: OpenOptions): Promise<OpenRun> {
  const { logger } = o;
  const stack = new AsyncDisposableStack();
  try {
    const counter = plan.counter;
    if (counter !== undefined) stack.defer(() => counter.close());
    // One run per directory; this also proves it writable before anything is sent.
    const lock = stack.use(await lockArtifactDir(plan.dir));
    const logPath = join(plan.dir, "logs", "infermeter.log");
    const logFile = await FileSink.open(logPath).catch((err: Error) => {
      throw new InputError(`cannot write the log file in ${plan.dir}: ${err.message}`);
    });
    logger.addSink(logFile, "DEBUG");
    stack.defer(async () => {
      logger.removeSink(logFile);
      await logFile.close();
    });
    logger.debug(`command: ${plan.cliCommand}`); // again, now that the log file receives it
    const spill = openSpill(join(plan.dir, SPILL_FILE_NAME), logger);
    if (spill !== undefined) {
      stack.defer(async () => {
        await spill.close();
        if (spill.written > 0) logger.debug(`long columns held ${spill.written} bytes in ${spill.path} (removed)`);
        if (spill.failure !== undefined) logger.warning(`the spill file stopped taking values (${spill.failure}).`);
      });
    }
    if (lock.notice) logger.warning(lock.notice);
    for (const n of plan.notices) logger[n.level](n.text);
    const api = await startApi(plan, logger);
    if (api !== undefined) {
      stack.defer(async () => {
        if (!api.resultsReady()) api.fail();
        await api.close(o.stop, logger);
      });
    }
    const wake = plan.config.cpuDmaLatency === undefined ? undefined : holdCpuDmaLatency(plan.config.cpuDmaLatency);
    if (wake !== undefined) stack.defer(() => wake.release());
    if (wake?.held) {
      logger.info(
        `Holding the CPU wake-up latency limit at ${wake.requestedUs} µs for the run (${CPU_DMA_LATENCY_PATH})`,
      );
    } else if (wake !== undefined) {
      logger.warning(`--cpu-dma-latency ${wake.requestedUs} has no effect: ${wake.reason}.`);
    }
    const moved = stack.move();
    const run: OpenRun = {
      logger,
      logFile,
      logPath,
      api,
      counter,
      wake,
      spill,
      scratch: scratchFiles(plan.dir, (why) => logger.warning(`a scratch file of the results: ${why}`)),
      async [Symbol.asyncDispose]() {
        await run.telemetry?.stop();
        await moved.disposeAsync();
      },
    };
    return run;
  } catch (err) {
    await stack.disposeAsync();
    throw err;
  }
}

/** The run's spill file; without one (an error making it) every value stays in memory, as for a short run. */
function openSpill(path: string, logger: Logger): ColumnSpill | undefined {
  try {
    return ColumnSpill.open(path);
  } catch (err) {
    logger.warning(`cannot create ${path} (${errorReason(err)}): the run keeps every value in memory.`);
    return undefined;
  }
}

/** The HTTP API (and its server library) is loaded only when asked for. */
async function startApi(plan: RunPlan, logger: Logger): Promise<ApiSession | undefined> {
  const { config } = plan;
  if (config.apiPort === undefined) return undefined;
  const api = await (await import("./api_session.ts")).ApiSession.start({
    config,
    identity: {
      benchmarkId: plan.benchmarkId,
      model: config.modelNames.join(","),
      endpointType: config.endpointType,
      streaming: plan.endpoint.streaming,
      concurrency: config.concurrency,
      requestRate: config.requestRate,
      version: VERSION,
    },
    inputConfig: plan.inputConfig,
    runInfo: plan.runInfo,
    artifactDir: plan.dir,
    metrics: plan.metrics,
    shards: plan.layout.shards,
  }, logger);
  if (api === undefined) {
    throw new InputError(`--api-port ${config.apiPort}: the API server cannot listen there; choose a free port.`);
  }
  return api;
}

/** How probing the servers ended: ready, or why not (nothing was sent). */
export type ProbeEnd = { readonly ok: true } | {
  readonly ok: false;
  readonly end: "unreachable" | "interrupted_before_start";
};

/**
 * Readiness, reachability, identity and telemetry, after planning and opening (so no timer here spans blocking
 * work). Every failure keeps the transport's own words ("connection refused", a DNS or TLS failure).
 */
export async function probeServers(plan: RunPlan, run: OpenRun, o: OpenOptions & { readonly discovered: boolean }) {
  const { logger } = run;
  const { endpoint, config } = plan;
  const ready = await waitUntilReady(
    endpoint.probe,
    serverOptions(endpoint, config.modelNames, logger, o.stop),
    o.discovered,
  );
  if (!ready.ok) {
    if (ready.cancelled) logger.warning(ready.message);
    else logger.error(ready.message);
    return { ok: false, end: ready.cancelled ? "interrupted_before_start" : "unreachable" } as const;
  }
  // Network only: the telemetry endpoints' baseline scrapes and the server's identity, beside the connect check.
  const telemetry = probeTelemetry(config);
  telemetry.catch(() => {});
  const identity = readServerIdentity(endpoint.probe).catch(() => undefined);
  const reaches = await Promise.all(endpoint.targets.map((t) => checkReachable(t, undefined, o.stop)));
  const reach = reaches.find((r) => !r.ok) ?? reaches[0];
  if (o.stop?.aborted) return { ok: false, end: "interrupted_before_start" } as const;
  if (!reach.ok) {
    logger.error(reach.message!);
    return { ok: false, end: "unreachable" } as const;
  }
  // Baseline scrapes were taken before anything is sent (warm-up included); polling starts now.
  run.telemetry = (await telemetry)?.start(logger);
  run.identity = (await identity) as JsonObject | undefined;
  logger.debug(`server reachable (connect ${reach.connectMs?.toFixed(2)} ms) ${sinceStart()}`);
  const shownPath = targetPath(endpoint.targets[0].basePath, endpoint.path, config.customEndpoint !== undefined);
  const many = endpoint.targets.length > 1 ? ` on ${endpoint.targets.length} servers (round robin)` : "";
  logger.info(`Using ${shownPath} endpoint${many}`);
  const headerOptions = {
    endpointHeaders: endpoint.adapter.headers({ streaming: endpoint.streaming, apiKey: config.apiKey }),
    userHeaders: config.headers,
  };
  for (const notice of credentialNotices(endpoint.targets[0], headerOptions)) logger.info(notice);
  return { ok: true } as const;
}
