import assert from "node:assert/strict";
import { assertExit, runCli } from "../e2e/cli_harness.ts";

Deno.test("AIPerf commands not built yet say what they are and what to do instead, exit 2; the built ones are listed", async () => {
  const cwd = Deno.cwd();
  const synth = await runCli(["synthesize", "agentic-code", "--num-sessions", "10"], { cwd });
  assertExit(synth, 2);
  assert.match(synth.stderr, /'infermeter synthesize' \(AIPerf's agentic-code dataset synthesis\) is not built yet; /);
  const report = await runCli(["speed-bench-report", "runs"], { cwd });
  assertExit(report, 2);
  assert.match(report.stderr, /is not built yet; run each speed_bench_\* type/);
  const help = await runCli(["--help"], { cwd });
  for (const command of ["analyze", "analyze-trace", "validate", "chat", "plugins"]) {
    assert.match(help.stdout, new RegExp(`^ {2}${command} `, "m"), command);
  }
});
