/**
 * `--mlflow-tracking-uri`: the run in an MLflow tracking server, as AIPerf 0.13 puts it there. The run is created as
 * the benchmark starts and receives live metrics during it (`live.<instrument>`, each value a step, sent every
 * `--otel-export-interval` seconds); after the local files are written it gets the summary metrics (`<tag>` for the
 * average, `<tag>.<stat>` for the others), AIPerf's parameters and tags, the result files chosen by
 * `--mlflow-artifact-glob` (under `exports/`, images and pages under `plots/`), and `mlflow_export.json`, which says
 * where it all went. A server that is down, slow or refusing is a warning; local results and the exit code stand.
 */
import { VERSION } from "../../base/version.ts";
import { streamDomains } from "../../config/check_tracking_export.ts";
import type { ProfileConfig } from "../../config/profile_config.ts";
import { DEFAULT_ARTIFACT_GLOBS, globFiles } from "../../export/artifact_glob.ts";
import {
  type KeyValue,
  MAX_PARAM_LENGTH,
  MlflowClient,
  type MlflowMetric,
  type MlflowRunInfo,
} from "../../export/mlflow_rest.ts";
import { failureReason, shownUrl } from "../../export/service_call.ts";
import type { RecordRow } from "../../metrics/record_row.ts";
import type { ProcessedRecord, RequestRecord } from "../../records/request_record.ts";
import type { Logger } from "../../ui/logger.ts";
import type { LiveRun } from "../live_run.ts";
import type { Output, OutputSink, OutputWriter, PublishContext, RunResults, SinkContext } from "./output.ts";
import { RecordTelemetry, type ValueListener } from "./record_telemetry.ts";

export const MLFLOW_EXPORT_FILE = "mlflow_export.json";

/** Live metrics kept while the server is slow or away (AIPerf's queue bound); the oldest go first. */
const MAX_BUFFERED = 10_000;
/** Live metrics per `log-batch` (AIPerf's batch size). */
const LIVE_BATCH = 500;
/** AIPerf's statistics, in its order: the average is the bare tag. */
const STAT_FIELDS = [
  "avg",
  "p1",
  "p5",
  "p10",
  "p25",
  "p50",
  "p75",
  "p90",
  "p95",
  "p99",
  "min",
  "max",
  "std",
  "count",
  "sum",
];
const PLOT_SUFFIXES = [".png", ".jpg", ".jpeg", ".svg", ".gif", ".webp", ".html"];

export const MLFLOW_OUTPUT: Output = {
  name: "mlflow",
  description: "MLflow: live metrics during the run, then summary metrics, parameters, tags and result files",
  enabled: (config) => config.mlflowTrackingUri !== undefined,
  files: () => [],
  sink: (ctx) => new MlflowSink(ctx),
  async finish(ctx, writer) {
    const sink = ctx.sink instanceof MlflowSink ? ctx.sink : undefined;
    // One time limit for everything after the run: the last live values, then the upload.
    const deadline = AbortSignal.timeout(ctx.config.mlflowTimeout * 1000);
    await sink?.stop(deadline);
    await uploadRun(ctx, writer, sink, deadline);
  },
};

/** The run's default name: AIPerf's rule, with this tool's name. */
function defaultRunName(benchmarkId: string): string {
  return `infermeter-${benchmarkId.slice(0, 8)}`;
}

function clientOf(config: ProfileConfig): MlflowClient {
  return new MlflowClient(config.mlflowTrackingUri!, {
    token: config.mlflowTrackingToken,
    username: config.mlflowTrackingUsername,
    password: config.mlflowTrackingPassword,
  });
}

