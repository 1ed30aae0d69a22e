import assert from "node:assert/strict";
import { assertExit, runCli } from "../e2e/cli_harness.ts";

Deno.test("every AIPerf 0.13 command besides profile is built and listed in --help", async () => {
  const help = await runCli(["--help"], { cwd: Deno.cwd() });
  for (
    const command of ["analyze", "analyze-trace", "validate", "chat", "plugins", "synthesize", "speed-bench-report"]
  ) {
    assert.match(help.stdout, new RegExp(`^ {2}${command} `, "m"), command);
  }
});

Deno.test("speed-bench-report refuses, exit 2, what it cannot make a matrix of, saying why", async () => {
  const dir = await Deno.makeTempDir({ prefix: "speed_bench_cli_" });
  try {
    const cwd = dir;
    const none = await runCli(["speed-bench-report"], { cwd });
    assertExit(none, 2);
    assert.match(none.stderr, /name the run directories/);
    const missing = await runCli(["speed-bench-report", "no_such_dir"], { cwd });
    assertExit(missing, 2);
    assert.match(missing.stderr, /no_such_dir is not a directory, skipping/);
    assert.match(missing.stderr, /error: no run directories found in no_such_dir/);
    await Deno.mkdir(`${dir}/run`);
    await Deno.writeTextFile(
      `${dir}/run/profile_export_aiperf.json`,
      JSON.stringify({ input_config: { datasets: [{ format: "single_turn" }] } }),
    );
    const other = await runCli(["speed-bench-report", "."], { cwd });
    assertExit(other, 2);
    assert.match(other.stdout, /Found 1 run directories\./);
    assert.match(other.stderr, /cannot determine category from .*run, skipping/);
    assert.match(other.stderr, /error: no SPEED-Bench results extracted/);
    const metric = await runCli(["speed-bench-report", ".", "--metric", "latency"], { cwd });
    assertExit(metric, 2);
    assert.match(metric.stderr, /--metric/);
    const format = await runCli(["speed-bench-report", ".", "--format", "html"], { cwd });
    assertExit(format, 2);
    assert.equal(await Deno.stat(`${dir}/speed_bench_report.csv`).then(() => true, () => false), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
