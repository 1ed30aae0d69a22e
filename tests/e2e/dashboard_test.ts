/** `--ui dashboard` on a pipe, and the HTML report every run writes: what a user sees, from the real CLI. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, runCli, startSim, tempDir } from "./cli_harness.ts";

Deno.test("profile --ui dashboard on a pipe writes plain status lines (no escapes), and every run writes report.html", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "5", "--itl", "1"]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "-m", "m", "--url", sim.url, "--request-count", "6", "--concurrency", "2", "--osl", "4",
    "--streaming", "--ui", "dashboard", "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  assert.ok(!run.stderr.includes("\x1b"), "no escape codes on a pipe");
  assert.match(
    run.stderr,
    /^profiling \d\d:\d\d 100% done 6 in flight 0 [\d.,]+ req\/s [\d.,]+ tokens\/s TTFT p50 [\d.]+ ms p99 [\d.]+ ms ITL p50 [\d.]+ ms errors 0/m,
  );
  const html = await Deno.readTextFile(join(tmp.path, "out", "report.html"));
  assert.match(html, /^<!DOCTYPE html>/i);
  assert.match(run.stdout, /HTML Report: out\/report\.html/);
});
