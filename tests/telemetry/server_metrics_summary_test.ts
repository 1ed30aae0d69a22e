import assert from "node:assert/strict";
import { parsePrometheusText } from "../../src/telemetry/prometheus_text.ts";
import type { Scrape } from "../../src/telemetry/prometheus_scraper.ts";
import { sliceBoundaries, summarizeServerMetrics } from "../../src/telemetry/server_metrics_summary.ts";

function scrape(atMs: number, text: string): Scrape {
  return { atMs, latencyMs: 1, families: parsePrometheusText(text), fingerprint: atMs };
}

const page = (tokens: number, running: number, b1: number, b2: number, count: number, sum: number) =>
  `# TYPE t_tokens_total counter\nt_tokens_total ${tokens}\n# TYPE running gauge\nrunning ${running}\n` +
  `# TYPE lat_seconds histogram\nlat_seconds_bucket{le="0.3"} ${b1}\nlat_seconds_bucket{le="1"} ${b2}\n` +
  `lat_seconds_bucket{le="2.5"} ${count}\nlat_seconds_bucket{le="+Inf"} ${count}\nlat_seconds_sum ${sum}\n` +
  `lat_seconds_count ${count}\n`;

/** A run as AIPerf scrapes it: a baseline long before, one just before the phase, the phase, the flush scrape. */
const SCRAPES = [
  scrape(0, page(100, 0, 1, 1, 1, 0.05)), // baseline at start-up
  scrape(900, page(100, 0, 1, 1, 1, 0.05)), // the last scrape before the phase: the reference
  scrape(1000, page(100, 2, 1, 1, 1, 0.05)), // phase starts at 950
  scrape(2000, page(160, 4, 3, 4, 5, 1.25)),
  scrape(3000, page(200, 0, 4, 6, 7, 2.05)), // the phase ends here
  scrape(5000, page(200, 0, 4, 6, 7, 2.05)), // final scrape after the 2 s flush period
];
const WINDOW = { startMs: 950, endMs: 3000 };

Deno.test("server metrics: counters from the reference scrape to the final one, rates over that span", () => {
  const metrics = summarizeServerMetrics([{ url: "http://h/metrics", scrapes: SCRAPES }], WINDOW);
  const tokens = metrics.find((m) => m.name === "t_tokens")!;
  assert.equal(tokens.type, "counter");
  assert.equal(tokens.unit, "tokens");
  // 200 − 100 over 900 → 5000 ms: 4.1 s.
  assert.deepEqual(tokens.series[0].stats, { total: 100, rate: 100 / 4.1 });
});

Deno.test("server metrics: gauges over the profiling scrapes with the sample standard deviation", () => {
  const running = summarizeServerMetrics([{ url: "http://h/metrics", scrapes: SCRAPES }], WINDOW)
    .find((m) => m.name === "running")!.series[0].stats;
  // Profiling scrapes 2, 4, 0, 0: mean 1.5, sample std √(11/3).
  assert.equal(running.avg, 1.5);
  assert.equal(running.max, 4);
  assert.ok(Math.abs(running.std - Math.sqrt(11 / 3)) < 1e-12);
  assert.deepEqual(Object.keys(running), [
    "avg",
    "min",
    "max",
    "std",
    "p1",
    "p5",
    "p10",
    "p25",
    "p50",
    "p75",
    "p90",
    "p95",
    "p99",
  ]);
});

Deno.test("server metrics: histogram increases, AIPerf's stat order, buckets keyed as written in ascending order", () => {
  const lat = summarizeServerMetrics([{ url: "http://h/metrics", scrapes: SCRAPES }], WINDOW)
    .find((m) => m.name === "lat_seconds")!;
  assert.equal(lat.unit, "seconds");
  const s = lat.series[0];
  assert.deepEqual(s.buckets, [["0.3", 3], ["1", 5], ["2.5", 6], ["+Inf", 6]]);
  assert.deepEqual(Object.keys(s.stats).slice(0, 5), ["count", "sum", "avg", "count_rate", "sum_rate"]);
  assert.equal(s.stats.count, 6);
  assert.ok(Math.abs(s.stats.sum - 2.0) < 1e-12);
  assert.ok(Math.abs(s.stats.count_rate - 6 / 4.1) < 1e-12);
  for (const p of [1, 5, 10, 25, 50, 75, 90, 95, 99]) assert.equal(typeof s.stats[`p${p}_estimate`], "number");
  assert.ok(s.stats.p50_estimate > 0 && s.stats.p99_estimate <= 2.5);
  // No new observations: only the count and the buckets, as AIPerf.
  const idle = summarizeServerMetrics(
    [{ url: "http://h/metrics", scrapes: [SCRAPES[0], SCRAPES[1], { ...SCRAPES[1], atMs: 1000 }] }],
    WINDOW,
  ).find((m) => m.name === "lat_seconds")!.series[0];
  assert.deepEqual(idle.stats, { count: 0 });
  assert.deepEqual(idle.buckets, [["0.3", 0], ["1", 0], ["2.5", 0], ["+Inf", 0]]);
});

Deno.test("server metrics: time slices from the first to the last profiling scrape, the last one partial", () => {
  assert.deepEqual(sliceBoundaries(1000, 3500, 1000), [
    { start: 1000, end: 2000, complete: true },
    { start: 2000, end: 3000, complete: true },
    { start: 3000, end: 3500, complete: false },
  ]);
  const metrics = summarizeServerMetrics([{ url: "http://h/metrics", scrapes: SCRAPES }], WINDOW, {
    sliceDurationMs: 1000,
  });
  const tokens = metrics.find((m) => m.name === "t_tokens")!.series[0];
  // Slices [1000,2000) … [5000,5000+]: totals 60, 40, 0, 0 over the complete ones.
  assert.deepEqual(tokens.timeslices!.map((t) => [t.startMs, t.endMs, t.complete, t.values.total]), [
    [1000, 2000, true, 60],
    [2000, 3000, true, 40],
    [3000, 4000, true, 0],
    [4000, 5000, true, 0],
  ]);
  assert.equal(tokens.stats.rate_avg, 25);
  assert.equal(tokens.stats.rate_max, 60);
  assert.equal(tokens.stats.rate_min, 0);
  const lat = metrics.find((m) => m.name === "lat_seconds")!.series[0];
  assert.deepEqual(lat.timeslices![0].values, { count: 4, sum: 1.2, avg: 0.3 });
  assert.deepEqual(lat.timeslices![0].buckets, [["0.3", 2], ["1", 3], ["2.5", 4], ["+Inf", 4]]);
  const running = metrics.find((m) => m.name === "running")!.series[0];
  assert.deepEqual(running.timeslices![0].values, { avg: 2, min: 2, max: 2 });
});

Deno.test("server metrics: a series that first appears inside the phase counts from its first value, as AIPerf", () => {
  const born = (n: number) => `# TYPE req_total counter\nreq_total{path="/a"} ${n}\n`;
  const scrapes = [scrape(900, "# TYPE other gauge\nother 1\n"), scrape(1000, born(3)), scrape(2000, born(9))];
  const s = summarizeServerMetrics([{ url: "http://h/metrics", scrapes }], WINDOW).find((m) => m.name === "req")!;
  assert.deepEqual(s.series[0].labels, { path: "/a" });
  assert.equal(s.series[0].stats.total, 6);
});
