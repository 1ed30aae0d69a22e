/**
 * `server_metrics_export.{csv,json}` and the server-metrics console table, when a server's `/metrics` was scraped; and
 * SGLang's speculative-decoding acceptance (`Server Metrics: Speculative Decoding`) when it reports one.
 */
import { renderServerMetricsCsv, renderServerMetricsJson } from "../../telemetry/server_metrics_export.ts";
import { renderSglangSpecDecodeTable } from "../../telemetry/sglang_spec_decode_table.ts";
import type { Output } from "./output.ts";

export const SERVER_METRICS_OUTPUT: Output = {
  name: "server_metrics",
  description: "server_metrics_export.{csv,json}: the server's Prometheus metrics over the run (AIPerf's layout)",
  enabled: (config) => !config.noServerMetrics,
  files: (paths) => [
    { role: "server_metrics_csv", label: "Server Metrics CSV Export", path: paths.serverMetricsCsv },
    { role: "server_metrics_json", label: "Server Metrics JSON Export", path: paths.serverMetricsJson },
  ],
  async finish(ctx, writer) {
    const report = ctx.results?.telemetry?.serverReport;
    if (report === undefined) return;
    const [csv, json] = SERVER_METRICS_OUTPUT.files(ctx.paths);
    await writer.write(csv, renderServerMetricsCsv(report));
    await writer.write(json, renderServerMetricsJson(report));
  },
  console(ctx, width) {
    const telemetry = ctx.results?.telemetry;
    const spec = telemetry?.serverReport === undefined
      ? undefined
      : renderSglangSpecDecodeTable(telemetry.serverReport.metrics, ctx.config.modelNames ?? [], width);
    const parts = [telemetry?.serverTable, spec].filter((t): t is string => t !== undefined);
    return parts.length === 0 ? undefined : parts.join("\n\n");
  },
};
