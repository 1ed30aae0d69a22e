/**
 * The pure parts of the bench harness: wrk's report, SSE counting, the tiktoken file, cpu lists, options,
 * verdict. (The harness itself runs for real with `deno task bench`.)
 */
import assert, { deepStrictEqual as assertEquals, throws } from "node:assert/strict";
import { parseWrkReport, wrkScript } from "./client_wrk.ts";
import { countSseEvents } from "./response_shape.ts";
import { toTiktokenFile } from "./tiktoken_cache.ts";
import { parseCpuList } from "./machine_info.ts";
import { parseBenchOptions } from "./bench_options.ts";
import { pickScenarios, requestBody } from "./bench_scenarios.ts";
import { verdict } from "./bench_report.ts";
import type { ClientResult, ScenarioResult } from "./bench_types.ts";
import { treeOf } from "./proc_tree.ts";

Deno.test("parseWrkReport reads requests, duration, rate and errors", () => {
  const text = `Running 5s test @ http://127.0.0.1:1/v1/chat/completions
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     3.01ms  401.00us   9.00ms   90.00%
  103265 requests in 5.00s, 1.20GB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 4
Requests/sec:  20653.00
Transfer/sec:    245.00MB
`;
  assertEquals(parseWrkReport(text), {
    requests: 103265,
    seconds: 5,
    requestsPerSec: 20653,
    non2xx: 4,
    socketErrors: 3,
  });
  assertEquals(parseWrkReport("unable to connect"), undefined);
});

Deno.test("wrkScript keeps a body containing ]] intact", () => {
  const script = wrkScript('{"a":[[1]]}');
  assert(script.includes('wrk.body = [=[{"a":[[1]]}]=]'));
});

Deno.test("countSseEvents counts data events and content events across line endings", () => {
  const text = 'data: {"choices":[{"delta":{"role":"assistant","content":""}}]}\r\n\r\n' +
    'data: {"choices":[{"delta":{"content":" a"}}]}\n\n' +
    ": comment\n\n" +
    'data: {"choices":[],"usage":{"completion_tokens":1}}\n\n' +
    "data: [DONE]\n\n";
  assertEquals(countSseEvents(text), { sseEvents: 4, contentEvents: 1 });
});

Deno.test("toTiktokenFile numbers tokens from each line's first rank", () => {
  assertEquals(toTiktokenFile("! 0 IQ== Ig==\n! 5 Iw==\n"), "IQ== 0\nIg== 1\nIw== 5\n");
});

Deno.test("parseCpuList expands ranges", () => {
  assertEquals(parseCpuList("0-2,5,7-8\n"), [0, 1, 2, 5, 7, 8]);
});

Deno.test("parseBenchOptions applies --quick and rejects unknown flags and clients", () => {
  const q = parseBenchOptions(["--quick", "--clients", "ours,wrk"], "/r");
  assertEquals(q.durationSec, 2);
  assertEquals(q.calibrateDurationSec, 3);
  assertEquals(parseBenchOptions([], "/r").calibrateDurationSec, undefined);
  assertEquals(parseBenchOptions(["--calibrate-duration", "30"], "/r").calibrateDurationSec, 30);
  assertEquals(q.clients, ["ours", "wrk"]);
  assertEquals(q.outPath, "/r/.bench/results.json");
  throws(() => parseBenchOptions(["--fast"], "/r"), /unknown option/);
  throws(() => parseBenchOptions(["--clients", "k6"], "/r"), /--clients k6/);
  throws(() => pickScenarios(["nope"]), /sse-c16/);
});

Deno.test("requestBody asks for exact-length streamed output with usage", () => {
  const [s] = pickScenarios(["sse-c16"]);
  const body = JSON.parse(requestBody(s, "m"));
  assertEquals(body.max_completion_tokens, 512);
  assertEquals(body.ignore_eos, true);
  assertEquals(body.stream_options, { include_usage: true });
});

Deno.test("treeOf finds every descendant and nothing else", () => {
  const p = (pid: number, ppid: number) => ({ pid, ppid, cpuTicks: 0, startTicks: 0 });
  const tree = treeOf(10, [p(1, 0), p(10, 1), p(11, 10), p(12, 11), p(13, 1)]);
  assertEquals(tree.map((t) => t.pid), [10, 11, 12]);
});

Deno.test("verdict judges ours on the best scenario and the smallest ratio to AIPerf", () => {
  const ok = (client: "ours" | "aiperf", rps: number, eps?: number): ClientResult => ({
    client,
    status: "ok",
    requestsPerSec: rps,
    eventsPerSec: eps,
  });
  const [sse, rps] = pickScenarios(["sse-c64", "rps-stream-c64"]);
  const results: ScenarioResult[] = [
    { scenario: sse, body: "", clients: [ok("ours", 800, 400_000), ok("aiperf", 40, 20_000)] },
    { scenario: rps, body: "", clients: [ok("ours", 9_000, 9_000), ok("aiperf", 4_000, 4_000)] },
  ];
  const lines = verdict(results);
  assertEquals(lines.map((l) => l.pass), [true, false, false]);
  assertEquals(lines[2].value, 2.25);
});

