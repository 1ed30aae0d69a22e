/**
 * Polls one Prometheus endpoint during a run and keeps every scrape's time, fetch latency and body hash, and its
 * series as columns (`series_store.ts` for server metrics, `window_store.ts` for GPUs), never the parsed scrapes, so
 * the profiling window can be summarized afterwards. `probe()` is the first scrape: an endpoint that does not exist,
 * answers an error status, or does not speak the text format is reported once and never polled again.
 *
 * Scrapes run one at a time on a fixed interval (AIPerf's 0.333 s); a slow endpoint delays the next scrape rather
 * than piling requests up. Only loopback endpoints are ever scraped (`isLoopbackUrl`): this is a benchmark client.
 */
import { type MetricFamily, parsePrometheusText } from "./prometheus_text.ts";
import { getOnce } from "../transport/http_once.ts";
import { SeriesStore } from "./series_store.ts";
import { WindowStore } from "./window_store.ts";

/** What is kept of every scrape: when, how long it took, and whether the body changed. */
export interface ScrapeMeta {
  /** Epoch ms when the request was sent. */
  readonly atMs: number;
  /** Request to end of body, ms. */
  readonly latencyMs: number;
  /** A hash of the body, to tell unchanged scrapes apart (AIPerf's `unique_updates`). */
  readonly fingerprint: number;
}

export interface Scrape extends ScrapeMeta {
  readonly families: readonly MetricFamily[];
}

export type ProbeResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export interface ScraperOptions {
  /** @default 333 */
  readonly intervalMs?: number;
  /** Per-scrape timeout. @default 5000 */
  readonly timeoutMs?: number;
  /** Epoch-ms clock. @default Date.now */
  readonly now?: () => number;
  /**
   * How the series are kept: as the server-metrics summary reads them (`store`, every series with its points in
   * time order, histograms included) or as the GPU window summary does (`windowStore`, counters and gauges by
   * scrape). @default "server"
   */
  readonly keepFor?: "server" | "gpu";
}

export class PrometheusScraper {
  readonly url: string;
  /** Every successful scrape's fetch facts (its families go to one of the two stores). */
  readonly scrapes: ScrapeMeta[] = [];
  /** The series of every successful scrape, as columns (`keepFor: "server"`; else empty). */
  readonly store: SeriesStore = new SeriesStore();
  /** The counters and gauges of every successful scrape, as columns (`keepFor: "gpu"`; else empty). */
  readonly windowStore: WindowStore = new WindowStore();
  readonly #keepFor: "server" | "gpu";
  /** Failed scrapes after a successful probe. */
  failures = 0;
  readonly #intervalMs: number;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  #inFlight: Promise<void> | undefined;

  constructor(url: string, options: ScraperOptions = {}) {
    this.url = url;
    this.#intervalMs = options.intervalMs ?? 333;
    this.#timeoutMs = options.timeoutMs ?? 5000;
    this.#now = options.now ?? Date.now;
    this.#keepFor = options.keepFor ?? "server";
  }

  #keep(scrape: Scrape): void {
    if (this.#keepFor === "gpu") this.windowStore.add(scrape.atMs, scrape.families);
    else this.store.add(scrape.atMs, scrape.families);
    this.scrapes.push({ atMs: scrape.atMs, latencyMs: scrape.latencyMs, fingerprint: scrape.fingerprint });
  }

  /** The first scrape; on success it is kept as the baseline. */
  async probe(): Promise<ProbeResult> {
    if (!isLoopbackUrl(this.url)) return { ok: false, reason: "only loopback endpoints are scraped" };
    try {
      this.#keep(await this.#fetch());
      return { ok: true };
    } catch (err) {
      return { ok: false, reason: (err as Error).message };
    }
  }

  /** Scrapes now (the reference just before the run), then every interval until `stop()`, as AIPerf's collectors. */
  start(): void {
    const tick = () => {
      if (this.#stopped) return;
      this.#inFlight = this.scrapeOnce().finally(() => {
        this.#inFlight = undefined;
        if (!this.#stopped) this.#timer = setTimeout(tick, this.#intervalMs);
      });
    };
    tick();
  }

  /** One scrape now (a failure is counted, not thrown). */
  async scrapeOnce(): Promise<void> {
    try {
      this.#keep(await this.#fetch());
    } catch {
      this.failures++;
    }
  }

  /** Stops polling after one final scrape (the end of the window). */
  async stop(finalScrape = true): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#inFlight;
    if (finalScrape) await this.scrapeOnce();
  }

  async #fetch(): Promise<Scrape> {
    const atMs = this.#now();
    const start = performance.now();
    const response = await getOnce(this.url, [["Accept", "text/plain"]], this.#timeoutMs);
    const body = new TextDecoder().decode(response.body);
    const latencyMs = performance.now() - start;
    if (response.status < 200 || response.status > 299) throw new Error(`HTTP ${response.status}`);
    const type = response.headers.get("content-type") ?? "";
    if (type.includes("application/json")) throw new Error("the endpoint answers JSON, not Prometheus text");
    let families: MetricFamily[];
    try {
      families = parsePrometheusText(body.endsWith("\n") || body === "" ? body : body + "\n");
    } catch (err) {
      throw new Error(`not Prometheus text (${(err as Error).message})`);
    }
    if (families.length === 0) throw new Error("no metrics in the response");
    return { atMs, latencyMs, families, fingerprint: fnv1a(body) };
  }
}

/** True for http(s) URLs whose host is a loopback address or `localhost`. */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === "localhost" || host.endsWith(".localhost") || /^127\./.test(host) || host === "[::1]";
}

/** 32-bit FNV-1a of a string's UTF-16 code units. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
