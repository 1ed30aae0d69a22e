/**
 * Latencies against the simulator's known schedule (TTFT 60 ms, then one token every 4 ms), as far as they hold
 * on any machine however loaded: the client cannot see a token before the server sends it, so TTFT and request
 * latency never read below the schedule, and the metrics of each request are consistent with each other
 * (latency = TTFT + decode duration, ITL = decode duration / (OSL − 1)). How close they come to the schedule on
 * an idle machine (within 5 %) is a measurement, not a test: `scripts/bench/timing_accuracy_bench.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  assertExit,
  consoleTableRows,
  metric,
  readJson,
  readJsonl,
  recordValue,
  runCli,
  startSim,
  tempDir,
} from "./cli_harness.ts";

const TTFT_MS = 60;
const ITL_MS = 4;
const OSL = 20;
const DIR = "artifacts/m-chat-concurrency1";
/** The schedule's request latency: first token, then OSL − 1 gaps. */
const LATENCY_MS = TTFT_MS + (OSL - 1) * ITL_MS;
/** Timer and clock granularity allowance below the schedule. */
const SLACK = 0.99;

function close(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= 1e-6 * Math.max(1, Math.abs(expected)), `${what}: ${actual} vs ${expected}`);
}

Deno.test("profile at concurrency 1 never reads TTFT or latency below the simulator's schedule, and each request's metrics agree", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", String(TTFT_MS), "--itl", String(ITL_MS)]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--streaming", "--url", sim.url,
    "--isl", "50", "--osl", String(OSL), "--extra-inputs", "ignore_eos:true",
    "--concurrency", "1", "--request-count", "8", "--warmup-request-count", "1",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  const summary = await readJson(join(tmp.path, DIR, "profile_export_aiperf.json"));
  assert.equal(metric(summary, "output_sequence_length").avg, OSL);
  assert.equal(metric(summary, "output_sequence_length").min, OSL);
  assert.ok(metric(summary, "time_to_first_token").min! >= TTFT_MS * SLACK, "TTFT below the sim's schedule");
  assert.ok(metric(summary, "request_latency").min! >= LATENCY_MS * SLACK, "latency below the sim's schedule");
  const lines = (await readJsonl(join(tmp.path, DIR, "profile_export.jsonl")))
    .filter(({ record }) => record.metadata.benchmark_phase === "profiling");
  assert.equal(lines.length, 8);
  for (const { record } of lines) {
    const ttft = recordValue(record, "time_to_first_token"), latency = recordValue(record, "request_latency");
    close(latency, ttft + recordValue(record, "decode_duration"), "latency = TTFT + decode duration");
    close(
      recordValue(record, "inter_token_latency"),
      (latency - ttft) / (OSL - 1),
      "ITL = decode duration / (OSL − 1)",
    );
  }
});

Deno.test("profile without --streaming reports request latency but no TTFT, ITL, TTST or inter-chunk latency", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", String(TTFT_MS), "--itl", String(ITL_MS)]);
  const streamingOnly = ["time_to_first_token", "inter_token_latency", "time_to_second_token", "inter_chunk_latency"];
  const cwd = tmp.path;
  {
    // deno-fmt-ignore
    const run = await runCli([
      "profile", "--ui", "none", "-m", "m", "--url", sim.url,
      "--isl", "50", "--osl", String(OSL), "--request-count", "6", "--warmup-request-count", "1",
    ], { cwd });
    assertExit(run, 0);
    const summary = await readJson(join(cwd, DIR, "profile_export_aiperf.json"));
    for (const tag of streamingOnly) assert.equal(tag in summary, false, `summary JSON has ${tag}`);
    for (const { record } of await readJsonl(join(cwd, DIR, "profile_export.jsonl"))) {
      for (const tag of streamingOnly) assert.equal(tag in record.metrics, false, `record has ${tag}`);
    }
    const rows = consoleTableRows(run.stdout);
    assert.ok(rows.has("Request Latency (ms)"));
    assert.equal(rows.has("Time to First Token (ms)"), false);
    assert.equal(rows.has("Inter Token Latency (ms)"), false);
    // A non-streamed answer leaves after ttft + itl × (n − 1), never before.
    assert.ok(metric(summary, "request_latency").min! >= LATENCY_MS * SLACK, "latency below the sim's schedule");
  }
});
