/**
 * A run long enough for its columns to use the spill file: the statistics read back from disk are those of every
 * value the records carry, and the file is gone afterwards.
 */
import assert from "node:assert/strict";
import { SPILL_FILE_NAME } from "../../src/metrics/column_spill.ts";
import { DEFAULT_SPILL_AT } from "../../src/metrics/float64_column.ts";
import { computeStatsInPlace } from "../../src/metrics/stats.ts";
import { assertExit, exists, readJson, runCli, startSim, tempDir } from "./cli_harness.ts";

type Stat = Record<string, number>;

Deno.test("a run whose columns spill to disk reports the statistics of every record's values", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "1", "--itl", "0.02"]);
  // 4,500 answers of 32 tokens: 139,500 chunk gaps, several times what a column holds in memory before it spills.
  const run = await runCli([
    "profile",
    ..."-m m --ui none --streaming --concurrency 32 --request-count 4500".split(" "),
    ..."--synthetic-input-tokens-mean 20 --output-tokens-mean 32 --output-tokens-stddev 0".split(" "),
    "--url",
    sim.url,
    "--artifact-dir",
    "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  const out = `${tmp.path}/out`;
  const log = await Deno.readTextFile(`${out}/logs/infermeter.log`);
  const held = Number(/long columns held (\d+) bytes/.exec(log)?.[1] ?? 0);
  // At least the chunk gaps' first segment (single precision: 4 bytes a value).
  assert.ok(held >= DEFAULT_SPILL_AT * 4, `the spill file held ${held} bytes`);
  assert.ok(!(await exists(`${out}/${SPILL_FILE_NAME}`)), "the spill file was left behind");
  const gaps: number[] = [], latencies: number[] = [];
  for (const line of (await Deno.readTextFile(`${out}/profile_export.jsonl`)).split("\n")) {
    if (line === "") continue;
    const m = JSON.parse(line).metrics;
    if (m.inter_chunk_latency !== undefined) gaps.push(...m.inter_chunk_latency.value);
    if (m.request_latency !== undefined) latencies.push(m.request_latency.value);
  }
  assert.equal(gaps.length, 4500 * 31);
  const summary = await readJson<Record<string, Stat>>(`${out}/profile_export_aiperf.json`);
  // The chunk gaps are kept in single precision (`Float64Column`'s float32 form); the latencies in double.
  const expected = { inter_chunk_latency: Float32Array.from(gaps), request_latency: Float64Array.from(latencies) };
  for (const [tag, values] of Object.entries(expected)) {
    const want = computeStatsInPlace(values)!;
    for (const key of ["avg", "min", "max", "p1", "p50", "p90", "p99", "std", "count", "sum"] as const) {
      assert.equal(summary[tag][key], want[key], `${tag} ${key}`);
    }
  }
});
