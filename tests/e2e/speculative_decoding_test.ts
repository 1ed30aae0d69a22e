/**
 * Speculative decoding as a user meets it: serve-sim reporting vLLM's per-request statistics (every draft of 3
 * accepted), two SPEED-Bench category runs (streamed and not), the Spec Decode section, the JSONL record, the
 * pooled histogram, and speed-bench-report's matrix from the run directories — all against values worked out by hand.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { assertExit, metric, readJson, readJsonl, runCli, startSim, tempDir } from "./cli_harness.ts";

const DATASET = fileURLToPath(new URL("../../datasets/examples/speed_bench/qualitative.jsonl", import.meta.url));

Deno.test("speculative decoding: per-request statistics in every export, and the SPEED-Bench matrix", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--spec-decode-tokens", "3", "--spec-decode-acceptance", "1", "--ttft", "2"]);
  // coding: 8 tokens per answer = steps accepting 3 and 3 → length 4, rate 1.
  // math: 6 tokens = steps accepting 3 and 1 (the last cut to the answer) → length 1 + 4/2 = 3, rate 4/6.
  const runs = [["coding", "8", ["--streaming"]], ["math", "6", []]] as const;
  const stdout: string[] = [];
  for (const [category, osl, extra] of runs) {
    const run = await runCli(
      [
        "profile",
        "--model",
        "sim-model",
        "--url",
        sim.url,
        "--endpoint-type",
        "chat",
        ...extra,
        "--input-file",
        DATASET,
        "--custom-dataset-type",
        `speed_bench_${category}`,
        "--request-count",
        "3",
        "--output-tokens-mean",
        osl,
        "--ui",
        "none",
        "--artifact-dir",
        `${tmp.path}/runs/${category}`,
      ],
      { cwd: tmp.path, timeoutMs: 90_000 },
    );
    assertExit(run, 0);
    stdout.push(run.stdout);
  }
  assert.match(stdout[0], /infermeter \| LLM Metrics: Spec Decode/);
  assert.match(stdout[0], /Acceptance Length \(ratio\) │ +4\.00 │/);
  assert.match(stdout[0], /Accepted drafts per step \(% of steps\): {2}0: 0% {3}1: 0% {3}2: 0% {3}3: 100%/);
  assert.match(stdout[1], /Accepted drafts per step \(% of steps\): {2}0: 0% {3}1: 50% {3}2: 0% {3}3: 50%/);

  const coding = `${tmp.path}/runs/coding`;
  const lines = await readJsonl(`${coding}/profile_export.jsonl`);
  assert.equal(lines.length, 3);
  for (const { record } of lines) {
    const spec = (record as unknown as { spec_decode_acceptance: Record<string, unknown> }).spec_decode_acceptance;
    assert.deepEqual(spec.acceptance_histogram, { "3": 2 });
    assert.deepEqual([spec.num_spec_steps, spec.num_accepted_draft_tokens, spec.completion_tokens], [2, 6, 8]);
  }
  const summary = await readJson(`${coding}/profile_export_aiperf.json`);
  assert.deepEqual(summary.pooled_spec_decode_acceptance_histogram, { "3": 6 });
  assert.equal(metric(summary, "spec_decode_acceptance_length").avg, 4);
  const math = await readJson(`${tmp.path}/runs/math/profile_export_aiperf.json`);
  assert.deepEqual(math.pooled_spec_decode_acceptance_histogram, { "1": 3, "3": 3 });
  assert.equal(metric(math, "spec_decode_token_weighted_acceptance_length").avg, 3);
  assert.ok(Math.abs(metric(math, "spec_decode_overall_draft_acceptance_rate").avg! - 100 * 12 / 18) < 1e-9);

  const report = await runCli(["speed-bench-report", "runs", "--format", "both"], { cwd: tmp.path });
  assertExit(report, 0);
  assert.match(report.stdout, /Found 2 run directories\./);
  assert.match(report.stdout, /│ sim-model │ +4\.00 │ +3\.00 │ +3\.50 │/);
  assert.equal(
    await Deno.readTextFile(`${tmp.path}/speed_bench_report.csv`),
    "Model,coding,math,Overall\r\nsim-model,4.00,3.00,3.50\r\n",
  );
  const rate = await runCli(
    [
      "speed-bench-report",
      "runs/coding",
      "runs/math",
      "--metric",
      "accept_rate",
      "--format",
      "csv",
      "--output",
      "r.csv",
    ],
    { cwd: tmp.path },
  );
  assertExit(rate, 0);
  assert.doesNotMatch(rate.stdout, /Acceptance Rate Report/);
  assert.equal(
    await Deno.readTextFile(`${tmp.path}/r.csv`),
    "Model,coding,math,Overall\r\nsim-model,1.00,0.67,0.83\r\n",
  );
});
