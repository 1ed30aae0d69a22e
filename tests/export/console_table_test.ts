import assert from "node:assert/strict";
import {
  renderClientOverhead,
  renderErrorSummary,
  renderFooter,
  renderMetricsTable,
} from "../../src/export/console_table.ts";
import type { RunSummary } from "../../src/metrics/run_summary.ts";
import { dist, scalar } from "./summary_fixture.ts";

const summary: RunSummary = {
  metrics: [
    dist("request_latency", { avg: 1678.9, min: 1456.34, max: 1923.45, p99: 1923.45, p50: 1667.23 }),
    dist("time_to_first_token", { avg: 234.56, min: 198.34, max: 289.12, p99: 289.12, p50: 231.45 }),
    dist("inter_token_latency", { avg: 13.89, min: 11.23, max: 17.45, p99: 17.45, p50: 13.67 }),
    dist("output_token_count", { avg: 200, min: 200, max: 200, p99: 200, p50: 200 }),
    scalar("request_throughput", 5.67),
    // not in the console: benchmark_duration (footer), a 0 % error rate, bookkeeping timestamps
    scalar("benchmark_duration", 3.5),
    scalar("request_error_rate", 0),
    scalar("min_request_timestamp", 1.7e18),
  ],
  errors: [
    { error: { code: 500, type: "HTTPError", message: "Internal Server Error" }, count: 1234 },
    { error: { type: "TimeoutError", message: "" }, count: 5 },
  ],
  successCount: 20,
  errorCount: 1239,
};

Deno.test("console table renders the seed's heavy-head layout with grouped two-decimal numbers", () => {
  const expected = [
    "                               infermeter | LLM Metrics",
    "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┓",
    "┃                      Metric ┃      avg ┃      min ┃      max ┃      p99 ┃      p50 ┃",
    "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━┩",
    "│        Request Latency (ms) │ 1,678.90 │ 1,456.34 │ 1,923.45 │ 1,923.45 │ 1,667.23 │",
    "│    Time to First Token (ms) │   234.56 │   198.34 │   289.12 │   289.12 │   231.45 │",
    "│    Inter Token Latency (ms) │    13.89 │    11.23 │    17.45 │    17.45 │    13.67 │",
    "│ Output Token Count (tokens) │   200.00 │   200.00 │   200.00 │   200.00 │   200.00 │",
    "│  Request Throughput (req/s) │     5.67 │        - │        - │        - │        - │",
    "└─────────────────────────────┴──────────┴──────────┴──────────┴──────────┴──────────┘",
  ].join("\n");
  assert.equal(renderMetricsTable(summary), expected);
});

Deno.test("console table shows the error rate once requests failed and uses the endpoint's title", () => {
  const failing: RunSummary = {
    ...summary,
    metrics: [scalar("request_count", 3), scalar("error_request_count", 1), scalar("request_error_rate", 25)],
  };
  const text = renderMetricsTable(failing, { metricsTitle: "Embeddings Metrics", columns: ["avg", "p50"] });
  assert.equal(
    text,
    [
      "        infermeter | Embeddings Metrics",
      "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━┳━━━━━┓",
      "┃                         Metric ┃   avg ┃ p50 ┃",
      "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━╇━━━━━┩",
      "│       Request Count (requests) │  3.00 │   - │",
      "│ Error Request Count (requests) │  1.00 │   - │",
      "│         Request Error Rate (%) │ 25.00 │   - │",
      "└────────────────────────────────┴───────┴─────┘",
    ].join("\n"),
  );
});

Deno.test("console table wraps metric names, never numbers, to fit the width", () => {
  const lines = renderMetricsTable(summary, { maxWidth: 70 }).split("\n");
  assert.ok(lines.every((l) => l.length <= 70));
  assert.equal(lines[4], "│     Request │ 1,678.90 │ 1,456.34 │ 1,923.45 │ 1,923.45 │ 1,667.23 │");
  assert.equal(lines[5], "│     Latency │          │          │          │          │          │");
  assert.equal(lines[6], "│        (ms) │          │          │          │          │          │");
});

Deno.test("console table shows N/A for non-finite values and nothing without metrics", () => {
  const odd: RunSummary = { ...summary, metrics: [scalar("request_throughput", Infinity)] };
  assert.ok(renderMetricsTable(odd).includes("│ Request Throughput (req/s) │ N/A │   - │   - │   - │   - │"));
  assert.equal(renderMetricsTable({ ...summary, metrics: [] }), "");
});

Deno.test("error summary table lists code, type, message and grouped count", () => {
  assert.equal(
    renderErrorSummary(summary),
    [
      "              infermeter | Error Summary",
      "┏━━━━━━┳━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━┓",
      "┃ Code ┃         Type ┃ Message               ┃ Count ┃",
      "┡━━━━━━╇━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━┩",
      "│  500 │    HTTPError │ Internal Server Error │ 1,234 │",
      "│  N/A │ TimeoutError │                       │     5 │",
      "└──────┴──────────────┴───────────────────────┴───────┘",
    ].join("\n"),
  );
  assert.equal(renderErrorSummary({ errors: [] }), "");
});

Deno.test("footer prints the command, the duration and the export paths", () => {
  const exports = [
    { label: "CSV Export", path: "artifacts/x/profile_export_aiperf.csv" },
    { label: "JSON Export", path: "artifacts/x/profile_export_aiperf.json" },
    { label: "JSONL Export", path: "artifacts/x/profile_export.jsonl" },
  ];
  assert.equal(
    renderFooter({ cliCommand: "infermeter profile -m m", benchmarkDurationSec: 12.345, exports }),
    [
      "CLI Command: infermeter profile -m m",
      "Benchmark Duration: 12.35 sec",
      "CSV Export: artifacts/x/profile_export_aiperf.csv",
      "JSON Export: artifacts/x/profile_export_aiperf.json",
      "JSONL Export: artifacts/x/profile_export.jsonl",
    ].join("\n"),
  );
  assert.equal(
    renderFooter({ benchmarkDurationSec: 3, cancelled: true }),
    "Benchmark Duration: 3.00 sec (cancelled early)",
  );
});

Deno.test("footer reports the client's own CPU after the duration, with the open loop's lateness and the warning", () => {
  assert.equal(
    renderFooter({
      benchmarkDurationSec: 10,
      client: { percentOfCore: 25.5, engineThreads: 1 },
      exports: [{ label: "CSV Export", path: "x.csv" }],
    }),
    ["Benchmark Duration: 10.00 sec", "Client CPU: 26% of one core (1 engine thread)", "CSV Export: x.csv"].join("\n"),
  );
  assert.equal(
    renderClientOverhead({
      percentOfCore: 171.2,
      engineThreads: 2,
      overThresholdPercent: 70,
      scheduleLatenessP50Ms: 0.0097,
      scheduleLatenessP99Ms: 0.7357,
    }),
    "Client CPU: 171% of one core (2 engine threads) (over 70% per engine thread: timestamps may lag); " +
      "schedule lateness p50 0.010 ms, p99 0.736 ms",
  );
});
