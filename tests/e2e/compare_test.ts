/**
 * `infermeter compare` as CI would run it: the real CLI on real runs (the fixtures were made against serve-sim),
 * exit 5 when a --fail-on condition is met, 0 when none is, 2 for a run that is not there.
 */
import assert from "node:assert/strict";
import { assertExit, runCli, tempDir } from "./cli_harness.ts";
import { validateReportHtml } from "../report/report_validation.ts";

const RUNS = new URL("../fixtures/runs/", import.meta.url).pathname;

Deno.test("compare prints the runs side by side and fails on a crossed threshold", async () => {
  await using tmp = await tempDir();
  // The faster server's TTFT p99 is well below the baseline's: a regression gate passes the other way round only.
  const better = await runCli(
    ["compare", `${RUNS}sweep/c2`, `${RUNS}faster`, "--fail-on", "ttft.p99>+10%"],
    { cwd: tmp.path },
  );
  assertExit(better, 0);
  assert.match(better.stdout, /^A {2}.*sweep\/c2\/profile_export_aiperf\.json \(baseline\)$/m);
  assert.match(better.stdout, /Time to First Token \(ms\) │ avg .*better/);
  assert.match(better.stderr, /All 1 --fail-on conditions passed/);

  const worse = await runCli(
    ["compare", `${RUNS}faster`, `${RUNS}sweep/c2`, "--fail-on", "ttft.p99>+10%", "--json", "--html", "cmp.html"],
    { cwd: tmp.path },
  );
  assertExit(worse, 5);
  const report = JSON.parse(worse.stdout);
  assert.deepEqual(report.breaches.map((b: { run: string }) => b.run), ["B"]);
  const row = report.rows.find((r: { metric: string; stat: string }) =>
    r.metric === "time_to_first_token" && r.stat === "p99"
  );
  assert.ok(row.relative[1] > 0.1, JSON.stringify(row));
  assert.match(worse.stderr, /^FAIL ttft\.p99>\+10%: run B /m);
  const html = await Deno.readTextFile(`${tmp.path}/cmp.html`);
  const charts = validateReportHtml(html);
  assert.ok(charts.some((c) => c.id === "sweep_ttft"), "the HTML form has the comparison charts");
  assert.match(html, /<td class="l">Time to First Token \(ms\)<\/td><td class="l">p99<\/td>/);
});

Deno.test("compare reads a sweep directory as its runs, and rejects what it cannot read with exit 2", async () => {
  await using tmp = await tempDir();
  const sweep = await runCli(["compare", `${RUNS}sweep`, "--metrics", "ttft,rps"], { cwd: tmp.path });
  assertExit(sweep, 0);
  assert.match(sweep.stdout, /^C {2}.*sweep\/c4\//m);
  assert.match(sweep.stdout, /Request Throughput \(req\/s\) │ value/);
  const missing = await runCli(["compare", `${tmp.path}/nope`, `${RUNS}faster`], { cwd: tmp.path });
  assertExit(missing, 2);
  assert.match(missing.stderr, /nope: no such file or directory/);
  const badMetric = await runCli(["compare", `${RUNS}faster`, "--fail-on", "ttfx.p99>1"], { cwd: tmp.path });
  assertExit(badMetric, 2);
  assert.match(badMetric.stderr, /'ttfx' is no metric of these runs; did you mean .*'ttft'/);
});
