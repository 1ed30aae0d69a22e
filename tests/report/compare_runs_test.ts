import assert from "node:assert/strict";
import { compareRuns } from "../../src/report/compare_runs.ts";
import { renderCompareTable, runLetter } from "../../src/report/compare_table.ts";
import { runWith } from "./run_fixture.ts";

Deno.test("compareRuns: each run's value, its change from the first and the relative change", () => {
  const a = runWith({ avg: 40, p50: 38, p99: 80 }, 200);
  const b = runWith({ avg: 50, p50: 38, p99: 60 }, 250);
  const rows = compareRuns([a, b], { stats: ["avg", "p99"] });
  const ttft = rows.filter((r) => r.tag === "time_to_first_token");
  assert.deepEqual(ttft.map((r) => r.stat), ["avg", "p99"]);
  assert.deepEqual(ttft[0].values, [40, 50]);
  assert.deepEqual(ttft[0].deltas, [undefined, 10]);
  assert.deepEqual(ttft[0].relatives, [undefined, 0.25]); // (50 − 40) / 40
  assert.deepEqual(ttft[1].relatives, [undefined, -0.25]); // (60 − 80) / 80
  assert.equal(ttft[0].better, -1);
  const tps = rows.find((r) => r.tag === "output_token_throughput")!;
  assert.equal(tps.stat, "value"); // single-valued: avg only, shown as the value
  assert.deepEqual(tps.relatives, [undefined, 0.25]);
  assert.equal(tps.better, 1);
});

Deno.test("compareRuns: a metric one run lacks shows no value and no change", () => {
  const a = runWith({ avg: 40 }, 200);
  const b = runWith({ avg: 40 }, 200, { time_to_first_token: undefined });
  const row = compareRuns([a, b], { stats: ["avg"] }).find((r) => r.tag === "time_to_first_token")!;
  assert.deepEqual(row.values, [40, undefined]);
  assert.deepEqual(row.deltas, [undefined, undefined]);
});

Deno.test("renderCompareTable: change columns name the direction, zero baselines give no percentage", () => {
  const a = runWith({ avg: 40, p99: 0 }, 200);
  const b = runWith({ avg: 30, p99: 0 }, 190);
  const table = renderCompareTable(compareRuns([a, b], { stats: ["avg", "p99"] }), 2);
  assert.match(table, /Time to First Token \(ms\) │ avg\s+│\s+40\.00 │\s+30\.00 │\s+-10\.00 │ -25\.0% better │/);
  assert.match(table, /│ p99\s+│\s+0\.00 │\s+0\.00 │\s+±0\.00 │\s+- │/);
  assert.match(
    table,
    /Output Token Throughput \(tokens\/sec\) │ value │ 200\.00 │ 190\.00 │ -10\.00 │\s+-5\.0% worse │/,
  );
});

Deno.test("runLetter: A … Z, then AA", () => {
  assert.deepEqual([0, 1, 25, 26, 27].map(runLetter), ["A", "B", "Z", "AA", "AB"]);
});
