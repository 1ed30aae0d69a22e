import assert from "node:assert/strict";
import { parsePrometheusText } from "../../src/telemetry/prometheus_text.ts";
import type { Scrape } from "../../src/telemetry/prometheus_scraper.ts";
import { increase, summarizeWindow } from "../../src/telemetry/window_summary.ts";

function scrape(atMs: number, text: string): Scrape {
  return { atMs, latencyMs: 1, families: parsePrometheusText(text), fingerprint: atMs };
}

const page = (energy: number, power: number) =>
  `# TYPE energy_joules_total counter\nenergy_joules_total ${energy}\n# TYPE power_watts gauge\npower_watts ${power}\n`;

Deno.test("increase adds scrape-to-scrape growth and treats a drop as a reset", () => {
  assert.equal(increase([10, 15, 15, 20]), 10);
  assert.equal(increase([10, 15, 3, 8]), 5 + 3 + 5);
  assert.equal(increase([undefined, 4, 6]), 2);
  assert.equal(increase([]), undefined);
});

Deno.test("summarizeWindow: counter delta from the baseline, gauge stats inside the window only", () => {
  const scrapes = [
    scrape(0, page(100, 50)), // before the window: baseline is the one at 1000
    scrape(1000, page(100, 200)), // window start
    scrape(2000, page(160, 400)),
    scrape(3000, page(200, 0)), // window end
    scrape(3500, page(200, 50)), // after the end: not a gauge value of the window
  ];
  const metrics = summarizeWindow([{ url: "http://h/metrics", scrapes }], { startMs: 1000, endMs: 3000 });
  const byName = new Map(metrics.map((m) => [m.name, m]));
  // 200 − 100 = 100 over 2.5 s (baseline to last scrape).
  assert.deepEqual(byName.get("energy_joules")!.series[0].stats, { total: 100, rate: 40 });
  const power = byName.get("power_watts")!.series[0].stats;
  // Window values 200, 400, 0: mean 200, population std √(80000/3).
  assert.equal(power.avg, 200);
  assert.equal(power.max, 400);
  assert.ok(Math.abs(power.std - Math.sqrt(80000 / 3)) < 1e-9);
});
