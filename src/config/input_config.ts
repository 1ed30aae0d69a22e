/**
 * The `input_config` block of the JSON export: the run's configuration in AIPerf's nested shape (`endpoint`,
 * `input`, `loadgen`, `output`, `tokenizer`, `service`). It never contains the API key; credential header values,
 * secret-looking extra-input keys and URL userinfo are replaced by `<redacted>`. Unset options are left out.
 */
import type { ProfileConfig } from "./profile_config.ts";
import { redactHeaders, redactSecretKeys, redactUrl } from "../base/redact_secrets.ts";
import { otlpMetricsUrl } from "../export/otlp_metrics.ts";
import { resourceAttributes, streamDomains } from "./check_tracking_export.ts";

/** JSON-safe number: infinity (an unbounded grace period) is written as the string "inf". */
function jsonNumber(value: number | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return Number.isFinite(value) ? value : "inf";
}

/** Drops undefined fields recursively (inside arrays too) so the JSON has no nulls for unset options. */
function compact(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner === undefined) continue;
    out[key] = compactValue(inner);
  }
  return out;
}

function compactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(compactValue);
  if (value !== null && typeof value === "object") return compact(value as Record<string, unknown>);
  return value;
}

/** AIPerf 0.13's phase `type` for a load pattern. */
function phaseType(config: ProfileConfig): string {
  if (config.customDatasetType === "mooncake_trace") return "fixed_schedule";
  if (config.requestRate === undefined) return "concurrency";
  if (config.arrivalSmoothness !== undefined) return "gamma";
  return config.arrivalPattern === "concurrency_burst" ? "concurrency" : config.arrivalPattern;
}

/**
 * The run's configuration in AIPerf 0.13's `input_config` layout (`models.items`, `endpoint{urls, type,
 * streaming, extra}`, `datasets[]`, `phases[]`, `artifacts`, `tokenizer`, `runtime`), free of secrets. Options
 * AIPerf has no field for live under an `infermeter` key.
 */
