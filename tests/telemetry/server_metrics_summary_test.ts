import assert from "node:assert/strict";
import { parsePrometheusText } from "../../src/telemetry/prometheus_text.ts";
import type { Scrape } from "../../src/telemetry/prometheus_scraper.ts";
import { histogramQuantile, increase, summarizeServerMetrics } from "../../src/telemetry/server_metrics_summary.ts";

function scrape(atMs: number, text: string): Scrape {
  return { atMs, latencyMs: 1, families: parsePrometheusText(text), fingerprint: atMs };
}

const page = (tokens: number, running: number, b1: number, b2: number, count: number, sum: number) =>
  `# TYPE t_tokens_total counter\nt_tokens_total ${tokens}\n# TYPE running gauge\nrunning ${running}\n` +
  `# TYPE lat_seconds histogram\nlat_seconds_bucket{le="0.1"} ${b1}\nlat_seconds_bucket{le="1"} ${b2}\n` +
  `lat_seconds_bucket{le="+Inf"} ${count}\nlat_seconds_sum ${sum}\nlat_seconds_count ${count}\n`;

Deno.test("increase adds scrape-to-scrape growth and treats a drop as a reset", () => {
  assert.equal(increase([10, 15, 15, 20]), 10);
  assert.equal(increase([10, 15, 3, 8]), 5 + 3 + 5);
  assert.equal(increase([undefined, 4, 6]), 2);
  assert.equal(increase([]), undefined);
});

Deno.test("histogramQuantile interpolates inside the bucket like Prometheus", () => {
  // Buckets (0,1]: 4, (1,2]: 4 → total 8. p50 = rank 4 → end of first bucket = 1; p75 = rank 6 → 1 + 1·(2/4) = 1.5.
  assert.equal(histogramQuantile(0.5, [1, 2, Infinity], [4, 8, 8]), 1);
  assert.equal(histogramQuantile(0.75, [1, 2, Infinity], [4, 8, 8]), 1.5);
  assert.equal(histogramQuantile(0.25, [1, 2, Infinity], [4, 8, 8]), 0.5);
  // Rank in +Inf: the highest finite bound.
  assert.equal(histogramQuantile(0.99, [1, 2, Infinity], [1, 2, 10]), 2);
  assert.equal(histogramQuantile(0.5, [1, Infinity], [0, 0]), undefined);
});

Deno.test("summarizeServerMetrics: counter delta from the baseline, gauge stats in the window, histogram deltas", () => {
  const scrapes = [
    scrape(0, page(100, 0, 1, 1, 1, 0.05)), // before the window: baseline
    scrape(1000, page(100, 2, 1, 1, 1, 0.05)), // window start
    scrape(2000, page(160, 4, 3, 4, 5, 1.25)),
    scrape(3000, page(200, 0, 4, 6, 7, 2.05)), // window end
    scrape(3500, page(200, 0, 4, 6, 7, 2.05)), // final scrape after the end
  ];
  const metrics = summarizeServerMetrics([{ url: "http://h/metrics", scrapes }], { startMs: 1000, endMs: 3000 });
  const byName = new Map(metrics.map((m) => [m.name, m]));
  const tokens = byName.get("t_tokens")!;
  assert.equal(tokens.type, "counter");
  assert.equal(tokens.unit, "tokens");
  // Baseline = scrape at 1000 (last at or before the start): 200 − 100 = 100 over 2.5 s to the final scrape.
  assert.deepEqual(tokens.series[0].stats, { total: 100, rate: 40 });
  const running = byName.get("running")!.series[0].stats;
  // Window values 2, 4, 0: mean 2, population std √(8/3).
  assert.equal(running.avg, 2);
  assert.equal(running.max, 4);
  assert.ok(Math.abs(running.std - Math.sqrt(8 / 3)) < 1e-12);
  const lat = byName.get("lat_seconds")!;
  assert.equal(lat.unit, "seconds");
  const s = lat.series[0].stats;
  assert.equal(s.count, 6);
  assert.ok(Math.abs(s.sum - 2.0) < 1e-12);
  assert.ok(Math.abs(s.avg - 2 / 6) < 1e-12);
  assert.deepEqual(lat.series[0].buckets, { "0.1": 3, "1": 5, "+Inf": 6 });
  // p50: rank 3 → end of the first bucket = 0.1.
  assert.equal(s.p50_estimate, 0.1);
});
