/**
 * `infermeter calibrate` end to end: the reference server, the floor reader and the profile runs are all real
 * processes; the report must account for every token and show small client-added errors.
 */
import assert from "node:assert/strict";
import { assertExit, runCli, tempDir } from "./cli_harness.ts";

Deno.test("calibrate reports small client-added errors for every level, as JSON", async () => {
  await using tmp = await tempDir();
  // deno-fmt-ignore
  const run = await runCli([
    "calibrate", "--streams", "2,8", "--duration", "1", "--tokens", "6", "--ttft", "400", "--itl", "400", "--json",
  ], { cwd: tmp.path, timeoutMs: 90_000 });
  assertExit(run, 0);
  const report = JSON.parse(run.stdout);
  assert.equal(report.warmup, true);
  // Not asked for: the machine's own setting applied (the wake-up limit is machine-wide, so only
  // tests/e2e/cpu_dma_latency_test.ts touches it, and never beside another test that does).
  assert.equal(report.cpuDmaLatencyUs, null, run.stderr);
  assert.deepEqual(report.levels.map((l: { streams: number }) => l.streams), [2, 8]);
  for (const level of report.levels) {
    assert.equal(level.errors, 0);
    assert.ok(level.requests > 0 && level.events === level.requests * 6, JSON.stringify(level));
    // Bounds of half an ITL: the point is that the exported times match the server's write times, not how fast
    // this (possibly busy) machine is — accuracy is the bench's verdict. A wrong join (another request's or token's
    // times) is off by whole 400 ms gaps, and a wrong clock shows negative medians; a machine at load 9 delayed the
    // client's reads by 60 ms at the median, one at load 10 by 135 ms.
    const bound = 200;
    assert.ok(level.ttftErrorMs.p50 > -0.5 && level.ttftErrorMs.p50 < bound, `TTFT error p50 ${level.ttftErrorMs.p50}`);
    assert.ok(Math.abs(level.itlErrorMs.p50) < bound, `ITL error p50 ${level.itlErrorMs.p50}`);
    // The send lag includes loopback, so it is positive up to the clock-offset uncertainty.
    assert.ok(level.sendLagMs.p50 > -0.5 && level.sendLagMs.p50 < bound, `send lag p50 ${level.sendLagMs.p50}`);
    assert.equal(level.sendLagMs.count, level.requests);
    assert.ok(level.floorEventErrorMs.count > 0, "the floor reader measured events");
    assert.equal(level.floorTtftErrorMs.count, level.floorSendLagMs.count, "one first token per floor response");
    assert.equal(level.floorLatencyErrorMs.count, level.floorSendLagMs.count, "one last token per floor response");
    assert.ok(Math.abs(level.floorTtftErrorMs.p50) < bound, `floor TTFT error p50 ${level.floorTtftErrorMs.p50}`);
    assert.ok(level.floorSendLagMs.count > 0, "the floor reader measured its sends");
  }
});

Deno.test("calibrate rejects a bad value with one line and exit 2", async () => {
  await using tmp = await tempDir();
  const run = await runCli(["calibrate", "--streams", "0"], { cwd: tmp.path });
  assertExit(run, 2);
  assert.match(run.stderr, /--streams 0 must be a number ≥ 1/);
});
