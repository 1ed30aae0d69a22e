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
    dist("time_to_first_token", {
      avg: 234.56,
      min: 198.34,
      max: 289.12,
      p99: 289.12,
      p50: 231.45,
      p90: 280.5,
      std: 20.25,
    }),
    dist("request_latency", {
      avg: 1678.9,
      min: 1456.34,
      max: 1923.45,
      p99: 1923.45,
      p50: 1667.23,
      p90: 1900,
      std: 120.5,
    }),
    dist("output_token_throughput_per_user", {
      avg: 72.1,
      min: 57.3,
      max: 89.04,
      p99: 88.9,
      p50: 73.1,
      p90: 85.25,
      std: 8.5,
    }),
    dist("usage_prompt_tokens", { avg: 98.3, min: 95, max: 101, p99: 100.61, p50: 99, p90: 100, std: 1.49 }),
    scalar("request_throughput", 5.67),
    scalar("request_error_rate", 0),
    scalar("total_usage_prompt_tokens", 3932),
    // not in the console: output_token_count and benchmark_duration (AIPerf shows neither), bookkeeping timestamps
    dist("output_token_count", { avg: 200, min: 200, max: 200, p99: 200, p50: 200 }),
    scalar("benchmark_duration", 3.5),
    scalar("min_request_timestamp", 1.7e18),
  ],
  errors: [
    { error: { code: 500, type: "HTTPError", message: "Internal Server Error" }, count: 1234 },
    { error: { type: "TimeoutError", message: "" }, count: 5 },
  ],
  successCount: 20,
  errorCount: 1239,
};

Deno.test("console prints AIPerf's tables: Usage before LLM Metrics, columns to std, N/A for single values", () => {
  const expected = [
    "                                  infermeter | LLM Metrics: Usage",
    "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━┳━━━━━━━━┳━━━━━━━━┳━━━━━━━━┳━━━━━━━┳━━━━━━┓",
    "┃                             Metric ┃      avg ┃   min ┃    max ┃    p99 ┃    p90 ┃   p50 ┃  std ┃",
    "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━╇━━━━━━━━╇━━━━━━━━╇━━━━━━━━╇━━━━━━━╇━━━━━━┩",
    "│       Usage Prompt Tokens (tokens) │    98.30 │ 95.00 │ 101.00 │ 100.61 │ 100.00 │ 99.00 │ 1.49 │",
    "│ Total Usage Prompt Tokens (tokens) │ 3,932.00 │   N/A │    N/A │    N/A │    N/A │   N/A │  N/A │",
    "└────────────────────────────────────┴──────────┴───────┴────────┴────────┴────────┴───────┴──────┘",
    "                                            infermeter | LLM Metrics",
    "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━┓",
    "┃                            Metric ┃      avg ┃      min ┃      max ┃      p99 ┃      p90 ┃      p50 ┃    std ┃",
    "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━┩",
    "│          Time to First Token (ms) │   234.56 │   198.34 │   289.12 │   289.12 │   280.50 │   231.45 │  20.25 │",
    "│              Request Latency (ms) │ 1,678.90 │ 1,456.34 │ 1,923.45 │ 1,923.45 │ 1,900.00 │ 1,667.23 │ 120.50 │",
    "│  Output Token Throughput Per User │    72.10 │    57.30 │    89.04 │    88.90 │    85.25 │    73.10 │   8.50 │",
    "│                 (tokens/sec/user) │          │          │          │          │          │          │        │",
    "│ Request Throughput (requests/sec) │     5.67 │      N/A │      N/A │      N/A │      N/A │      N/A │    N/A │",
    "│            Request Error Rate (%) │     0.00 │      N/A │      N/A │      N/A │      N/A │      N/A │    N/A │",
    "└───────────────────────────────────┴──────────┴──────────┴──────────┴──────────┴──────────┴──────────┴────────┘",
  ].join("\n");
  assert.equal(renderMetricsTable(summary), expected);
});

Deno.test("console table uses the endpoint's title and never shows the error count (AIPerf hides error-only rows)", () => {
  const failing: RunSummary = {
    ...summary,
    metrics: [scalar("request_count", 3), scalar("error_request_count", 1), scalar("request_error_rate", 25)],
  };
  const text = renderMetricsTable(failing, { metricsTitle: "Embeddings Metrics", columns: ["avg", "p50"] });
  assert.equal(
    text,
    [
      "     infermeter | Embeddings Metrics",
      "┏━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━┳━━━━━┓",
      "┃                   Metric ┃   avg ┃ p50 ┃",
      "┡━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━╇━━━━━┩",
      "│ Request Count (requests) │  3.00 │ N/A │",
      "│   Request Error Rate (%) │ 25.00 │ N/A │",
      "└──────────────────────────┴───────┴─────┘",
    ].join("\n"),
  );
});

Deno.test("console table wraps metric names, never numbers, to fit the width", () => {
  const lines = renderMetricsTable(summary, { maxWidth: 96 }).split("\n");
  assert.ok(lines.every((l) => l.length <= 96));
  assert.ok(
    lines.includes("│     Time to First │   234.56 │   198.34 │   289.12 │   289.12 │   280.50 │   231.45 │  20.25 │"),
  );
  assert.ok(
    lines.includes("│        Token (ms) │          │          │          │          │          │          │        │"),
  );
});

Deno.test("console table shows N/A for missing and infinite values (AIPerf's error-adjusted cells), nothing without metrics", () => {
  const odd: RunSummary = { ...summary, metrics: [scalar("request_throughput", NaN)] };
  assert.ok(
    renderMetricsTable(odd).includes("│ Request Throughput (requests/sec) │ N/A │ N/A │ N/A │ N/A │ N/A │ N/A │ N/A │"),
  );
  const inf: RunSummary = { ...summary, metrics: [scalar("request_throughput", Infinity)] };
  assert.ok(
    renderMetricsTable(inf).includes("│ Request Throughput (requests/sec) │ N/A │ N/A │ N/A │ N/A │ N/A │ N/A │ N/A │"),
  );
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
