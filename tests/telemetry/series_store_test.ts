import assert from "node:assert/strict";
import { parsePrometheusText } from "../../src/telemetry/prometheus_text.ts";
import { PrometheusScraper } from "../../src/telemetry/prometheus_scraper.ts";
import { SeriesStore } from "../../src/telemetry/series_store.ts";
import { summarizeServerMetrics } from "../../src/telemetry/server_metrics_summary.ts";

const page = (i: number) =>
  `# TYPE t_tokens_total counter\nt_tokens_total{model="a"} ${i * 10}\nt_tokens_total{model="b"} ${i * 3}\n` +
  `# TYPE running gauge\nrunning ${i % 7}\n# TYPE lat_seconds histogram\nlat_seconds_bucket{le="0.5"} ${i}\n` +
  `lat_seconds_bucket{le="+Inf"} ${2 * i}\nlat_seconds_sum ${i * 0.7}\nlat_seconds_count ${2 * i}\n`;

Deno.test("SeriesStore keeps one entry per series however many scrapes it is given, values in columns", () => {
  const store = new SeriesStore();
  for (let i = 0; i < 5000; i++) store.add(1000 + 333 * i, parsePrometheusText(page(i)));
  // Two counter series, one gauge, one histogram: four entries, not 5000 × 4.
  assert.equal(store.size, 4);
  const series = [...store.series()];
  assert.deepEqual(series.map((s) => s.at.length), [5000, 5000, 5000, 5000]);
  const hist = series.find((s) => s.kind === "histogram");
  assert.ok(hist !== undefined && hist.kind === "histogram");
  assert.deepEqual([...hist.buckets.keys()], ["0.5", "+Inf"]);
  assert.equal(hist.buckets.get("+Inf")!.at(4999), 9998);
  // Columns double as they fill: under 2 × 8 bytes per value kept.
  const values = 5000 * (2 + 2 + 2 + 2 + 2);
  assert.ok(store.columnBytes() < 2 * 8 * values, `${store.columnBytes()} bytes for ${values} values`);
});

Deno.test("SeriesStore puts a scrape older than the last one in time order, after those of equal time", () => {
  const store = new SeriesStore();
  for (const [at, v] of [[1000, 1], [3000, 3], [2000, 2], [2000, 4]]) {
    store.add(at, parsePrometheusText(`# TYPE g gauge\ng ${v}\n`));
  }
  const [g] = [...store.series()];
  assert.ok(g.kind === "scalar");
  assert.deepEqual(Array.from({ length: g.at.length }, (_, i) => [g.at.at(i), g.value.at(i)]), [
    [1000, 1],
    [2000, 2],
    [2000, 4],
    [3000, 3],
  ]);
});

Deno.test("SeriesStore reads a bucket a scrape lacked as absent, and summarizes as the parsed scrapes do", () => {
  const pages = [
    `# TYPE h histogram\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 1\nh_sum 0.5\nh_count 1\n`,
    `# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="2"} 3\nh_bucket{le="+Inf"} 4\nh_sum 3\nh_count 4\n`,
    `# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="2"} 5\nh_bucket{le="+Inf"} 6\nh_sum 6\nh_count 6\n`,
  ];
  const scrapes = pages.map((text, i) => ({
    atMs: 1000 * (i + 1),
    latencyMs: 1,
    fingerprint: i,
    families: parsePrometheusText(text),
  }));
  const store = new SeriesStore();
  for (const s of scrapes) store.add(s.atMs, s.families);
  const [h] = [...store.series()];
  assert.ok(h.kind === "histogram");
  assert.ok(Number.isNaN(h.buckets.get("2")!.at(0)));
  const window = { startMs: 1500, endMs: 3000 };
  const options = { sliceDurationMs: 700 };
  const fromStore = summarizeServerMetrics([{ url: "http://h/metrics", scrapes, store }], window, options);
  const fromScrapes = summarizeServerMetrics([{ url: "http://h/metrics", scrapes }], window, options);
  assert.deepEqual(fromStore, fromScrapes);
  // From the reference scrape (1000 ms, which had no "2" bucket: 0) to the last.
  assert.deepEqual(fromStore[0].series[0].buckets, [["1", 1], ["2", 5], ["+Inf", 5]]);
});

Deno.test("PrometheusScraper keeps each scrape's fetch facts and its series as columns, not the parsed families", async () => {
  let i = 0;
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(page(i++), { headers: { "content-type": "text/plain" } }),
  );
  const scraper = new PrometheusScraper(`http://127.0.0.1:${server.addr.port}/metrics`);
  assert.deepEqual(await scraper.probe(), { ok: true });
  for (let k = 0; k < 20; k++) await scraper.scrapeOnce();
  assert.equal(scraper.scrapes.length, 21);
  assert.ok(scraper.scrapes.every((s) => !("families" in s)));
  assert.equal(scraper.store.size, 4);
  assert.ok([...scraper.store.series()].every((s) => s.at.length === 21));
  assert.equal(scraper.windowStore.size, 0);
});
