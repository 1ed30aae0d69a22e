/**
 * The embedded API for one profile run: the provider the API reads (live view, identity, results) and the server's
 * lifetime — started before anything is sent, told when the exports are written, kept up `--api-keep-alive`
 * seconds after the run (or until the stop signal), then closed.
 */
import type { ProfileConfig } from "../config/profile_config.ts";
import type { JsonObject } from "../export/json_export.ts";
import type { MetricDef } from "../metrics/metric_def.ts";
import type {
  ApiIdentity,
  ApiLiveMetric,
  ApiPhase,
  ApiProvider,
  ApiResultsStatus,
  ApiRunState,
  ApiWorker,
} from "../api/api_provider.ts";
import { type ApiServer, startApiServer } from "../api/api_server.ts";
import type { Logger } from "../ui/logger.ts";
import type { LiveRun } from "./live_run.ts";
import { liveRates } from "../metrics/live_rates.ts";

export interface ApiSessionOptions {
  readonly config: ProfileConfig;
  readonly identity: ApiIdentity;
  readonly inputConfig: JsonObject;
  readonly runInfo: JsonObject;
  readonly artifactDir: string;
  readonly metrics: readonly MetricDef[];
  readonly shards: number;
}

export class ApiSession implements ApiProvider {
  readonly identity: ApiIdentity;
  readonly artifactDir: string;
  readonly #o: ApiSessionOptions;
  #live: LiveRun | undefined;
  #state: ApiRunState = "starting";
  #results: { status: ApiResultsStatus; results?: JsonObject } = { status: "running" };
  #ready = false;
  #server: ApiServer | undefined;

  constructor(options: ApiSessionOptions) {
    this.#o = options;
    this.identity = options.identity;
    this.artifactDir = options.artifactDir;
  }

  /** Starts the server; undefined (with the reason logged) when the port cannot be bound. */
  static async start(options: ApiSessionOptions, logger: Logger): Promise<ApiSession | undefined> {
    const session = new ApiSession(options);
    const { apiHost, apiPort } = options.config;
    try {
      session.#server = await startApiServer(apiHost, apiPort!, session, {
        allowedHosts: options.config.apiAllowedHosts,
      });
    } catch (err) {
      logger.error(`API server: cannot listen on ${apiHost}:${apiPort} (${(err as Error).message}).`);
      return undefined;
    }
    logger.info(`API server: ${session.#server.url} (docs at ${session.#server.url}/docs)`);
    return session;
  }

  get url(): string | undefined {
    return this.#server?.url;
  }

  attach(live: LiveRun): void {
    this.#live = live;
    this.#state = "running";
  }

  /** The exports are written: results become available and files downloadable. */
  finish(results: JsonObject, cancelled: boolean): void {
    this.#results = { status: cancelled ? "cancelled" : "complete", results };
    this.#ready = true;
    this.#state = cancelled ? "cancelled" : "complete";
  }

  /** The run ended without results (unreachable server, internal error). */
  fail(): void {
    this.#results = { status: "incomplete" };
    this.#state = "failed";
  }

  /** Keeps serving `--api-keep-alive` seconds (or until `stop`), then closes. */
  async close(stop: AbortSignal | undefined, logger: Logger): Promise<void> {
    const seconds = this.#o.config.apiKeepAlive;
    if (seconds > 0 && !stop?.aborted && this.#server !== undefined) {
      logger.info(`API server: staying up ${seconds} s at ${this.#server.url} (Ctrl-C to stop).`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, seconds * 1000);
        function done() {
          clearTimeout(timer);
          stop?.removeEventListener("abort", done);
          resolve();
        }
        stop?.addEventListener("abort", done, { once: true });
      });
    }
    await this.#server?.close();
  }

  config(): JsonObject {
    return this.#o.inputConfig;
  }

  runInfo(): JsonObject {
    return this.#o.runInfo;
  }

  state(): ApiRunState {
    return this.#state;
  }

  phases(): readonly ApiPhase[] {
    return this.#live?.snapshot().phases ?? [];
  }

  workers(): readonly ApiWorker[] {
    const snapshot = this.#live?.snapshot();
    const seen = new Map((snapshot?.workers ?? []).map((w) => [w.workerId, w]));
    const finished = this.#state !== "running" && this.#state !== "starting";
    const out: ApiWorker[] = [];
    const ids = new Set([...Array.from({ length: this.#o.shards }, (_, i) => `worker_${i}`), ...seen.keys()]);
    for (const id of ids) {
      const w = seen.get(id);
      out.push({
        workerId: id,
        completed: w?.completed ?? 0,
        errors: w?.errors ?? 0,
        status: finished ? "stopped" : this.#live !== undefined && snapshot!.state !== "starting" ? "running" : "idle",
      });
    }
    return out;
  }

  liveMetrics(): readonly ApiLiveMetric[] {
    const snapshot = this.#live?.snapshot();
    if (snapshot === undefined) return [];
    const m = snapshot.metrics;
    const out: ApiLiveMetric[] = [];
    for (const def of this.#o.metrics) {
      const avg = m.averages[def.tag];
      if (avg === undefined) continue;
      out.push({ tag: def.tag, header: def.header, unit: def.unit, avg, sum: m.sums[def.tag] });
    }
    out.push(
      { tag: "request_count", header: "Request Count", unit: "requests", value: m.successCount },
      { tag: "error_request_count", header: "Error Request Count", unit: "requests", value: m.errorCount },
    );
    if (m.goodCount !== undefined) {
      out.push({ tag: "good_request_count", header: "Good Request Count", unit: "requests", value: m.goodCount });
    }
    const profiling = snapshot.phases.find((p) => p.name === "profiling");
    const rates = profiling === undefined ? undefined : liveRates(m, profiling.startedAtMs - snapshot.timeOriginMs);
    if (rates !== undefined && rates.windowSec > 0) {
      out.push({
        tag: "request_throughput",
        header: "Request Throughput",
        unit: "requests/sec",
        value: rates.requestsPerSec,
      });
      if (m.sums.output_sequence_length !== undefined) {
        out.push({
          tag: "output_token_throughput",
          header: "Output Token Throughput",
          unit: "tokens/sec",
          value: rates.outputTokensPerSec,
        });
      }
    }
    return out;
  }

  results(): { readonly status: ApiResultsStatus; readonly results?: JsonObject } {
    return this.#results;
  }

  resultsReady(): boolean {
    return this.#ready;
  }
}
