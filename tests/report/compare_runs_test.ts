import assert from "node:assert/strict";
import { compareRuns } from "../../src/report/compare_runs.ts";
import { renderCompareTable, renderNoiseNote, runLetter } from "../../src/report/compare_table.ts";
import type { CompareNoise } from "../../src/report/compare_noise.ts";
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

Deno.test("renderCompareTable: without intervals the verdict is the plain difference, marked †", () => {
  const a = runWith({ avg: 40, p99: 0 }, 200);
  const b = runWith({ avg: 30, p99: 0 }, 199);
  const rows = compareRuns([a, b], { stats: ["avg", "p99"] });
  const table = renderCompareTable(rows, 2);
  assert.match(
    table,
    /Time to First Token \(ms\) │ avg\s+│\s+40\.00 │\s+30\.00 │\s+-10\.00 │\s+- │ -25\.0% better † │/,
  );
  // Equal values are the same, interval or not; a zero baseline has no percentage.
  assert.match(table, /│ p99\s+│\s+0\.00 │\s+0\.00 │\s+±0\.00 │\s+- │\s+≈ same │/);
  // Under 1 % without an interval: the same, marked.
  assert.match(
    table,
    /Output Token Throughput \(tokens\/sec\) │ value │ 200\.00 │ 199\.00 │\s+-1\.00 │\s+- │\s+-0\.5% ≈ same † │/,
  );
  assert.match(renderNoiseNote(rows, 0.95), /^† no interval \(no per-request records were read\): a plain difference/m);
});

Deno.test("compareRuns: a difference whose interval holds 0 is the same; beyond it, better or worse by direction", () => {
  const a = runWith({ avg: 40, p99: 80 }, 200);
  const b = runWith({ avg: 45, p99: 60 }, 250);
  const noise = (half: number): CompareNoise => ({
    level: 0.9,
    recordFiles: [],
    interval: (_need, _i, delta) => ({ low: delta - half, high: delta + half, method: "bootstrap", level: 0.9 }),
  });
  const wide = compareRuns([a, b], { stats: ["avg", "p99"] }, noise(60));
  assert.deepEqual(wide.map((r) => r.verdicts[1]?.word), ["same", "same", "same"]);
  const narrow = compareRuns([a, b], { stats: ["avg", "p99"] }, noise(1));
  // TTFT avg +5 ms (lower is better): worse; p99 −20 ms: better; throughput +50 tokens/s (higher is better): better.
  assert.deepEqual(narrow.map((r) => [r.tag, r.stat, r.verdicts[1]?.word]), [
    ["time_to_first_token", "avg", "worse"],
    ["time_to_first_token", "p99", "better"],
    ["output_token_throughput", "value", "better"],
  ]);
  assert.ok(narrow.every((r) => r.verdicts[1]?.noiseKnown));
  const table = renderCompareTable(narrow, 2, 160, 0.9);
  assert.match(table, /┃\s+90% CI ┃/);
  assert.match(table, /│ avg\s+│\s+40\.00 │\s+45\.00 │\s+\+5\.00 │\s+\[\+4\.00, \+6\.00\] │\s+\+12\.5% worse │/);
});

Deno.test("runLetter: A … Z, then AA", () => {
  assert.deepEqual([0, 1, 25, 26, 27].map(runLetter), ["A", "B", "Z", "AA", "AB"]);
});
