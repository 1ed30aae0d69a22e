/**
 * `--otel-url`: the run's metrics streamed to an OpenTelemetry collector over OTLP/HTTP while it runs, as AIPerf 0.13
 * streams them (`record_telemetry.ts` says what), every `--otel-export-interval` seconds and once more after the local
 * files are written. Points are cumulative, so an export that fails loses nothing: the next one carries it. A
 * collector that is down or answers an error is a warning; the run, its files and its exit code are unaffected.
 */
import { otlpHeaders, streamDomains } from "../../config/check_tracking_export.ts";
import type { ProfileConfig } from "../../config/profile_config.ts";
import { exportRequest, otlpMetricsUrl } from "../../export/otlp_metrics.ts";
import { encodeExportRequest } from "../../export/otlp_protobuf.ts";
import { failureReason, serviceCall, shownUrl, splitCredentials } from "../../export/service_call.ts";
import type { ProcessedRecord, RequestRecord } from "../../records/request_record.ts";
import type { RecordRow } from "../../metrics/record_row.ts";
import type { Logger } from "../../ui/logger.ts";
import type { LiveRun } from "../live_run.ts";
import type { Output, OutputSink, SinkContext } from "./output.ts";
import { RecordTelemetry, runResource } from "./record_telemetry.ts";

/** The instrumentation scope AIPerf's meter uses. */
const SCOPE = "aiperf.records";

export const OTEL_OUTPUT: Output = {
  name: "otel",
  description: "OpenTelemetry: per-request metrics and phase progress streamed over OTLP/HTTP (--otel-url)",
  enabled: (config) => {
    if (config.otelUrl === undefined) return false;
    const domains = streamDomains(config.otelStream);
    return domains.metrics || domains.timing;
  },
  files: () => [],
  sink: (ctx) => new OtelSink(ctx),
  async finish(ctx) {
    if (ctx.sink instanceof OtelSink) await ctx.sink.finish();
  },
};

class OtelSink implements OutputSink {
  readonly name = "otel";
  readonly #telemetry: RecordTelemetry;
  readonly #config: ProfileConfig;
  readonly #logger: Logger;
  readonly #resource: Record<string, string>;
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #intervalMs: number;
  #timer?: ReturnType<typeof setTimeout>;
  #inFlight?: Promise<void>;
  #exports = 0;
  #failures = 0;
  #lastFailure?: string;

  constructor(ctx: SinkContext) {
    this.#config = ctx.config;
    this.#logger = ctx.logger;
    const domains = streamDomains(ctx.config.otelStream);
    this.#telemetry = new RecordTelemetry({
      config: ctx.config,
      metrics: ctx.metrics,
      streamMetrics: domains.metrics,
      streamTiming: domains.timing,
    });
    this.#resource = runResource(ctx.config, ctx.benchmarkId);
    const { url, authorization } = splitCredentials(otlpMetricsUrl(ctx.config.otelUrl!));
    this.#url = url;
    const json = ctx.config.otelProtocol === "http/json";
    this.#headers = {
      ...Object.fromEntries(otlpHeaders(ctx.config.otelHeaders)),
      ...(authorization === undefined ? {} : { authorization }),
      "content-type": json ? "application/json" : "application/x-protobuf",
    };
    this.#intervalMs = ctx.config.otelExportInterval * 1000;
    this.#schedule();
    this.#logger.info(
      `Streaming metrics over OTLP/HTTP (${ctx.config.otelProtocol}) to ${shownUrl(url)} every ` +
        `${ctx.config.otelExportInterval} s.`,
    );
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

  /** The last export, after the run (its files written): waits for one in flight, then sends everything. */
  async finish(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#inFlight;
    if (this.#telemetry.meter.empty) return;
    const failuresBefore = this.#failures;
    await this.#export();
    const shown = shownUrl(this.#url);
    if (this.#failures > failuresBefore) {
      this.#logger.warning(
        `the last OpenTelemetry export to ${shown} failed (${this.#lastFailure}); ${this.#failures} of ` +
          `${this.#exports} exports failed. The run's results are unaffected.`,
      );
    } else if (this.#failures > 0) {
      this.#logger.warning(
        `${this.#failures} of ${this.#exports} OpenTelemetry exports to ${shown} failed (last: ${this.#lastFailure}); ` +
          "the last one carried every metric (they are cumulative).",
      );
    } else {
      this.#logger.info(`Streamed the run's metrics to ${shown} (${this.#exports} OTLP exports).`);
    }
  }

  /** The next export, on a timer that does not keep the process alive. */
  #schedule(): void {
    const timer = setTimeout(() => {
      this.#tick();
      if (this.#timer === timer) this.#schedule();
    }, this.#intervalMs);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  #tick(): void {
    if (this.#inFlight !== undefined) return; // the next tick sends it all (cumulative)
    this.#telemetry.sampleTiming();
    if (this.#telemetry.meter.empty) return;
    this.#inFlight = this.#export().finally(() => this.#inFlight = undefined);
  }

  async #export(): Promise<void> {
    const request = exportRequest(this.#resource, SCOPE, this.#telemetry.meter.collect(Date.now()));
    const body: BodyInit = this.#config.otelProtocol === "http/json"
      ? JSON.stringify(request)
      : encodeExportRequest(request) as Uint8Array<ArrayBuffer>;
    this.#exports++;
    try {
      const res = await serviceCall(this.#url, {
        method: "POST",
        headers: this.#headers,
        body,
        signal: AbortSignal.timeout(this.#config.otelTimeout * 1000),
      });
      await this.#partialSuccess(res);
    } catch (err) {
      this.#failures++;
      this.#lastFailure = failureReason(err);
      if (this.#failures === 1) {
        this.#logger.warning(
          `OpenTelemetry export to ${shownUrl(this.#url)} failed (${this.#lastFailure}); the run goes on and ` +
            "later exports carry the same metrics.",
        );
      } else {
        this.#logger.debug(`OpenTelemetry export failed again: ${this.#lastFailure}`);
      }
    }
  }

  /** A collector may accept a request yet reject some points (OTLP partial success): say so once. */
  async #partialSuccess(res: Response): Promise<void> {
    const text = await res.text();
    if (!(res.headers.get("content-type") ?? "").includes("json") || text.trim() === "") return;
    try {
      const partial = JSON.parse(text)?.partialSuccess;
      const rejected = Number(partial?.rejectedDataPoints ?? 0);
      if (rejected > 0) throw new Error(`${rejected} data points rejected: ${partial?.errorMessage ?? ""}`.trim());
    } catch (err) {
      if (err instanceof SyntaxError) return;
      throw err;
    }
  }
}
