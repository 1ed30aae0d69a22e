import assert from "node:assert/strict";
import { progressFraction, redrawPrefix, renderDashboard, renderDashboardLine } from "../../src/ui/dashboard_frame.ts";
import type { DashboardSnapshot } from "../../src/ui/dashboard_snapshot.ts";

const SNAPSHOT: DashboardSnapshot = {
  phase: "profiling",
  elapsedSec: 75.4,
  completed: 250,
  totalRequests: 1000,
  inFlight: 16,
  concurrency: 16,
  requestsPerSec: 3.3,
  outputTokensPerSec: 1234.5,
  ttftMs: { p50: 40.123, p90: 55, p99: 80.5 },
  itlMs: { p50: 5, p90: 6, p99: 9.25 },
  errorCount: 5,
  errors: [{ message: "500 Internal Server Error: boom", count: 4 }, { message: "timeout", count: 1 }],
  clientCpuPercent: 12.4,
};

Deno.test("renderDashboard without ansi: progress, load, percentiles, errors and client CPU, no escape codes", () => {
  const frame = renderDashboard(SNAPSHOT, { width: 80 });
  assert.ok(!frame.includes("\x1b"), "no escape codes for a pipe");
  assert.deepEqual(frame.split("\n"), [
    "infermeter · profiling  01:15  250/1000 requests",
    `  ${"█".repeat(13)}${"░".repeat(37)}  25%`, // 0.25 × 50 = 12.5 cells, rounded up
    "  in flight 16 of 16   3.3 req/s   1,234.5 tokens/s",
    "",
    "  ms                     p50       p90       p99",
    "  TTFT                 40.12     55.00     80.50",
    "  ITL                   5.00      6.00      9.25",
    "  Request latency          -         -         -",
    "",
    "  errors 5 (2.0%)",
    "        4 × 500 Internal Server Error: boom",
    "        1 × timeout",
    "  client CPU 12% of one core",
  ]);
});

Deno.test("renderDashboard with ansi colours; the redraw prefix moves up over the last frame only", () => {
  const frame = renderDashboard(SNAPSHOT, { ansi: true });
  assert.ok(frame.includes("\x1b[1minfermeter · profiling\x1b[0m"));
  assert.ok(frame.includes("\x1b[31m  errors 5 (2.0%)\x1b[0m"));
  assert.equal(redrawPrefix(0), "");
  assert.equal(redrawPrefix(13), "\x1b[13F\x1b[J");
});

Deno.test("progress follows requests when count-bounded, time when time-bounded, and long errors are cut", () => {
  assert.equal(progressFraction(SNAPSHOT), 0.25);
  const timed = { ...SNAPSHOT, totalRequests: undefined, durationSec: 300, elapsedSec: 150 };
  assert.equal(progressFraction(timed), 0.5);
  assert.match(renderDashboard(timed), /^infermeter · profiling {2}02:30 {2}02:30\/05:00$/m);
  assert.equal(progressFraction({ ...timed, durationSec: undefined }), undefined);
  const long = renderDashboard({ ...SNAPSHOT, errors: [{ message: "x".repeat(200), count: 1 }] }, { width: 60 });
  assert.ok(long.split("\n").every((line) => [...line].length <= 60));
});

Deno.test("renderDashboardLine: one plain line for logs", () => {
  assert.equal(
    renderDashboardLine(SNAPSHOT),
    "profiling 01:15 25% done 250 in flight 16 3.3 req/s 1,234.5 tokens/s TTFT p50 40.12 ms p99 80.50 ms " +
      "ITL p50 5.00 ms errors 5 client CPU 12%",
  );
});