/** Creates the run in its experiment, nested under `--mlflow-parent-run-id` when that run exists. */
async function createRun(
  client: MlflowClient,
  config: ProfileConfig,
  benchmarkId: string,
  logger: Logger,
  signal: AbortSignal,
): Promise<{ run: MlflowRunInfo; parentRunId?: string }> {
  const experimentId = await client.experimentId(config.mlflowExperiment, signal);
  let parentRunId = config.mlflowParentRunId;
  if (parentRunId !== undefined && !(await client.runExists(parentRunId, signal))) {
    logger.warning(`MLflow parent run ${parentRunId} does not exist; the run is created at the top level instead.`);
    parentRunId = undefined;
  }
  const runName = config.mlflowRunName ?? defaultRunName(benchmarkId);
  const user = Deno.env.get("USER") ?? Deno.env.get("LOGNAME") ?? "unknown";
  const run = await client.createRun({
    experimentId,
    runName,
    startTime: Date.now(),
    tags: [
      { key: "mlflow.user", value: user },
      { key: "mlflow.source.name", value: "infermeter" },
      { key: "mlflow.source.type", value: "LOCAL" },
      { key: "mlflow.runName", value: runName },
      ...(parentRunId === undefined ? [] : [{ key: "mlflow.parentRunId", value: parentRunId }]),
    ],
  }, signal);
  return { run, parentRunId };
}

/** The live half: creates the run as the benchmark starts and sends each value as it is measured, in batches. */
class MlflowSink implements OutputSink {
  readonly name = "mlflow";
  readonly client: MlflowClient;
  readonly #telemetry: RecordTelemetry;
  readonly #logger: Logger;
  readonly #intervalMs: number;
  /** Each live batch's time limit: `--mlflow-timeout` (a busy server is given time; the values wait meanwhile). */
  readonly #timeoutMs: number;
  /** The run, once created; undefined when it could not be. */
  readonly ready: Promise<{ run: MlflowRunInfo; parentRunId?: string } | undefined>;
  #buffer: MlflowMetric[] = [];
  #step = 0;
  #dropped = 0;
  #flushing?: Promise<void>;
  #warned = false;
  #timer?: ReturnType<typeof setTimeout>;
  #sent = 0;
  readonly #stopped = new AbortController();

  constructor(ctx: SinkContext) {
    this.#logger = ctx.logger;
    this.client = clientOf(ctx.config);
    this.#intervalMs = ctx.config.otelExportInterval * 1000;
    this.#timeoutMs = ctx.config.mlflowTimeout * 1000;
    const domains = streamDomains(ctx.config.otelStream);
    const listener: ValueListener = (e) => {
      // Counters and gauges are one series per phase, as AIPerf names them.
      this.#push(e.kind === "histogram" ? `live.${e.name}` : `live.${e.name}.${e.phase}`, e.value);
    };
    this.#telemetry = new RecordTelemetry({
      config: ctx.config,
      metrics: ctx.metrics,
      streamMetrics: domains.metrics,
      streamTiming: domains.timing,
      listener,
    });
    const signal = this.#limit();
    this.ready = createRun(this.client, ctx.config, ctx.benchmarkId, ctx.logger, signal).then(
      async (created) => {
        const tags = [
          ...Object.entries(ctx.config.mlflowTags ?? {}).map(([key, value]) => ({ key, value: String(value) })),
          { key: "benchmark_id", value: ctx.benchmarkId },
        ];
        await this.client.logBatch(created.run.runId, { tags }, signal);
        this.#logger.info(`MLflow run ${created.run.runName}: ${this.client.runPage(created.run)}`);
        return created;
      },
    ).catch((err) => {
      this.#logger.warning(
        `could not start the MLflow run at ${shownUrl(this.client.base)} (${failureReason(err)}); live metrics ` +
          "are not sent, and the upload is tried again after the run.",
      );
      return undefined;
    });
    this.#schedule();
  }

  watchLive(live: LiveRun): void {
    this.#telemetry.watchLive(live);
  }

  arrived(record: RequestRecord): void {
    this.#telemetry.arrived(record);
  }

  measured(record: ProcessedRecord, row: RecordRow): void {
    this.#telemetry.measured(record, row);
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#telemetry.sampleTiming();
  }

  /** Stops the timer and sends what is left of the live metrics. */
  async stop(deadline: AbortSignal): Promise<void> {
    this.close();
    // Calls still waiting on the server give up at the deadline.
    if (deadline.aborted) this.#stopped.abort();
    else deadline.addEventListener("abort", () => this.#stopped.abort(), { once: true });
    await this.#flushing;
    const created = await this.ready;
    if (created !== undefined) await this.#flush(created.run, deadline);
    if (this.#dropped > 0) {
      this.#logger.warning(`${this.#dropped} live MLflow metrics were dropped while the server did not take them.`);
    }
    this.#logger.debug(`MLflow live metrics sent: ${this.#sent}`);
  }

  /** A live call's time limit: `--mlflow-timeout`, or the end of the upload's time after the run. */
  #limit(): AbortSignal {
    return AbortSignal.any([this.#stopped.signal, AbortSignal.timeout(this.#timeoutMs)]);
  }

  #push(key: string, value: number): void {
    if (!Number.isFinite(value)) return;
    if (this.#buffer.length >= MAX_BUFFERED) {
      // The oldest tenth at once: dropping one per value would move the whole buffer each time.
      const drop = MAX_BUFFERED / 10;
      this.#buffer.splice(0, drop);
      this.#dropped += drop;
    }
    this.#buffer.push({ key, value, timestamp: Date.now(), step: this.#step++ });
  }

  #schedule(): void {
    const timer = setTimeout(() => {
      this.#telemetry.sampleTiming();
      if (this.#flushing === undefined) {
        this.#flushing = this.ready.then((created) =>
          created === undefined ? undefined : this.#flush(created.run, this.#limit())
        ).finally(() => this.#flushing = undefined);
      }
      if (this.#timer === timer) this.#schedule();
    }, this.#intervalMs);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  async #flush(run: MlflowRunInfo, signal: AbortSignal): Promise<void> {
    while (this.#buffer.length > 0) {
      const batch = this.#buffer.slice(0, LIVE_BATCH);
      try {
        await this.client.logBatch(run.runId, { metrics: batch }, signal);
      } catch (err) {
        if (!this.#warned) {
          this.#warned = true;
          this.#logger.warning(
            `sending live metrics to MLflow failed (${failureReason(err)}); they are kept and retried.`,
          );
        }
        return;
      }
      this.#buffer.splice(0, batch.length);
      this.#sent += batch.length;
    }
  }
}

