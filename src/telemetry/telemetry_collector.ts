/**
 * Scrapes the server's Prometheus metrics and DCGM-exporter GPU telemetry for the length of a run. Endpoints are
 * probed first (their first scrape is the baseline, before any warm-up): one that does not exist is skipped with
 * one log line and never asked again. `stop()` takes a final scrape of each and ends polling; given the end of the
 * run, it first waits out AIPerf's flush period (2 s after the end by default, `AIPERF_SERVER_METRICS_COLLECTION_
 * FLUSH_PERIOD` seconds) while polling goes on, so a server that updates its metrics late has them in the final
 * scrape and the export's rates span what AIPerf's span.
 *
 * Server endpoints: `<url>/metrics` of each target, or NIM's `<url>/v1/metrics` when the first is not there, plus
 * any `--server-metrics` URL (`/metrics` appended when it has no path). GPU endpoints: the `--gpu-telemetry` URLs,
 * or DCGM-exporter's defaults `localhost:9400` and `:9401`, used when they answer. The URLs it logs and hands out
 * for exports have userinfo and secret query values redacted; only the scrapers see them whole.
 */
import { redactUrl } from "../base/redact_secrets.ts";
import { isLoopbackUrl, PrometheusScraper } from "./prometheus_scraper.ts";
import type { ServerEndpointScrapes } from "./server_metrics_summary.ts";
import type { EndpointWindowStore } from "./window_summary.ts";

export const DEFAULT_DCGM_URLS: readonly string[] = ["http://localhost:9400/metrics", "http://localhost:9401/metrics"];

export interface TelemetryPlan {
  /** Target base URLs (`--url`); each is tried at `/metrics`, then `/v1/metrics`. Empty when disabled. */
  readonly targetUrls: readonly string[];
  /** Extra Prometheus URLs (`--server-metrics URL`). */
  readonly serverUrls: readonly string[];
  /** Whether server metrics are collected at all. */
  readonly serverMetrics: boolean;
  /** DCGM URLs; empty means the defaults. */
  readonly gpuUrls: readonly string[];
  readonly gpuTelemetry: boolean;
  /** Scrape interval, ms. @default 333 */
  readonly intervalMs?: number;
  /** Probe timeout, ms. @default 2000 */
  readonly probeTimeoutMs?: number;
  /** How long after the end of the run the final scrape is taken, ms (AIPerf's flush period). @default 2000 */
  readonly flushPeriodMs?: number;
}

/** AIPerf's server-metrics flush period: `AIPERF_SERVER_METRICS_COLLECTION_FLUSH_PERIOD` seconds, else 2 s. */
export function serverMetricsFlushMs(env: (name: string) => string | undefined): number {
  const text = env("AIPERF_SERVER_METRICS_COLLECTION_FLUSH_PERIOD");
  const seconds = text === undefined || text.trim() === "" ? NaN : Number(text);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : DEFAULT_FLUSH_MS;
}

const DEFAULT_FLUSH_MS = 2000;

export interface TelemetryLog {
  info(message: string): void;
  warning(message: string): void;
  debug(message: string): void;
}

/** Endpoints probed by {@linkcode TelemetryCollector.probe}, not yet polled. */
export interface TelemetryProbe {
  /** Logs what the probe found and starts polling the endpoints that answered. */
  start(log: TelemetryLog): TelemetryCollector;
}

export class TelemetryCollector {
  /** Server endpoints asked for (after path completion), redacted. */
  readonly serverConfigured: readonly string[];
  readonly server: readonly PrometheusScraper[];
  readonly gpuConfigured: readonly string[];
  readonly gpu: readonly PrometheusScraper[];

  readonly #flushPeriodMs: number;

  private constructor(
    serverConfigured: string[],
    server: PrometheusScraper[],
    gpuConfigured: string[],
    gpu: PrometheusScraper[],
    flushPeriodMs: number,
  ) {
    this.serverConfigured = serverConfigured.map(redactUrl);
    this.server = server;
    this.gpuConfigured = gpuConfigured.map(redactUrl);
    this.gpu = gpu;
    this.#flushPeriodMs = flushPeriodMs;
  }

  /** Probes every endpoint (concurrently), logs what is skipped, and starts polling the others. */
  static async start(plan: TelemetryPlan, log: TelemetryLog): Promise<TelemetryCollector> {
    return (await TelemetryCollector.probe(plan)).start(log);
  }

