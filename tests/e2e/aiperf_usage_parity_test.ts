/**
 * Usage details against AIPerf 0.13's own output: infermeter runs the scenarios AIPerf was captured with
 * (`scripts/parity/capture_aiperf.ts`, files in `tests/fixtures/aiperf_0_13/`) against a `serve-sim` that reports
 * OpenAI's usage details, and writes every CSV row, JSON metric and console usage row AIPerf wrote.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runScenario, SCENARIOS } from "../../scripts/parity/harness.ts";
import { compareShapes, csvLabels, jsonMetricKeys } from "../../scripts/parity/compare_exports.ts";
import { tempDir } from "./cli_harness.ts";

const FIXTURES = new URL("../fixtures/aiperf_0_13/", import.meta.url).pathname;

async function compare(name: string) {
  const scenario = SCENARIOS.find((s) => s.name === name)!;
  await using tmp = await tempDir();
  const run = await runScenario(scenario, "infermeter", tmp.path, "aiperf");
  const ours = {
    csv: await Deno.readTextFile(join(run.artifacts, "profile_export_aiperf.csv")),
    json: JSON.parse(await Deno.readTextFile(join(run.artifacts, "profile_export_aiperf.json"))),
    console: run.run.stdout,
  };
  const theirs = {
    csv: await Deno.readTextFile(join(FIXTURES, name, "profile_export_aiperf.csv")),
    json: JSON.parse(await Deno.readTextFile(join(FIXTURES, name, "profile_export_aiperf.json"))),
    console: await Deno.readTextFile(join(FIXTURES, name, "console_stdout.txt")),
  };
  return { ours, theirs, shapes: compareShapes(theirs, ours) };
}

const USAGE_DETAILS = [
  "usage_prompt_cache_read_tokens",
  "total_usage_prompt_cache_read_tokens",
  "overall_usage_prompt_cache_read_pct",
  "usage_accepted_prediction_tokens",
  "usage_rejected_prediction_tokens",
  "total_usage_accepted_prediction_tokens",
  "total_usage_rejected_prediction_tokens",
];

Deno.test("usage details: every CSV row, JSON metric and console usage row AIPerf writes, with the same values", async () => {
  const { ours, theirs, shapes } = await compare("multi_turn_usage");
  for (const m of shapes) assert.deepEqual(m.missing, [], `${m.what} lacks AIPerf's ${m.missing.join(", ")}`);
  const usage = shapes.find((m) => m.what === 'console "LLM Metrics: Usage"')!;
  assert.equal(usage.extra.length, 0, `extra usage rows: ${usage.extra}`);
  assert.ok(usage.sameOrder, "usage rows in AIPerf's order");
  for (const tag of USAGE_DETAILS) assert.ok(tag in theirs.json && tag in ours.json, tag);
  // The same server answers the same prompts: the first turns' cache reads are 0 in both, later turns read the
  // earlier prompt; the overall share is a token-weighted percentage.
  const pct = (doc: Record<string, unknown>) => (doc.overall_usage_prompt_cache_read_pct as { avg: number }).avg;
  const share = (doc: Record<string, unknown>, tag: string) => (doc[tag] as { avg: number }).avg;
  const expected = 100 * share(ours.json, "total_usage_prompt_cache_read_tokens") /
    share(ours.json, "total_usage_prompt_tokens");
  assert.ok(Math.abs(pct(ours.json) - expected) < 1e-9);
  assert.ok(pct(theirs.json) > 30 && pct(ours.json) > 30, `cache share ${pct(theirs.json)} / ${pct(ours.json)}`);
  assert.deepEqual(
    csvLabels(ours.csv).filter((l) => /Prediction|Cache|Audio/.test(l)).sort(),
    csvLabels(theirs.csv).filter((l) => /Prediction|Cache|Audio/.test(l)).sort(),
  );
});

Deno.test("--use-server-token-count: reasoning from the server's details, and no usage-difference metrics", async () => {
  const { ours, theirs, shapes } = await compare("server_token_count");
  for (const m of shapes) assert.deepEqual(m.missing, [], `${m.what} lacks AIPerf's ${m.missing.join(", ")}`);
  for (const tag of ["reasoning_token_count", "total_reasoning_tokens", "usage_reasoning_tokens"]) {
    assert.ok(tag in theirs.json && tag in ours.json, tag);
    assert.equal((ours.json[tag] as { avg: number }).avg, (theirs.json[tag] as { avg: number }).avg, tag);
  }
  const diffs = ["usage_prompt_tokens_diff_pct", "usage_completion_tokens_diff_pct", "usage_discrepancy_count"];
  for (const tag of diffs) {
    assert.ok(!(tag in theirs.json), `AIPerf writes no ${tag} with server counts`);
    assert.ok(!jsonMetricKeys(ours.json).includes(tag), `${tag} is not written with server counts`);
  }
});
