import assert from "node:assert/strict";
import { csvMetricName, renderSummaryCsv, writeSummaryCsv } from "../../src/export/csv_export.ts";
import type { RunSummary } from "../../src/metrics/run_summary.ts";
import { dist, scalar } from "./summary_fixture.ts";

const summary: RunSummary = {
  metrics: [
    dist("request_latency", {
      avg: 6550.356151749999,
      min: 4996.247445999999,
      max: 9383.367922,
      p1: 5523.63769363,
      p5: 5641.17552705,
      p10: 5649.248782399999,
      p25: 5678.539702,
      p50: 5799.897624499999,
      p75: 7314.955492249999,
      p90: 8594.209632299999,
      p95: 8980.84214965,
      p99: 9381.628943169999,
      std: 1171.13614778278,
    }),
    dist("output_sequence_length", { avg: 96.85, min: 91, max: 97, p50: 97, p99: 97, p1: 91, p5: 97, std: 0.875 }),
    scalar("request_throughput", 13.16084556379392),
    scalar("request_count", 200),
    scalar("benchmark_duration", 15.196591969000002),
    scalar("min_request_timestamp", 1.7e18),
  ],
  errors: [],
  successCount: 200,
  errorCount: 0,
};

Deno.test("summary CSV has AIPerf's two sections, sorted by tag, CRLF line ends", () => {
  // The example rows are AIPerf's own documented output for the same values.
  const expected = [
    "Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std",
    "Output Sequence Length (tokens),96.85,91.00,97.00,96.85,91.00,97.00,91.00,91.00,97.00,97.00,97.00,97.00,97.00,0.88",
    "Request Latency (ms),6550.36,4996.25,9383.37,6550.36,5523.64,5641.18,5649.25,5678.54,5799.90,7314.96,8594.21,8980.84,9381.63,1171.14",
    "",
    "Metric,Value",
    "Benchmark Duration (sec),15.20",
    "Request Count,200.00",
    "Request Throughput (requests/sec),13.16",
    "",
  ].join("\r\n");
  assert.equal(renderSummaryCsv(summary), expected);
});

Deno.test("summary CSV leaves out empty sections and quotes fields like Python's csv module", () => {
  assert.equal(
    renderSummaryCsv({ ...summary, metrics: [scalar("error_request_count", 5)] }),
    "Metric,Value\r\nError Request Count,5.00\r\n",
  );
  assert.equal(renderSummaryCsv({ ...summary, metrics: [] }), "");
  const odd = { ...scalar("request_count", 1), header: 'Odd, "quoted"' };
  assert.equal(renderSummaryCsv({ ...summary, metrics: [odd] }), 'Metric,Value\r\n"Odd, ""quoted""",1.00\r\n');
});

Deno.test("summary CSV names metrics Header (unit) except for requests and counts", () => {
  assert.equal(csvMetricName({ header: "Request Count", unit: "requests" }), "Request Count");
  assert.equal(csvMetricName({ header: "HTTP Chunks Sent", unit: "count" }), "HTTP Chunks Sent");
  assert.equal(csvMetricName({ header: "Goodput", unit: "requests/sec" }), "Goodput (requests/sec)");
});

Deno.test("summary CSV is written to disk unchanged", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await writeSummaryCsv(`${dir}/s.csv`, summary);
    assert.equal(await Deno.readTextFile(`${dir}/s.csv`), renderSummaryCsv(summary));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
