import assert from "node:assert/strict";
import { serverMetricsFlushMs, TelemetryCollector } from "../../src/telemetry/telemetry_collector.ts";

function recorder() {
  const lines: string[] = [];
  return {
    lines,
    log: {
      info: (m: string) => lines.push(`INFO ${m}`),
      warning: (m: string) => lines.push(`WARNING ${m}`),
      debug: (m: string) => lines.push(`DEBUG ${m}`),
    },
  };
}

Deno.test("TelemetryCollector skips a target without metrics with one log line, and falls back to /v1/metrics", async () => {
  const nim = (req: Request) =>
    new URL(req.url).pathname === "/v1/metrics"
      ? new Response("# TYPE up gauge\nup 1\n", { headers: { "content-type": "text/plain" } })
      : new Response("nope", { status: 404 });
  await using none = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("no", { status: 404 }),
  );
  await using withNim = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, nim);
  const r = recorder();
  const collector = await TelemetryCollector.start({
    targetUrls: [`http://127.0.0.1:${none.addr.port}`, `http://127.0.0.1:${withNim.addr.port}`],
    serverUrls: [],
    serverMetrics: true,
    gpuUrls: [],
    gpuTelemetry: false,
  }, r.log);
  await collector.stop();
  const skipped = r.lines.filter((l) => l.includes(`${none.addr.port}`));
  assert.equal(skipped.length, 1, r.lines.join("\n"));
  assert.match(skipped[0], /^INFO Server metrics: no Prometheus endpoint .* \(HTTP 404\); skipped\.$/);
  assert.deepEqual(collector.serverScrapes().map((s) => s.url), [`http://127.0.0.1:${withNim.addr.port}/v1/metrics`]);
  assert.ok(collector.serverScrapes()[0].scrapes.length >= 2, "probe and final scrape");
});

Deno.test("TelemetryCollector never scrapes a non-loopback endpoint", async () => {
  const r = recorder();
  const collector = await TelemetryCollector.start({
    targetUrls: [],
    serverUrls: ["http://192.0.2.1:8000"],
    serverMetrics: true,
    gpuUrls: [],
    gpuTelemetry: false,
  }, r.log);
  await collector.stop();
  assert.equal(collector.server.length, 0);
  assert.match(r.lines.join("\n"), /only loopback endpoints are scraped/);
});

Deno.test("TelemetryCollector takes the final scrape after AIPerf's flush period, scraping on meanwhile", async () => {
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("# TYPE up gauge\nup 1\n", { headers: { "content-type": "text/plain" } }),
  );
  const r = recorder();
  const collector = await TelemetryCollector.start({
    targetUrls: [`http://127.0.0.1:${server.addr.port}`],
    serverUrls: [],
    serverMetrics: true,
    gpuUrls: [],
    gpuTelemetry: false,
    intervalMs: 50,
    flushPeriodMs: 400,
  }, r.log);
  const end = Date.now();
  await collector.stop({ endEpochMs: end });
  const scrapes = collector.serverScrapes()[0].scrapes;
  const last = scrapes[scrapes.length - 1].atMs;
  assert.ok(last >= end + 400, `final scrape ${last - end} ms after the end`);
  assert.ok(scrapes.filter((s) => s.atMs > end && s.atMs < end + 400).length >= 2, "polling went on during the flush");
});

Deno.test("serverMetricsFlushMs reads AIPERF_SERVER_METRICS_COLLECTION_FLUSH_PERIOD in seconds, else 2 s", () => {
  const env = (value?: string) => (name: string) =>
    name === "AIPERF_SERVER_METRICS_COLLECTION_FLUSH_PERIOD" ? value : undefined;
  assert.equal(serverMetricsFlushMs(env()), 2000);
  assert.equal(serverMetricsFlushMs(env("0")), 0);
  assert.equal(serverMetricsFlushMs(env("0.5")), 500);
  assert.equal(serverMetricsFlushMs(env("soon")), 2000);
});
