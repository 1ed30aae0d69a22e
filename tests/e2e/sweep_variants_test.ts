/**
 * Scenario sweeps (`--variant`) with AIPerf's Multi-Run options, real processes end to end: the points run all their
 * runs before the next point (`--parameter-sweep-mode independent`: `<point>/profile_runs/trial_NNNN/`), every run
 * has its own SHA-256 seed (`--vary-seed-per-trial`), and `--no-sweep-table` leaves the summary table out.
 */
import assert from "node:assert/strict";
import { assertExit, exists, readJson, runCli, startSim, tempDir } from "./cli_harness.ts";
import { deriveVariationSeed } from "../../src/run/sweep_seed.ts";

Deno.test("--variant runs each named point, independent mode lays out and seeds each run as AIPerf", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "2", "--itl", "1", "--seed", "3"]);
  const common = [
    "profile",
    "--url",
    sim.url,
    "-m",
    "sim-model",
    "--endpoint-type",
    "chat",
    "--synthetic-input-tokens-mean",
    "8",
    "--output-tokens-mean",
    "4",
    "--request-count",
    "4",
    "--no-server-metrics",
    "--ui-type",
    "none",
    "--variant",
    "short: concurrency=1, osl=3",
    "--variant",
    "wide: concurrency=2",
    "--num-profile-runs",
    "2",
  ];
  const run = await runCli([
    ...common,
    "--parameter-sweep-mode",
    "independent",
    "--vary-seed-per-trial",
    "--random-seed",
    "9",
    "--no-sweep-table",
    "--artifact-dir",
    "v",
  ], { cwd: tmp.path, timeoutMs: 60_000 });
  assertExit(run, 0);
  assert.ok(!run.stdout.includes("Sweep Summary"), run.stdout);
  for (const label of ["short", "wide"]) {
    for (const t of [0, 1]) {
      const file = `${tmp.path}/v/${label}/profile_runs/trial_000${t + 1}/profile_export_aiperf.json`;
      const json = await readJson<{ run_info?: { random_seed: number }; input_config?: unknown }>(file);
      assert.equal(json.run_info?.random_seed, deriveVariationSeed(9, `${label}:trial:${t}`), file);
    }
  }
  const short = await readJson<{ output_sequence_length: { avg: number } }>(
    `${tmp.path}/v/short/profile_runs/trial_0001/profile_export_aiperf.json`,
  );
  assert.equal(short.output_sequence_length.avg, 3, "the variant's own option is in effect");
  const manifest = await readJson<{ points: { label: string; dir: string }[] }>(`${tmp.path}/v/run_manifest.json`);
  assert.deepEqual(manifest.points.map((p) => p.dir), [
    "short/profile_runs/trial_0001",
    "short/profile_runs/trial_0002",
    "wide/profile_runs/trial_0001",
    "wide/profile_runs/trial_0002",
  ]);
  assert.ok(await exists(`${tmp.path}/v/sweep_aggregate/profile_export_aiperf_sweep.json`));

  // The default order: all points in run 1, then in run 2, seeds 9 + the point's index, the table printed.
  const repeated = await runCli([...common, "--random-seed", "9", "--artifact-dir", "r"], {
    cwd: tmp.path,
    timeoutMs: 60_000,
  });
  assertExit(repeated, 0);
  assert.ok(repeated.stdout.includes("Sweep Summary"));
  const wide = await readJson<{ run_info?: { random_seed: number } }>(
    `${tmp.path}/r/profile_runs/trial_0002/wide/profile_export_aiperf.json`,
  );
  assert.equal(wide.run_info?.random_seed, 10);
});
