/**
 * `profile --cpu-dma-latency`: the kernel holds the limit while the run lasts (checked by reading the device from
 * this process, where it may), the export says what was asked and whether it held, and the limit goes away with
 * the run. Without permission, the run still completes and says why the option had no effect.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, readJson, spawnCli, startSim, tempDir } from "./cli_harness.ts";
import { currentCpuDmaLatency } from "../../src/runtime/cpu_dma_latency.ts";

Deno.test("profile --cpu-dma-latency 0 holds the kernel's limit for the run and records it in the export", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "20", "--itl", "2"]);
  const before = currentCpuDmaLatency(); // undefined where this process may not open the device
  // deno-fmt-ignore
  await using cli = spawnCli([
    "profile", "--ui", "none", "-m", "m", "--streaming", "--url", sim.url, "--isl", "20", "--osl", "5",
    "--concurrency", "2", "--benchmark-duration", "1.5", "--cpu-dma-latency", "0",
  ], { cwd: tmp.path });
  let seenDuringRun: number | undefined;
  while (before !== undefined && !cli.hasExited() && seenDuringRun !== 0) {
    seenDuringRun = currentCpuDmaLatency();
    await new Promise((r) => setTimeout(r, 20));
  }
  const run = await cli.result;
  assertExit(run, 0);
  const summary = await readJson<Record<string, unknown> & { input_config: { infermeter: Record<string, unknown> } }>(
    join(tmp.path, "artifacts/m-chat-concurrency2/profile_export_aiperf.json"),
  );
  assert.equal(summary.input_config.infermeter.cpu_dma_latency, 0);
  const held = (summary.infermeter as Record<string, unknown>).cpu_dma_latency as Record<string, unknown>;
  assert.equal(held.requested_us, 0);
  if (before !== undefined) {
    // This process could open the device, so the CLI (same user) could too.
    assert.equal(held.held, true, JSON.stringify(held));
    assert.equal(held.reason, null);
    assert.equal(seenDuringRun, 0, "the kernel never reported the limit at 0 during the run");
    assert.match(run.stderr, /Holding the CPU wake-up latency limit at 0 µs/);
    assert.equal(currentCpuDmaLatency(), before, "the limit outlived the run");
  } else {
    assert.equal(held.held, false);
    assert.match(String(held.reason), /cpu_dma_latency/);
    assert.match(run.stderr, /--cpu-dma-latency 0 has no effect/);
  }
});