/** The summary metrics, AIPerf's keys: `<tag>` for the average, `<tag>.<stat>` for the rest. */
export function summaryMetrics(results: RunResults, config: ProfileConfig, at: number): MlflowMetric[] {
  const out: MlflowMetric[] = [];
  const add = (key: string, value: number | undefined) => {
    if (value !== undefined && Number.isFinite(value)) out.push({ key, value, timestamp: at, step: 0 });
  };
  for (const m of results.summary.metrics) {
    if (m.flags.internal) continue;
    if (m.stats !== undefined) {
      for (const field of STAT_FIELDS) {
        add(field === "avg" ? m.tag : `${m.tag}.${field}`, (m.stats as unknown as Record<string, number>)[field]);
      }
    } else {
      add(m.tag, m.value);
      add(`${m.tag}.count`, m.value === undefined ? undefined : 1);
    }
  }
  add("aiperf.completed_requests", results.summary.successCount + results.summary.errorCount);
  add("aiperf.total_expected_requests", config.requestCount);
  return out;
}

/** AIPerf's run parameters, from the run's `input_config` (credentials already out of it). */
export function runParams(results: RunResults, config: ProfileConfig, dir: string): KeyValue[] {
  const input = results.info.inputConfig as {
    endpoint?: { urls?: string[]; type?: string };
    phases?: {
      kind?: string;
      type?: string;
      concurrency?: number;
      rate?: number;
      requests?: number;
      duration?: number;
    }[];
  };
  const phase = input.phases?.find((p) => p.kind === "profiling");
  const params: [string, unknown][] = [
    ["endpoint.type", config.endpointType],
    ["endpoint.models", config.modelNames.join(",")],
    ["endpoint.urls", (input.endpoint?.urls ?? []).join(",")],
    ["output.artifact_directory", dir],
    ["timing.mode", phase?.type],
    ["loadgen.concurrency", phase?.concurrency],
    ["loadgen.request_rate", phase?.rate],
    ["loadgen.request_count", phase?.requests],
    ["loadgen.benchmark_duration", phase?.duration],
    ["aiperf.cli_command", results.info.runInfo.cliCommand],
  ];
  return params.filter(([, v]) => v !== undefined && v !== null && v !== "").map(([key, v]) => {
    const value = String(v);
    return { key, value: value.length > MAX_PARAM_LENGTH ? `${value.slice(0, MAX_PARAM_LENGTH - 1)}…` : value };
  });
}

