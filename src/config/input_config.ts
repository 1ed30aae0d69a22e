/**
 * The `input_config` block of the JSON export: the run's configuration in AIPerf's nested shape (`endpoint`,
 * `input`, `loadgen`, `output`, `tokenizer`, `service`). It never contains the API key; credential header values,
 * secret-looking extra-input keys and URL userinfo are replaced by `<redacted>`. Unset options are left out.
 */
import type { ProfileConfig } from "./profile_config.ts";
import { redactHeaders, redactSecretKeys, redactUrl } from "./redact_secrets.ts";

/** JSON-safe number: infinity (an unbounded grace period) is written as the string "inf". */
function jsonNumber(value: number | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return Number.isFinite(value) ? value : "inf";
}

/** Drops undefined fields recursively so the JSON has no nulls for unset options. */
function compact(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner === undefined) continue;
    out[key] = inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? compact(inner as Record<string, unknown>)
      : inner;
  }
  return out;
}

/** AIPerf-like nested configuration for `profile_export_aiperf.json`, free of secrets. */
export function toInputConfig(config: ProfileConfig): Record<string, unknown> {
  const urls = config.urls.map((url) => redactUrl(url));
  return compact({
    endpoint: {
      model_names: [...config.modelNames],
      model_selection_strategy: config.modelSelectionStrategy,
      type: config.endpointType,
      custom_endpoint: config.customEndpoint,
      streaming: config.streaming,
      url: urls[0],
      urls,
      timeout_seconds: config.requestTimeoutSeconds,
      use_legacy_max_tokens: config.useLegacyMaxTokens,
      use_server_token_count: config.useServerTokenCount,
      connection_reuse_strategy: config.connectionReuseStrategy,
    },
    input: {
      extra: redactSecretKeys(config.extraInputs),
      headers: Object.fromEntries(redactHeaders(config.headers)),
      file: config.inputFile,
      custom_dataset_type: config.customDatasetType,
      dataset_sampling_strategy: config.datasetSamplingStrategy,
      random_seed: config.randomSeed,
      num_dataset_entries: config.numDatasetEntries,
      goodput: config.goodput.length === 0
        ? undefined
        : Object.fromEntries(config.goodput.map((slo) => [slo.tag, slo.value])),
      prompt: {
        input_tokens: { mean: config.syntheticInputTokensMean, stddev: config.syntheticInputTokensStddev },
        output_tokens: { mean: config.outputTokensMean, stddev: config.outputTokensStddev },
      },
      config_file: config.configFile,
    },
    loadgen: {
      concurrency: config.concurrency,
      request_rate: config.requestRate,
      arrival_pattern: config.arrivalPattern,
      arrival_smoothness: config.arrivalSmoothness,
      request_count: config.requestCount,
      benchmark_duration: config.benchmarkDuration,
      benchmark_grace_period: jsonNumber(config.benchmarkGracePeriod),
      concurrency_ramp_duration: jsonNumber(config.concurrencyRampDuration),
      warmup_request_count: config.warmupRequestCount,
      failed_request_threshold: config.failedRequestThreshold,
    },
    output: {
      artifact_directory: config.artifactDir,
      profile_export_prefix: config.profileExportPrefix,
      export_level: config.exportLevel,
    },
    tokenizer: { name: config.tokenizer },
    service: {
      log_level: config.logLevel,
      ui_type: config.ui,
      workers: config.workers,
      cpu_dma_latency: config.cpuDmaLatency,
    },
  });
}
