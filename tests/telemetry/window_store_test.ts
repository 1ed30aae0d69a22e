import assert from "node:assert/strict";
import { parsePrometheusText } from "../../src/telemetry/prometheus_text.ts";
import { WindowStore } from "../../src/telemetry/window_store.ts";
import { summarizeWindow } from "../../src/telemetry/window_summary.ts";

const dcgm = (i: number, withUtil: boolean) =>
  `# TYPE DCGM_FI_DEV_POWER_USAGE gauge\nDCGM_FI_DEV_POWER_USAGE{gpu="0"} ${100 + (i % 5)}\n` +
  `DCGM_FI_DEV_POWER_USAGE{gpu="1"} ${200 + (i % 3)}\n# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n` +
  `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0"} ${i * 1000}\n` +
  (withUtil ? `# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{gpu="0"} ${i % 100}\n` : "") +
  `# TYPE lat histogram\nlat_bucket{le="+Inf"} ${i}\nlat_sum ${i}\nlat_count ${i}\n`;

Deno.test("WindowStore keeps one entry per counter or gauge series however many scrapes, no histograms", () => {
  const store = new WindowStore();
  for (let i = 0; i < 5000; i++) store.add(1000 + 333 * i, parsePrometheusText(dcgm(i, i % 2 === 0)));
  // Two power gauges, one energy counter, one utilization gauge: four entries, not 5000 × 4.
  assert.equal(store.size, 4);
  assert.equal(store.at.length, 5000);
  assert.equal(store.points("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_GPU_UTIL", { gpu: "0" })?.scrape.length, 2500);
  assert.equal(store.points("lat", "lat_count", {}), undefined);
});

Deno.test("summarizeWindow reads a scraper's columns as it reads the parsed scrapes, gaps and clock steps included", () => {
  // Scrape 3 lacks the utilization gauge; scrape 4's clock stepped back before the window's start.
  const times = [0, 900, 1500, 2000, 800, 2600, 3200];
  const scrapes = times.map((atMs, i) => ({
    atMs,
    latencyMs: 1,
    fingerprint: i,
    families: parsePrometheusText(dcgm(i, i !== 3)),
  }));
  const store = new WindowStore();
  for (const s of scrapes) store.add(s.atMs, s.families);
  const window = { startMs: 1000, endMs: 3000 };
  const fromStore = summarizeWindow([{ url: "http://g/metrics", scrapes, store }], window);
  assert.deepEqual(fromStore, summarizeWindow([{ url: "http://g/metrics", scrapes }], window));
  // Baseline: the last scrape at or before 1000 (index 4, at 800); energy from 4000 to 6000 over 2.4 s.
  const energy = fromStore.find((m) => m.name === "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION")!;
  assert.deepEqual(energy.series[0].stats, { total: 2000, rate: 2000 / 2.4 });
  // Utilization inside the window from the baseline on: scrape 5 (2600) only.
  const util = fromStore.find((m) => m.name === "DCGM_FI_DEV_GPU_UTIL")!;
  assert.equal(util.series[0].stats.avg, 5);
});
