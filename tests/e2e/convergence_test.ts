/**
 * `--convergence-metric` stops repeated runs once they agree: against a simulator with steady latency, five runs are
 * allowed and two are made (AIPerf's minimum before the first check); a threshold no runs can meet makes all five.
 */
import assert from "node:assert/strict";
import { assertExit, exists, readJson, runCli, startSim, tempDir } from "./cli_harness.ts";

function args(url: string, dir: string, extra: string[]): string[] {
  return [
    "profile",
    "--url",
    url,
    "-m",
    "sim-model",
    "--endpoint-type",
    "chat",
    "--streaming",
    "--output-tokens-mean",
    "5",
    "--extra-inputs",
    "ignore_eos:true",
    "--request-count",
    "12",
    "--concurrency",
    "4",
    "--ui-type",
    "none",
    "--num-profile-runs",
    "5",
    "--convergence-metric",
    "request_latency",
    "--artifact-dir",
    dir,
    ...extra,
  ];
}

Deno.test("--convergence-metric stops repeated runs once they agree, and not before", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "100", "--itl", "20", "--seed", "1"]);
  // Latency ≈ 180 ms every run. A CV of two runs under 0.99 only needs their means within 5.7× of each other, which a
  // busy machine's delays (tens of ms, at times over a hundred) cannot break; a threshold of 0.5 (2.1×) could.
  const early = await runCli(args(sim.url, "early", ["--convergence-mode", "cv", "--convergence-threshold", "0.99"]), {
    cwd: tmp.path,
    timeoutMs: 60_000,
  });
  assertExit(early, 0);
  assert.match(early.stderr, /request_latency converged by cv after 2 runs; the remaining runs are skipped/);
  assert.ok(await exists(`${tmp.path}/early/profile_runs/run_0002`));
  assert.ok(!(await exists(`${tmp.path}/early/profile_runs/run_0003`)));
  const agg = await readJson<{ metadata: { num_profile_runs: number } }>(
    `${tmp.path}/early/aggregate/profile_export_aiperf_aggregate.json`,
  );
  assert.equal(agg.metadata.num_profile_runs, 2);
  // Runs of real requests never agree to one part in a million: all five are made.
  const never = await runCli(
    args(sim.url, "never", ["--convergence-mode", "cv", "--convergence-threshold", "0.000001"]),
    { cwd: tmp.path, timeoutMs: 60_000 },
  );
  assertExit(never, 0);
  assert.ok(await exists(`${tmp.path}/never/profile_runs/run_0005`));
  assert.doesNotMatch(never.stderr, /converged/);
});
