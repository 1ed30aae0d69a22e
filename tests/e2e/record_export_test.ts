/**
 * The per-request `profile_export.jsonl`: one line per profiling request, exact epoch-nanosecond integers, unique
 * request ids, and warmup requests kept out of it and out of the profiling metrics.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  assertExit,
  metric,
  rawInteger,
  readJson,
  readJsonl,
  recordValue,
  runCli,
  startSim,
  tempDir,
} from "./cli_harness.ts";

const DIR = "artifacts/m-chat-concurrency1";

Deno.test("profile writes one exact-timestamp JSONL record per profiling request and leaves warmup requests out", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "3", "--itl", "0.5"]);
  const beforeNs = BigInt(Date.now()) * 1_000_000n;
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--streaming", "--url", sim.url, "--isl", "20", "--osl", "8",
    "--request-count", "12", "--warmup-request-count", "3",
  ], { cwd: tmp.path });
  const afterNs = BigInt(Date.now()) * 1_000_000n;
  assertExit(run, 0);

  const lines = await readJsonl(join(tmp.path, DIR, "profile_export.jsonl"));
  assert.equal(lines.length, 12, "one line per profiling request, none for the 3 warmup requests");
  const ids = new Set<string>();
  for (const { raw, record } of lines) {
    assert.equal(record.metadata.benchmark_phase, "profiling");
    assert.equal(record.metadata.was_cancelled, false);
    assert.equal(record.error, undefined);
    ids.add(record.metadata.x_request_id);

    // Epoch ns exceed 2^53: they must be written as exact digits, never through a float (no 1.7e18, no ".0").
    const start = rawInteger(raw, "request_start_ns");
    const end = rawInteger(raw, "request_end_ns");
    assert.ok(start > 1_700_000_000_000_000_000n, `request_start_ns ${start}`);
    assert.ok(start >= beforeNs && end <= afterNs, "timestamps lie within the run's wall-clock window");
    assert.ok(end > start);
    // end − start is the request latency to the nanosecond; a float-formatted timestamp is off by up to 256 ns.
    const latencyMs = recordValue(record, "request_latency");
    assert.ok(
      Math.abs(Number(end - start) / 1e6 - latencyMs) < 2e-6,
      `request_end_ns − request_start_ns = ${end - start} ns but request_latency = ${latencyMs} ms`,
    );
    assert.equal(recordValue(record, "output_sequence_length"), 8);
  }
  assert.equal(ids.size, 12, "x_request_id values are unique");

  const summary = await readJson(join(tmp.path, DIR, "profile_export_aiperf.json"));
  assert.equal(metric(summary, "request_count").avg, 12, "warmup requests are not counted");
  assert.equal(metric(summary, "request_latency").count, 12);
  const latencySum = lines.reduce((s, l) => s + recordValue(l.record, "request_latency"), 0);
  assert.ok(Math.abs(metric(summary, "request_latency").sum! - latencySum) < 1e-6, "the summary covers these records");
  const warmup = summary.warmup_metrics as Record<string, unknown> | undefined;
  assert.ok(warmup, "summary JSON has warmup_metrics");
  assert.equal(metric(warmup, "request_count").avg, 3);
});
