/**
 * Server metrics and GPU telemetry for one profile run: which endpoints to scrape (from the options), and after the
 * run the summaries over the profiling window: the content of `server_metrics_export.{json,csv}`, the
 * `telemetry_data` block of the JSON export and the console tables.
 */
import type { ProfileConfig } from "../config/profile_config.ts";
import type { JsonObject } from "../export/json_export.ts";
import { gpuEfficiency, summarizeGpus } from "../telemetry/gpu_telemetry.ts";
import type { ServerMetricsReport } from "../telemetry/server_metrics_export.ts";
import { endpointInfo, summarizeServerMetrics, type Window } from "../telemetry/server_metrics_summary.ts";
import { serverMetricsFlushMs, TelemetryCollector, type TelemetryProbe } from "../telemetry/telemetry_collector.ts";
import { renderGpuTable, renderServerMetricsTable } from "../telemetry/telemetry_tables.ts";

/**
 * Probes what the options ask for (network only, so it overlaps the CPU work of building the dataset); `start()`
 * of the result begins scraping. Undefined when both are off.
 */
export async function probeTelemetry(config: ProfileConfig): Promise<TelemetryProbe | undefined> {
  const serverMetrics = !config.noServerMetrics;
  const gpuTelemetry = !config.noGpuTelemetry;
  if (!serverMetrics && !gpuTelemetry) return undefined;
  return await TelemetryCollector.probe({
    targetUrls: config.urls,
    serverUrls: config.serverMetricsUrls,
    serverMetrics,
    gpuUrls: config.gpuTelemetryUrls,
    gpuTelemetry,
    flushPeriodMs: serverMetricsFlushMs((name) => Deno.env.get(name)),
  });
}

/** What was scraped over the profiling window, summarized: written by the server-metrics output, shown in the console. */
export interface TelemetryResult {
  /** `server_metrics_export.{json,csv}`'s content, when a server's metrics were scraped. */
  readonly serverReport?: ServerMetricsReport;
  /** Console tables (server metrics, GPUs). */
  readonly serverTable?: string;
  readonly gpuTable?: string;
  /** The JSON export's `telemetry_data` block, when GPUs reported. */
  readonly telemetryData?: JsonObject;
}

export interface TelemetryFinish {
  readonly window: Window;
  readonly benchmarkId: string;
  readonly infermeterVersion: string;
  readonly inputConfig: JsonObject;
  /** Total output tokens of the profiling phase, for tokens per joule. */
  readonly outputTokens?: number;
  readonly maxWidth: number;
  /** `--slice-duration` in ms: server metrics get time slices too. */
  readonly sliceDurationMs?: number;
}

/** Stops scraping and summarizes what was collected. */
export async function finishTelemetry(collector: TelemetryCollector, f: TelemetryFinish): Promise<TelemetryResult> {
  await collector.stop({ endEpochMs: f.window.endMs });
  const server = collector.serverScrapes();
  let serverReport: ServerMetricsReport | undefined;
  let serverTable: string | undefined;
  if (server.length > 0) {
    const metrics = summarizeServerMetrics(server, f.window, { sliceDurationMs: f.sliceDurationMs });
    serverReport = {
      benchmarkId: f.benchmarkId,
      infermeterVersion: f.infermeterVersion,
      endpointsConfigured: collector.serverConfigured,
      endpointsSuccessful: server.map((s) => s.url),
      endpointInfo: Object.fromEntries(server.map((s) => [s.url, endpointInfo(s.scrapes)])),
      window: f.window,
      metrics,
      inputConfig: f.inputConfig,
    };
    serverTable = renderServerMetricsTable(metrics, f.maxWidth);
  }
  const gpuScrapes = collector.gpuScrapes();
  const gpus = gpuScrapes.length === 0 ? [] : summarizeGpus(gpuScrapes, f.window);
  if (gpus.length === 0) return { serverReport, serverTable };
  const efficiency = gpuEfficiency(gpus, f.window, f.outputTokens);
  const gpuTable = renderGpuTable(
    gpus,
    efficiency,
    `${gpuScrapes.length}/${collector.gpuConfigured.length}`,
    f.maxWidth,
  );
  const telemetryData: JsonObject = {
    endpoints: collector.gpuConfigured,
    endpoints_successful: gpuScrapes.map((g) => g.url),
    gpus: gpus.map((g) => ({
      endpoint_url: g.endpointUrl,
      gpu_index: g.gpuIndex,
      gpu_uuid: g.gpuUuid,
      gpu_model: g.gpuModel,
      hostname: g.hostname,
      metrics: Object.fromEntries(Object.entries(g.metrics).map(([k, v]) => [k, { ...v }])),
      energy_consumption: g.energyJ === undefined
        ? undefined
        : { unit: "J", total: g.energyJ, from_counter: g.energyFromCounter },
    })),
    efficiency: efficiency === undefined ? undefined : {
      total_gpu_energy: { unit: "J", avg: efficiency.totalGpuEnergyJ },
      average_gpu_power: { unit: "W", avg: efficiency.averageGpuPowerW },
      output_tokens_per_joule: efficiency.outputTokensPerJoule === undefined
        ? undefined
        : { unit: "tokens/J", avg: efficiency.outputTokensPerJoule },
      energy_per_output_token: efficiency.energyPerOutputTokenMj === undefined
        ? undefined
        : { unit: "mJ/token", avg: efficiency.energyPerOutputTokenMj },
    },
  };
  return { serverReport, serverTable, gpuTable, telemetryData };
}