/** Where a result file goes under the run's artifacts: `plots/` for images and pages, `exports/` for the rest. */
export function artifactPath(relativePath: string): string {
  const lower = relativePath.toLowerCase();
  const base = PLOT_SUFFIXES.some((s) => lower.endsWith(s)) ? "plots" : "exports";
  const parts = relativePath.split("/");
  if (parts[0] === base) parts.shift();
  return [base, ...parts].join("/");
}

function contentType(path: string): string {
  const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
  return {
    json: "application/json",
    csv: "text/csv",
    jsonl: "application/x-ndjson",
    html: "text/html",
    png: "image/png",
    svg: "image/svg+xml",
    jpg: "image/jpeg",
    jpeg: "image/jpeg",
    txt: "text/plain",
  }[ext] ?? "application/octet-stream";
}

/** The run's summary, parameters, tags and files, after the local files are written. */
async function uploadRun(
  ctx: PublishContext,
  writer: OutputWriter,
  sink: MlflowSink | undefined,
  signal: AbortSignal,
): Promise<void> {
  const { config, logger, results } = ctx;
  const client = sink?.client ?? clientOf(config);
  const shown = shownUrl(client.base);
  const live = await sink?.ready;
  if (results === undefined) {
    // Nothing was sent: a run started for live metrics is closed as failed, with nothing else to upload.
    if (live !== undefined) await client.finishRun(live.run.runId, "FAILED", signal).catch(() => {});
    return;
  }
  let created = live;
  try {
    created ??= await createRun(client, config, ctx.benchmarkId, logger, signal);
    const { run, parentRunId } = created;
    const now = Date.now();
    const metrics = summaryMetrics(results, config, now);
    const params = runParams(results, config, ctx.paths.dir);
    const tags: KeyValue[] = [
      { key: "infermeter.version", value: VERSION },
      { key: "aiperf.was_cancelled", value: String(results.info.wasCancelled) },
      { key: "benchmark_id", value: ctx.benchmarkId },
      ...Object.entries(config.mlflowTags ?? {}).map(([key, value]) => ({ key, value: String(value) })),
    ];
    await client.logBatch(run.runId, { metrics, params, tags }, signal);
    const files = await globFiles(ctx.paths.dir, config.mlflowArtifactGlobs ?? DEFAULT_ARTIFACT_GLOBS);
    const uploads = files.filter((f) => f !== MLFLOW_EXPORT_FILE);
    const metadata = {
      tracking_uri: shown,
      experiment: config.mlflowExperiment,
      run_id: run.runId,
      run_name: run.runName,
      benchmark_id: ctx.benchmarkId,
      parent_run_id: parentRunId ?? null,
      live_streaming: live !== undefined,
      reused_live_run: live !== undefined,
      metric_keys: [...new Set(metrics.map((m) => m.key))].sort(),
      param_keys: params.map((p) => p.key).sort(),
      tag_keys: tags.map((t) => t.key).sort(),
      uploaded_artifacts: [...uploads, MLFLOW_EXPORT_FILE],
      exported_at_ns: String(BigInt(now) * 1_000_000n),
      run_url: client.runPage(run),
    };
    const file = {
      role: "mlflow_export_json" as const,
      label: "MLflow Export",
      path: `${ctx.paths.dir}/${MLFLOW_EXPORT_FILE}`,
    };
    const wrote = await writer.write(file, JSON.stringify(metadata, null, 2) + "\n");
    for (const path of [...uploads, ...(wrote ? [MLFLOW_EXPORT_FILE] : [])]) {
      const data = await Deno.readFile(`${ctx.paths.dir}/${path}`);
      await client.uploadArtifact(run, artifactPath(path), data, contentType(path), signal);
    }
    await client.finishRun(run.runId, "FINISHED", signal);
    logger.info(
      `Uploaded the run to MLflow: ${run.runName} (${run.runId}) with ${metrics.length} metrics and ` +
        `${uploads.length + 1} files, ${client.runPage(run)}`,
    );
  } catch (err) {
    logger.warning(
      `the MLflow upload to ${shown} failed (${failureReason(err)}); the run's local results are complete in ` +
        `${ctx.paths.dir}.`,
    );
    if (created !== undefined) {
      await client.finishRun(created.run.runId, "FAILED", AbortSignal.timeout(5_000)).catch(() => {});
    }
  }
}
