/**
 * `infermeter compare` as CI would run it: the real CLI on real runs (the fixtures were made against serve-sim),
 * exit 5 when a --fail-on condition is met beyond the noise, 0 when none is, 2 for a run that is not there; a
 * sweep directory alone shows each metric against the load.
 */
import assert from "node:assert/strict";
import { assertExit, runCli, tempDir } from "./cli_harness.ts";
import { validateReportHtml } from "../report/report_validation.ts";

const RUNS = new URL("../fixtures/runs/", import.meta.url).pathname;

Deno.test("compare prints the runs side by side and fails on a crossed threshold", async () => {
  await using tmp = await tempDir();
  // The faster server's TTFT p99 is well below the baseline's: a regression gate passes the other way round only.
  const better = await runCli(
    ["compare", `${RUNS}sweep/c2`, `${RUNS}faster`, "--fail-on", "ttft.p50>+10%", "--console-width", "200"],
    { cwd: tmp.path },
  );
  assertExit(better, 0);
  assert.match(better.stdout, /^A {2}.*sweep\/c2\/profile_export_aiperf\.json \(baseline\)$/m);
  assert.match(better.stdout, /Time to First Token \(ms\) │ avg .*\[-\d.*\] │ .*better/);
  assert.match(better.stderr, /All 1 --fail-on conditions passed/);

  // 24 requests a run: TTFT p50 is +54 % beyond the noise, p99 +39 % within it (its interval reaches below +10 %).
  const worse = await runCli(
    [
      "compare",
      `${RUNS}faster`,
      `${RUNS}sweep/c2`,
      "--fail-on",
      "ttft.p50>+10%",
      "--fail-on",
      "ttft.p99>+10%",
      "--json",
      "--html",
      "cmp.html",
    ],
    { cwd: tmp.path },
  );
  assertExit(worse, 5);
  const report = JSON.parse(worse.stdout);
  assert.deepEqual(report.breaches.map((b: { condition: string }) => b.condition), ["ttft.p50>+10%"]);
  assert.deepEqual(report.within_noise.map((b: { condition: string }) => b.condition), ["ttft.p99>+10%"]);
  const row = report.rows.find((r: { metric: string; stat: string }) =>
    r.metric === "time_to_first_token" && r.stat === "p50"
  );
  assert.ok(row.intervals[1].relative_low > 0.1, JSON.stringify(row));
  assert.equal(row.verdicts[1], "worse");
  assert.match(worse.stderr, /^FAIL ttft\.p50>\+10%: run B .*95% CI/m);
  assert.match(worse.stderr, /^NOISE ttft\.p99>\+10%: run B .*within the noise, not failed/m);
  const html = await Deno.readTextFile(`${tmp.path}/cmp.html`);
  const charts = validateReportHtml(html);
  assert.ok(charts.some((c) => c.id === "sweep_ttft"), "the HTML form has the comparison charts");
  assert.match(html, /<td class="l">Time to First Token \(ms\)<\/td><td class="l">p99<\/td>/);
  assert.match(html, /≈ same/);
});

Deno.test("compare shows a sweep's points against the load, and rejects what it cannot read with exit 2", async () => {
  await using tmp = await tempDir();
  const sweep = await runCli(["compare", `${RUNS}sweep`, "--console-width", "200"], { cwd: tmp.path });
  assertExit(sweep, 0);
  assert.match(sweep.stdout, /Sweep: .*sweep \(3 points\)/);
  assert.match(sweep.stdout, /┃ Point\s+┃ Concurrency ┃ TTFT p50 \(ms\) ┃ TTFT p99 \(ms\) ┃/);
  const rows = sweep.stdout.split("\n").filter((l) => /^│ c\d/.test(l)).map((l) => l.split("│")[2].trim());
  assert.deepEqual(rows, ["1", "2", "4"], "one row per point, in load order");
  assert.doesNotMatch(sweep.stdout, /better|worse|%/, "never a change against the first point");
  const json = await runCli(["compare", `${RUNS}sweep`, "--metrics", "ttft,rps", "--stats", "p50", "--json"], {
    cwd: tmp.path,
  });
  assertExit(json, 0);
  const table = JSON.parse(json.stdout).sweep;
  assert.deepEqual(table.columns.map((c: { metric: string; stat: string }) => `${c.metric}.${c.stat}`), [
    "time_to_first_token.p50",
    "request_throughput.avg",
  ]);
  assert.deepEqual(table.points.map((p: { load: number }) => p.load), [1, 2, 4]);
  const relative = await runCli(["compare", `${RUNS}sweep`, "--fail-on", "ttft.p99>+10%"], { cwd: tmp.path });
  assertExit(relative, 2);
  assert.match(relative.stderr, /a sweep's points are not variants of its first point/);
  const missing = await runCli(["compare", `${tmp.path}/nope`, `${RUNS}faster`], { cwd: tmp.path });
  assertExit(missing, 2);
  assert.match(missing.stderr, /nope: no such file or directory/);
  const badMetric = await runCli(["compare", `${RUNS}faster`, "--fail-on", "ttfx.p99>1"], { cwd: tmp.path });
  assertExit(badMetric, 2);
  assert.match(badMetric.stderr, /'ttfx' is no metric of these runs; did you mean .*'ttft'/);
});
