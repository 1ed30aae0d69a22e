import assert from "node:assert/strict";
import { assertExit, runCli } from "../e2e/cli_harness.ts";

Deno.test("AIPerf commands not built yet say what they are and what to do instead, exit 2; the built ones are listed", async () => {
  const cwd = Deno.cwd();
  const report = await runCli(["speed-bench-report", "runs"], { cwd });
  assertExit(report, 2);
  assert.match(report.stderr, /is not built yet; run each speed_bench_\* type/);
  const help = await runCli(["--help"], { cwd });
  for (const command of ["analyze", "analyze-trace", "validate", "chat", "plugins", "synthesize"]) {
    assert.match(help.stdout, new RegExp(`^ {2}${command} `, "m"), command);
  }
});