export function toInputConfig(config: ProfileConfig): Record<string, unknown> {
  const urls = config.urls.map((url) => redactUrl(url));
  const headers = Object.fromEntries(redactHeaders(config.headers, config.redactHeaders));
  const extra = redactSecretKeys(config.extraInputs) as Record<string, unknown>;
  const fromFile = config.inputFile !== undefined;
  const phases: Record<string, unknown>[] = [];
  if (config.warmupRequestCount !== undefined && config.warmupRequestCount > 0) {
    phases.push({
      name: "warmup",
      kind: "warmup",
      type: phaseType(config),
      requests: config.warmupRequestCount,
      concurrency: config.concurrency,
      rate: config.requestRate,
    });
  }
  phases.push({
    name: "profiling",
    kind: "profiling",
    type: phaseType(config),
    requests: config.requestCount,
    duration: config.benchmarkDuration,
    concurrency: config.concurrency,
    concurrency_ramp: config.concurrencyRampDuration === undefined
      ? undefined
      : { duration: jsonNumber(config.concurrencyRampDuration) },
    rate: config.requestRate,
    smoothness: config.arrivalSmoothness,
    grace_period: config.benchmarkDuration === undefined ? undefined : jsonNumber(config.benchmarkGracePeriod),
    failed_request_threshold: config.failedRequestThreshold,
  });
  return compact({
    models: {
      items: config.modelNames.map((name) => ({ name })),
      strategy: config.modelNames.length > 1 ? config.modelSelectionStrategy : undefined,
    },
    endpoint: {
      urls,
      type: config.endpointType,
      path: config.customEndpoint,
      streaming: config.streaming ? true : undefined,
      timeout: config.requestTimeoutSeconds === 21600 ? undefined : config.requestTimeoutSeconds,
      use_legacy_max_tokens: config.useLegacyMaxTokens ? true : undefined,
      use_server_token_count: config.useServerTokenCount ? true : undefined,
      connection_reuse: config.connectionReuseStrategy === "pooled" ? undefined : config.connectionReuseStrategy,
      extra: Object.keys(extra).length > 0 ? extra : undefined,
      headers: Object.keys(headers).length > 0 ? headers : undefined,
    },
    datasets: [
      config.publicDataset !== undefined
        ? {
          name: "main",
          type: "public",
          dataset: config.publicDataset,
          random_seed: config.randomSeed,
          sampling: config.datasetSamplingStrategy,
        }
        : fromFile
        ? {
          name: "main",
          type: "file",
          path: config.inputFile,
          format: config.customDatasetType,
          sampling: config.datasetSamplingStrategy,
          random_seed: config.randomSeed,
        }
        : {
          name: "main",
          type: "synthetic",
          entries: config.numDatasetEntries,
          random_seed: config.randomSeed,
          sampling: config.datasetSamplingStrategy,
          prompts: {
            isl: { mean: config.syntheticInputTokensMean, stddev: config.syntheticInputTokensStddev },
            osl: config.outputTokensMean === undefined
              ? undefined
              : { mean: config.outputTokensMean, stddev: config.outputTokensStddev },
          },
        },
    ],
    phases,
    slos: config.goodput.length === 0
      ? undefined
      : Object.fromEntries(config.goodput.map((slo) => [slo.tag, slo.value])),
    artifacts: {
      dir: config.artifactDir,
      prefix: config.profileExportPrefix,
      records: config.exportLevel === "summary" ? undefined : ["jsonl"],
      raw: config.exportLevel === "raw" ? true : undefined,
      // `aiperf plot` reads it to put time slices on a seconds axis.
      slice_duration: config.sliceDuration,
      auto_plot: false,
      plot_required: false,
    },
    tokenizer: { name: config.tokenizer },
    ...trackingExportBlocks(config),
    runtime: { ui: config.ui, log_level: config.logLevel === "INFO" ? undefined : config.logLevel },
    infermeter: config.configFile === undefined && config.workers === undefined && config.cpuDmaLatency === undefined
      ? undefined
      : { config_file: config.configFile, workers: config.workers, cpu_dma_latency: config.cpuDmaLatency },
  });
}

/** AIPerf's `otel`, `mlflow` and `wandb` blocks, empty for an export not asked for (URLs without credentials). */
function trackingExportBlocks(config: ProfileConfig): Record<string, unknown> {
  const out: Record<string, unknown> = { otel: {}, mlflow: {}, wandb: {} };
  if (config.otelUrl !== undefined) {
    let url = config.otelUrl;
    try {
      url = otlpMetricsUrl(config.otelUrl);
    } catch {
      // refused before a run starts; kept as given otherwise
    }
    const { metrics, timing } = streamDomains(config.otelStream);
    out.otel = {
      metrics_url: redactUrl(url),
      stream_metrics_enabled: metrics ? undefined : false,
      stream_timing_enabled: timing ? undefined : false,
      custom_resource_attributes: config.otelResourceAttributes === undefined
        ? undefined
        : resourceAttributes(config.otelResourceAttributes),
      gen_ai_provider: config.genAiProvider,
    };
  }
  if (config.mlflowTrackingUri !== undefined) {
    out.mlflow = {
      tracking_uri: redactUrl(config.mlflowTrackingUri),
      experiment: config.mlflowExperiment,
      run_name: config.mlflowRunName,
      tags: config.mlflowTags === undefined
        ? undefined
        : Object.fromEntries(Object.entries(config.mlflowTags).map(([k, v]) => [k, String(v)])),
      parent_run_id: config.mlflowParentRunId,
      artifact_globs: config.mlflowArtifactGlobs,
    };
  }
  if (config.wandbProject !== undefined) {
    out.wandb = {
      project: config.wandbProject,
      entity: config.wandbEntity,
      run_name: config.wandbRunName,
      tags: config.wandbTags,
    };
  }
  return out;
}
