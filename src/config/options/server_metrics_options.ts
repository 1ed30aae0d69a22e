/** `profile` options of the "Server Metrics" group: the server's Prometheus metrics scraped during the run. */
import { optionGroup } from "./option_group.ts";

export const SERVER_METRICS_OPTIONS = optionGroup("Server Metrics", [
  {
    key: "serverMetricsUrls",
    type: "list",
    items: "url",
    default: [],
    optionalValue: true,
    flags: ["--server-metrics"],
    repeatable: true,
    metavar: "[<urls>]",
    yaml: ["benchmark.server_metrics.urls"],
    help: "Prometheus endpoints scraped during the run besides each --url's own /metrics (and /v1/metrics); " +
      "/metrics is appended to a URL without a path. Summaries go to server_metrics_export.{json,csv}.",
  },
  {
    key: "noServerMetrics",
    type: "bool",
    default: false,
    negatable: false,
    flags: ["--no-server-metrics"],
    help: "Do not scrape the server's Prometheus metrics.",
  },
]);
