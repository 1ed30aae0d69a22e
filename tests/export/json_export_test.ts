import assert from "node:assert/strict";
import { renderSummaryJson, type SummaryJsonInfo, writeSummaryJson } from "../../src/export/json_export.ts";
import type { RunSummary } from "../../src/metrics/run_summary.ts";
import { dist, scalar } from "./summary_fixture.ts";

const latency = dist("request_latency", {
  avg: 250,
  min: 100,
  max: 400,
  p1: 103,
  p5: 115,
  p10: 130,
  p25: 175,
  p50: 250,
  p75: 325,
  p90: 370,
  p95: 385,
  p99: 397,
  std: 111.8,
  count: 4,
  sum: 1000,
});

const summary: RunSummary = {
  // display order; the JSON follows AIPerf's field order instead
  metrics: [
    latency,
    scalar("request_throughput", 2.5),
    scalar("request_count", 4),
    scalar("error_request_count", 1),
    scalar("request_error_rate", 20),
    scalar("min_request_timestamp", 1.7e18),
  ],
  errors: [
    { error: { code: 500, type: "HTTPError", message: "Internal Server Error" }, count: 1 },
    { error: { type: "TimeoutError", message: "" }, count: 2 },
  ],
  successCount: 4,
  errorCount: 3,
  benchmarkDurationSec: 1.6,
};

const info: SummaryJsonInfo = {
  infermeterVersion: "0.1.0",
  benchmarkId: "b-1",
  startTimeMs: Date.UTC(2025, 9, 17, 20, 22, 8, 939) + 0.332,
  endTimeMs: Date.UTC(2025, 9, 17, 20, 22, 24),
  wasCancelled: false,
  inputConfig: { endpoint: { model_names: ["m"], streaming: true } },
  runInfo: { randomSeed: 42, cliCommand: "infermeter profile -m m" },
};

const EXPECTED = `{
  "schema_version": "1.4",
  "aiperf_version": "0.13.0",
  "benchmark_id": "b-1",
  "request_throughput": {
    "unit": "requests/sec",
    "avg": 2.5
  },
  "request_latency": {
    "unit": "ms",
    "avg": 250,
    "p1": 103,
    "p5": 115,
    "p10": 130,
    "p25": 175,
    "p50": 250,
    "p75": 325,
    "p90": 370,
    "p95": 385,
    "p99": 397,
    "min": 100,
    "max": 400,
    "std": 111.8,
    "count": 4,
    "sum": 1000
  },
  "request_count": {
    "unit": "requests",
    "avg": 4
  },
  "error_request_count": {
    "unit": "requests",
    "avg": 1
  },
  "input_config": {
    "endpoint": {
      "model_names": [
        "m"
      ],
      "streaming": true
    }
  },
  "run_info": {
    "benchmark_id": "b-1",
    "random_seed": 42,
    "trial": 0,
    "cli_command": "infermeter profile -m m"
  },
  "was_cancelled": false,
  "is_complete": true,
  "error_summary": [
    {
      "error_details": {
        "code": 500,
        "type": "HTTPError",
        "message": "Internal Server Error"
      },
      "count": 1
    },
    {
      "error_details": {
        "type": "TimeoutError",
        "message": ""
      },
      "count": 2
    }
  ],
  "start_time": "2025-10-17T20:22:08.939332",
  "end_time": "2025-10-17T20:22:24",
  "request_error_rate": {
    "unit": "%",
    "avg": 20
  },
  "infermeter": {
    "version": "0.1.0",
    "min_request_timestamp": {
      "unit": "ns",
      "avg": 1700000000000000000
    }
  }
}`;

Deno.test("summary JSON has AIPerf 0.13's shape: declared metrics, the document's fields, other metrics, our block", () => {
  assert.equal(renderSummaryJson(summary, info), EXPECTED);
});

Deno.test("summary JSON never gives scalar metrics distribution fields, drops missing and infinite statistics", () => {
  const odd: RunSummary = {
    ...summary,
    metrics: [
      scalar("goodput", NaN),
      dist("time_to_first_token", { avg: 1, min: 1, max: Infinity, p50: 1, p99: 1, std: NaN }),
    ],
  };
  const doc = JSON.parse(renderSummaryJson(odd, info));
  assert.deepEqual(doc.goodput, { unit: "requests/sec" });
  assert.equal("std" in doc.time_to_first_token, false);
  // AIPerf leaves an error-adjusted row's infinite max out.
  assert.equal("max" in doc.time_to_first_token, false);
  assert.equal(doc.time_to_first_token.count, 1);
});

Deno.test("summary JSON keeps infermeter-only facts under its own key and warmup metrics only when there is data", () => {
  const doc = JSON.parse(
    renderSummaryJson(
      { ...summary, scheduleLatenessMs: latency.stats },
      {
        ...info,
        wasCancelled: true,
        warmup: { ...summary, metrics: [scalar("request_count", 1)] },
        infermeter: { client_cpu_percent: 12.5 },
      },
    ),
  );
  assert.equal(doc.was_cancelled, true);
  assert.equal(doc.is_complete, false);
  assert.equal(doc.incomplete_reason, "cancelled");
  assert.deepEqual(doc.warmup_metrics, { request_count: { unit: "requests", avg: 1 } });
  assert.deepEqual(Object.keys(doc.infermeter), [
    "version",
    "schedule_lateness",
    "min_request_timestamp",
    "client_cpu_percent",
  ]);
  assert.equal(doc.infermeter.schedule_lateness.p99, 397);
  const plain = JSON.parse(renderSummaryJson(summary, info));
  assert.deepEqual(Object.keys(plain.infermeter), ["version", "min_request_timestamp"]);
  assert.equal("warmup_metrics" in plain, false);
  assert.equal("incomplete_reason" in plain, false);
});

Deno.test("summary JSON is written to disk unchanged", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await writeSummaryJson(`${dir}/s.json`, summary, info);
    assert.equal(await Deno.readTextFile(`${dir}/s.json`), EXPECTED);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