Deno.test("interpolateAt reads a cumulative counter between samples and refuses far outside them", async () => {
  const { interpolateAt } = await import("./interpolate_samples.ts");
  const samples = [{ at: 1000, v: 1 }, { at: 2000, v: 3 }, { at: 3000, v: 4 }];
  const valueOf = (i: number) => samples[i].v;
  assert.equal(interpolateAt(samples, valueOf, 1500, 100), 2);
  assert.equal(interpolateAt(samples, valueOf, 2500, 100), 3.5);
  assert.equal(interpolateAt(samples, valueOf, 950, 100), 1);
  assert.equal(interpolateAt(samples, valueOf, 3050, 100), 4);
  assert.equal(interpolateAt(samples, valueOf, 800, 100), undefined);
  assert.equal(interpolateAt([], valueOf, 1000, 100), undefined);
});

Deno.test("calibrationVerdict judges each accuracy target on the worst of TTFT, ITL and latency error", async () => {
  const { calibrationVerdict, asCalibrationReport } = await import("./calibration_verdict.ts");
  const { computeStats } = await import("../../src/metrics/stats.ts");
  const { calibrationLevel } = await import("../../tests/fixtures/calibration_level.ts");
  // 100 values 0.01 … 1.00 (p50 0.505, p99 ~0.99), scaled per statistic.
  const spread = (scale: number) => computeStats(Float64Array.from({ length: 100 }, (_, i) => (i + 1) / 100 * scale))!;
  const smallItl = spread(0.002);
  // Five gaps 13 ms short of the server's: p50 0, p1 −13.
  const itlTail = computeStats(Float64Array.from({ length: 100 }, (_, i) => i < 5 ? -13 : 0))!;
  const level = (streams: number, ttft: number, latency: number, itlErrorMs = smallItl, errors = 0) =>
    calibrationLevel({
      streams,
      ttftErrorMs: spread(ttft),
      itlErrorMs,
      requestLatencyErrorMs: spread(latency),
      errors,
    });
  const report = (levels: ReturnType<typeof level>[]) =>
    asCalibrationReport({
      ttftMs: 50,
      itlMs: 13,
      tokensPerRequest: 100,
      durationSec: 8,
      clockOffsetMs: 0,
      clockUncertaintyMs: 0.05,
      pinned: true,
      cpuDmaLatencyUs: null,
      warmup: true,
      levels,
    })!;
  // 16 streams: latency p50 0.1515 > 0.1 fails; 256 streams: p50 ≤ 1 and p99 ≤ 10 pass.
  const a = calibrationVerdict(report([level(16, 0.1, 0.3), level(256, 0.5, 1.5)]));
  assertEquals(a.map((l) => l.pass), [true, true, false]);
  assert.equal(a[2].value, 0.1515);
  // A negative ITL tail (|p1| = 13) fails the p99 target; failed requests fail a level; a missing level is
  // not measured.
  const b = calibrationVerdict(report([level(256, 0.5, 1.5, itlTail), level(16, 0.05, 0.05, smallItl, 3)]));
  assertEquals(b.map((l) => l.pass), [true, false, false]);
  assert.match(b[2].detail, /over 8 s; 3 failed requests/);
  // A level that ran lighter than 90 % of its schedule fails whatever its errors.
  const slow = { ...level(256, 0.1, 0.1), eventsPerSecond: 15_000 }; // of 19,147 scheduled
  const d = calibrationVerdict(report([slow]));
  assertEquals(d.map((l) => l.pass), [false, false, undefined]);
  assert.match(d[0].detail, /15,000 events\/s over 8 s; below the 19,147 events\/s scheduled/);
  const c = calibrationVerdict(report([level(16, 0.05, 0.05)]));
  assertEquals(c.map((l) => l.pass), [undefined, undefined, true]);
  assert.equal(asCalibrationReport("calibrate: no such command"), undefined);
});

Deno.test("scalingLayout keeps servers on cores of their own when the client still has one per engine thread", async () => {
  const { scalingLayout } = await import("./workers_scaling_plan.ts");
  const two = scalingLayout([0, 1], 2);
  assertEquals([two.serverCores, two.clientCores, two.shared], [[1], [0, 1], true]);
  assert.match(two.note, /sharing them/);
  const four = scalingLayout([0, 1, 2, 3], 2);
  assertEquals([four.serverCores, four.clientCores, four.shared], [[3], [0, 1, 2], false]);
  const sixteen = scalingLayout(Array.from({ length: 16 }, (_, i) => i), 8);
  assertEquals([sixteen.serverCores, sixteen.clientCores.length, sixteen.shared], [[14, 15], 14, false]);
});

Deno.test("summarizeScaling takes medians per --workers and divides by the smallest one's", async () => {
  const { summarizeScaling } = await import("./workers_scaling_plan.ts");
  const run = (workers: number, tokensPerSec: number, clientCpuPercent: number, errors = 0) => ({
    workers,
    tokensPerSec,
    clientCpuPercent,
    serverCpuPercent: 5,
    requests: 100,
    errors,
  });
  const rows = summarizeScaling([
    run(2, 3_000, 180),
    run(1, 2_000, 100),
    run(1, 1_000, 100),
    run(2, 4_000, 200, 1),
    run(1, 3_000, 120),
  ]);
  assertEquals(rows.map((r) => [r.workers, r.runs, r.tokensPerSec, r.clientCpuPercent, r.errors]), [
    [1, 3, 2_000, 100, 0],
    [2, 2, 3_500, 190, 1],
  ]);
  assert.equal(rows[1].speedup, 1.75);
  // 3,500 / 190 tokens per CPU-% against 2,000 / 100.
  assert.equal(rows[1].efficiency, (3_500 / 190) / (2_000 / 100));
});
