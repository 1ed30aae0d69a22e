import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, runCli, tempDir } from "../e2e/cli_harness.ts";
import { analyzeTrace, metricStats } from "../../src/dataset/trace_analysis.ts";
import { pythonFixed2 } from "../../src/cli/analyze_trace.ts";

// Written by scripts/gen/analyze_trace_fixtures.py: the trace, and AIPerf 0.13's own analysis of it.
const FIXTURES = new URL("../fixtures/analyze_trace/", import.meta.url).pathname;

Deno.test("analyze-trace reports what AIPerf reports for the same trace: JSON values and console table", async () => {
  await using tmp = await tempDir();
  const out = join(tmp.path, "reports", "analysis.json");
  const run = await runCli(
    ["analyze-trace", `${FIXTURES}trace.jsonl`, "--block-size", "64", "--output-file", out],
    { cwd: tmp.path },
  );
  assertExit(run, 0);
  const ours = JSON.parse(await Deno.readTextFile(out));
  const theirs = JSON.parse(await Deno.readTextFile(`${FIXTURES}trace.aiperf.json`));
  assert.deepEqual(Object.keys(ours), Object.keys(theirs), "AIPerf's fields, in its order");
  // Equal to the last bits: AIPerf sums with numpy's pairwise summation and statistics.mean's exact fractions.
  const close = (a: unknown, b: unknown, at: string): void => {
    if (typeof b === "number") {
      assert.ok(typeof a === "number" && Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)), `${at}: ${a} vs ${b}`);
    } else if (b !== null && typeof b === "object") {
      for (const [k, v] of Object.entries(b)) close((a as Record<string, unknown>)[k], v, `${at}.${k}`);
    } else assert.equal(a, b, at);
  };
  close(ours, theirs, "analysis");
  const aiperfText = (await Deno.readTextFile(`${FIXTURES}trace.aiperf.txt`)).split("\n").map((l) => l.trimEnd());
  const ourText = run.stdout.split("\n").map((l) => l.trimEnd());
  for (const line of aiperfText.filter((l) => /^(│|Total|Unique|Prefix)/.test(l))) {
    assert.ok(ourText.includes(line), `AIPerf's line is ours too: ${line}`);
  }
  assert.match(run.stdout, /Analysis report saved to .*analysis\.json/);
});

Deno.test("analyze-trace: a malformed line stops with file:line; a missing file and no operand exit 2", async () => {
  await using tmp = await tempDir();
  const bad = join(tmp.path, "bad.jsonl");
  await Deno.writeTextFile(bad, '{"input_length": 5}\n{"input_length": "five"}\n');
  const run = await runCli(["analyze-trace", bad], { cwd: tmp.path });
  assertExit(run, 2);
  assert.match(run.stderr, /bad\.jsonl:2: "input_length" must be a non-negative integer \(got the string "five"\)/);
  assertExit(await runCli(["analyze-trace", join(tmp.path, "none.jsonl")], { cwd: tmp.path }), 2);
  assertExit(await runCli(["analyze-trace"], { cwd: tmp.path }), 2);
});

Deno.test("trace analysis by hand: shared blocks, context lengths and the infinite-cache hit rate", () => {
  const stats = analyzeTrace([
    { inputLength: 100, outputLength: 10, hashIds: [1, 2] },
    { inputLength: 90, outputLength: 20, hashIds: [1, 3] },
    { inputLength: 100, outputLength: 30, hashIds: [1, 2] },
    { inputLength: 7, outputLength: 0, hashIds: [] },
  ], 64);
  // (0,1) occurs 3×, (1,2) 2×, (1,3) once: line 2 shares one block (64), lines 1 and 3 are all context.
  assert.deepEqual(stats.context_length_stats && [stats.context_length_stats.min, stats.context_length_stats.max], [
    0,
    100,
  ]);
  assert.equal(stats.unique_prompt_length_stats?.max, 26);
  // Hit rates: 0/2, 1/2 (block 1 seen), 2/2.
  assert.equal(stats.cache_hit_rate, 0.5);
  assert.equal(stats.unique_prefixes, 3, "(1), (1,2), (1,3)");
  assert.equal(stats.num_prefix_groups, 1);
  // Prefixes (1) ×3, (1,2) ×2, (1,3) ×1: 5 of 6 occurrences are reused.
  assert.equal(stats.prefix_reuse_ratio, 5 / 6);
  assert.deepEqual(metricStats([1, 2, 3, 4]), {
    mean: 2.5,
    std_dev: Math.sqrt(1.25),
    min: 1,
    p25: 1.75,
    median: 2.5,
    p75: 3.25,
    max: 4,
  });
  assert.deepEqual([0.125, 0.375, 2.675, 1234567.005].map(pythonFixed2), ["0.12", "0.38", "2.67", "1,234,567.00"]);
});

Deno.test("validate mooncake-trace: a trace infermeter replays passes; problems are listed by line, at most 10", async () => {
  await using tmp = await tempDir();
  const ok = await runCli(["validate", "mooncake-trace", "--input", `${FIXTURES}trace.jsonl`], { cwd: tmp.path });
  assertExit(ok, 0);
  assert.match(ok.stdout, /^Validation passed: 40 rows are Mooncake-compatible\.$/m);
  const bad = join(tmp.path, "bad.jsonl");
  const lines = ['{"input_length": 10}', '{"text_input": "x", "input_length": 3}', "not json"];
  for (let i = 0; i < 12; i++) lines.push('{"hash_ids": [1], "text_input": "y"}');
  await Deno.writeTextFile(bad, lines.join("\n") + "\n");
  const run = await runCli(["validate", "mooncake-trace", "--input", bad], { cwd: tmp.path });
  assertExit(run, 1);
  assert.match(run.stdout, /^Validation failed with 10 error\(s\):$/m);
  assert.match(run.stdout, /^ {2}Line 2: "input_length", "text_input" cannot be combined/m);
  assert.match(run.stdout, /^ {2}Line 3: invalid JSON/m);
  assert.match(run.stdout, /^ {2}Line 4: "hash_ids" needs "input_length"/m);
  assert.equal(run.stdout.match(/^ {2}Line /gm)?.length, 10);
  const missing = await runCli(["validate", "mooncake-trace", "--input", join(tmp.path, "none")], { cwd: tmp.path });
  assertExit(missing, 1);
  assert.match(missing.stdout, /Validation failed: .*none is not a file\./);
  const other = await runCli(["validate", "mooncake-trac", "--input", bad], { cwd: tmp.path });
  assertExit(other, 2);
  assert.match(other.stderr, /did you mean 'mooncake-trace'/);
});
