/**
 * AIPerf's ISL/OSL curve recipes against serve-sim, real processes end to end. The simulator's TTFT grows by
 * --prefill-ms-per-token with each prompt token, so prefill-ttft-curve must find the line it was given (slope 0.2 ms
 * per token, 10 ms at ISL 0: a span of 400 ms that a busy machine's stalls cannot bend); decode-itl-curve measures
 * ITL (4 ms, give or take a busy machine) on every cell of its grid.
 */
import assert from "node:assert/strict";
import { assertExit, exists, readJson, runCli, startSim, tempDir } from "./cli_harness.ts";

function base(url: string): string[] {
  return [
    "profile",
    "--url",
    url,
    "-m",
    "sim-model",
    "--endpoint-type",
    "chat",
    "--streaming",
    "--extra-inputs",
    "ignore_eos:true",
    "--request-count",
    "4",
    "--warmup-request-count",
    "2",
    "--ui-type",
    "none",
    "--random-seed",
    "5",
  ];
}

Deno.test("--search-recipe prefill-ttft-curve fits TTFT against ISL: the simulator's prefill line", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "10", "--prefill-ms-per-token", "0.2", "--itl", "2", "--seed", "3"]);
  const run = await runCli([
    ...base(sim.url),
    "--output-tokens-mean",
    "3",
    "--search-recipe",
    "prefill-ttft-curve",
    "--isl-min",
    "64",
    "--isl-max",
    "2048",
    "--isl-steps",
    "4",
    "--artifact-dir",
    "curve",
  ], { cwd: tmp.path, timeoutMs: 120_000 });
  assertExit(run, 0);
  const dir = `${tmp.path}/curve`;
  const curve = await readJson<{
    fit_form: string;
    coefficients: number[];
    r_squared: number;
    below_floor: boolean;
    raw_points: { isl: number; ttft_ms: number }[];
    swept_param: string;
  }>(`${dir}/sweep_aggregate/prefill_curve.json`);
  assert.deepEqual(curve.raw_points.map((p) => p.isl), [64, 203, 645, 2048]);
  assert.equal(curve.swept_param, "datasets.main.prompts.isl");
  assert.equal(curve.fit_form, "linear");
  assert.equal(curve.below_floor, false);
  const [slope, intercept] = curve.coefficients;
  assert.ok(Math.abs(slope - 0.2) < 0.03, `slope ${slope}`);
  assert.ok(intercept > 0 && intercept < 60, `intercept ${intercept}`);
  assert.ok(curve.r_squared > 0.98, `r² ${curve.r_squared}`);
  for (const isl of [64, 203, 645, 2048]) {
    assert.ok(await exists(`${dir}/isl_${isl}__concurrency_1/profile_export_aiperf.json`), `isl ${isl}`);
  }
  const answer = run.stdout.trimEnd().split("\n").at(-1)!;
  assert.match(
    answer,
    /^TTFT ≈ 0\.\d+ ms × ISL \+ [\d.]+ ms \(linear, r² [\d.]+\) over ISL 64–2,048 at concurrency 1$/,
  );
  const manifest = await readJson<{ files: { role: string }[]; points: unknown[] }>(`${dir}/run_manifest.json`);
  assert.ok(manifest.files.some((f) => f.role === "prefill_curve_json"));
  assert.equal(manifest.points.length, 4);
});

Deno.test("--search-recipe decode-itl-curve measures the ITL surface on its concurrency × OSL grid", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "5", "--itl", "4", "--seed", "3"]);
  const run = await runCli([
    ...base(sim.url),
    "--synthetic-input-tokens-mean",
    "16",
    "--search-recipe",
    "decode-itl-curve",
    "--concurrency-min",
    "1",
    "--concurrency-max",
    "2",
    "--concurrency-steps",
    "2",
    "--osl-min",
    "4",
    "--osl-max",
    "8",
    "--osl-steps",
    "2",
    "--artifact-dir",
    "surface",
  ], { cwd: tmp.path, timeoutMs: 120_000 });
  assertExit(run, 0);
  const dir = `${tmp.path}/surface`;
  const surface = await readJson<{
    swept_params: string[];
    raw_points: { concurrency: number; osl: number; itl_ms: number }[];
    surface: { concurrency_axis: number[]; osl_axis: number[]; itl_grid: (number | null)[][] };
    surface_fit_failed: boolean;
  }>(`${dir}/sweep_aggregate/decode_itl_surface.json`);
  assert.deepEqual(surface.swept_params, ["phases.profiling.concurrency", "datasets.main.prompts.osl"]);
  assert.equal(surface.surface_fit_failed, false);
  assert.deepEqual(surface.surface.concurrency_axis, [1, 2]);
  assert.deepEqual(surface.surface.osl_axis, [4, 8]);
  for (const row of surface.surface.itl_grid) {
    for (const itl of row) assert.ok(itl !== null && itl > 1 && itl < 40, `ITL ${itl}`);
  }
  for (const d of ["concurrency_1__osl_4", "concurrency_1__osl_8", "concurrency_2__osl_4", "concurrency_2__osl_8"]) {
    assert.ok(await exists(`${dir}/${d}/profile_export_aiperf.json`), d);
  }
  const answer = run.stdout.trimEnd().split("\n").at(-1)!;
  assert.match(answer, /^ITL [\d.]+–[\d.]+ ms over concurrency 1–2 × OSL 4–8 \(4 of 4 cells measured\)$/);
});