  /**
   * Probes every endpoint (concurrently; an endpoint's first scrape is its baseline) without polling or logging
   * yet, so that a run can probe while it builds its dataset and start once it is about to send.
   */
  static async probe(plan: TelemetryPlan): Promise<TelemetryProbe> {
    const notes: ((log: TelemetryLog) => void)[] = [];
    const log: TelemetryLog = {
      info: (message) => notes.push((l) => l.info(message)),
      warning: (message) => notes.push((l) => l.warning(message)),
      debug: (message) => notes.push((l) => l.debug(message)),
    };
    const options = { intervalMs: plan.intervalMs ?? 333, timeoutMs: plan.probeTimeoutMs ?? 2000 };
    const serverTasks: Promise<{ url: string; scraper?: PrometheusScraper }>[] = [];
    const serverConfigured: string[] = [];
    if (plan.serverMetrics) {
      for (const base of plan.targetUrls) {
        const candidates = [joinPath(base, "/metrics"), joinPath(base, "/v1/metrics")];
        serverConfigured.push(candidates[0]);
        serverTasks.push(
          firstAnswering(candidates, options).then(({ scraper, reason }) => {
            if (scraper === undefined) {
              log.info(
                `Server metrics: no Prometheus endpoint at ${candidates.map(redactUrl).join(" or ")} (${
                  redactUrl(reason)
                }); skipped.`,
              );
            }
            return { url: candidates[0], scraper };
          }),
        );
      }
      for (const raw of plan.serverUrls) {
        const url = withMetricsPath(raw);
        serverConfigured.push(url);
        serverTasks.push(
          firstAnswering([url], options).then(({ scraper, reason }) => {
            if (scraper === undefined) {
              log.warning(`Server metrics: ${redactUrl(url)} cannot be scraped (${redactUrl(reason)}); skipped.`);
            }
            return { url, scraper };
          }),
        );
      }
    }
    const explicitGpu = plan.gpuUrls.length > 0;
    const gpuConfigured = plan.gpuTelemetry
      ? (explicitGpu ? plan.gpuUrls.map(withMetricsPath) : [...DEFAULT_DCGM_URLS])
      : [];
    const gpuTasks = gpuConfigured.map((url) =>
      firstAnswering([url], { ...options, keepFor: "gpu" }).then(({ scraper, reason }) => {
        if (scraper === undefined && explicitGpu) {
          log.warning(`GPU telemetry: ${redactUrl(url)} cannot be scraped (${redactUrl(reason)}); skipped.`);
        }
        return { url, scraper };
      })
    );
    const [servers, gpus] = await Promise.all([Promise.all(serverTasks), Promise.all(gpuTasks)]);
    const gpu = gpus.flatMap((g) => g.scraper ? [g.scraper] : []);
    if (plan.gpuTelemetry && !explicitGpu && gpu.length === 0) {
      log.debug("GPU telemetry: no DCGM exporter at localhost:9400 or :9401; skipped.");
    }
    const server = dedupe(servers.flatMap((s) => s.scraper ? [s.scraper] : []));
    if (server.length > 0) log.info(`Server metrics: scraping ${server.map((s) => redactUrl(s.url)).join(", ")}`);
    if (gpu.length > 0) log.info(`GPU telemetry: scraping ${gpu.map((s) => redactUrl(s.url)).join(", ")}`);
    return {
      start(into: TelemetryLog): TelemetryCollector {
        for (const note of notes) note(into);
        for (const s of [...server, ...gpu]) s.start();
        return new TelemetryCollector(
          serverConfigured,
          server,
          gpuConfigured,
          gpu,
          plan.flushPeriodMs ?? DEFAULT_FLUSH_MS,
        );
      },
    };
  }

  /**
   * Final scrape of every endpoint, then no more polling. With `endEpochMs` (the end of the run) and server endpoints,
   * the final scrape waits until the flush period after it has passed. Idempotent.
   */
  async stop(options: { readonly endEpochMs?: number } = {}): Promise<void> {
    this.#stopping ??= (async () => {
      if (options.endEpochMs !== undefined && this.server.length > 0) {
        const wait = options.endEpochMs + this.#flushPeriodMs - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      await Promise.all([...this.server, ...this.gpu].map((s) => s.stop()));
    })();
    await this.#stopping;
  }
  #stopping: Promise<void> | undefined;

  serverScrapes(): ServerEndpointScrapes[] {
    return this.server.map((s) => ({ url: redactUrl(s.url), scrapes: s.scrapes, store: s.store }));
  }

  gpuScrapes(): EndpointWindowStore[] {
    return this.gpu.map((s) => ({ url: redactUrl(s.url), scrapes: s.scrapes, store: s.windowStore }));
  }
}

async function firstAnswering(
  urls: readonly string[],
  options: { intervalMs: number; timeoutMs: number; keepFor?: "server" | "gpu" },
): Promise<{ scraper?: PrometheusScraper; reason: string }> {
  let reason = "not tried";
  for (const url of urls) {
    if (!isLoopbackUrl(url)) return { reason: "only loopback endpoints are scraped" };
    const scraper = new PrometheusScraper(url, options);
    const probe = await scraper.probe();
    if (probe.ok) return { scraper, reason: "" };
    reason = probe.reason;
  }
  return { reason };
}

/** Two targets or flags naming one endpoint are scraped once. */
function dedupe(scrapers: PrometheusScraper[]): PrometheusScraper[] {
  const seen = new Set<string>();
  return scrapers.filter((s) => !seen.has(s.url) && seen.add(s.url) !== undefined);
}

/** `base` + `path`, without doubling slashes, query or userinfo. */
function joinPath(base: string, path: string): string {
  const u = new URL(base);
  u.pathname = u.pathname.replace(/\/+$/, "") + path;
  u.search = "";
  u.hash = "";
  u.username = "";
  u.password = "";
  return u.toString();
}

/** A URL without a path gets `/metrics`. */
export function withMetricsPath(url: string): string {
  const u = new URL(url);
  if (u.pathname === "" || u.pathname === "/") u.pathname = "/metrics";
  // Credentials never reach logs or exports (and fetch refuses URLs that carry them).
  u.username = "";
  u.password = "";
  return u.toString();
}
