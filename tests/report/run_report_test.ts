import assert from "node:assert/strict";
import { REPORT_FILE, writeRunReport } from "../../src/report/run_report.ts";
import { readRunExport } from "../../src/report/run_export.ts";
import { renderReportHtml } from "../../src/report/report_html.ts";
import { FIXTURE_RUNS } from "./run_fixture.ts";
import { validateReportHtml } from "./report_validation.ts";

async function copyRun(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
}

Deno.test("writeRunReport: one self-contained file with the run's identity, tables, charts and errors", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await copyRun(`${FIXTURE_RUNS}sweep/c4`, dir);
    const { path } = await writeRunReport(dir);
    assert.equal(path, `${dir}/${REPORT_FILE}`);
    const html = await Deno.readTextFile(path);
    const charts = validateReportHtml(html);
    assert.deepEqual(charts.map((c) => c.id), [
      "ttft_distribution",
      "itl_distribution",
      "latency_distribution",
      "ttft_over_time",
      "itl_over_time",
      "throughput_over_time",
      "latency_vs_output_length",
    ]);
    const run = await readRunExport(`${dir}/profile_export_aiperf.json`);
    // The percentile marks are the export's values; the scatter has one point per successful request.
    const ttft = run.metrics.get("time_to_first_token")!.stats;
    const marks = (charts[0].option.series as { markLine?: { data: { name: string; xAxis: number }[] } }[])[0]
      .markLine!.data;
    assert.deepEqual(marks.map((m) => m.name), ["p50", "p90", "p99"]);
    assert.ok(Math.abs(marks[0].xAxis - ttft.p50) < 1e-3);
    const scatter = (charts[3].option.series as { data: unknown[] }[])[0].data;
    assert.equal(scatter.length, run.metrics.get("time_to_first_token")!.stats.count);
    // Identity, command line, the metrics table, the error summary, the console text and the client's cost.
    assert.ok(html.includes(run.benchmarkId!));
    assert.ok(html.includes("--concurrency 4 --request-count 48"));
    assert.match(html, /<td class="l">Time to First Token \(ms\)<\/td><td>[\d.,]+<\/td>/);
    assert.match(
      html,
      /<td>500<\/td><td class="l">Internal Server Error<\/td><td class="l">Simulated internal server error/,
    );
    assert.ok(html.includes("infermeter | LLM Metrics"));
    assert.match(html, /<p>Client CPU: \d+% of one core \(1 engine thread\)<\/p>/);
    // The chart library is inline: the page draws with no network.
    assert.ok(html.length > 1_000_000 && html.includes("echarts"), "the ECharts browser build is inlined");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("renderReportHtml escapes text and keeps inline JSON from closing its script", () => {
  const html = renderReportHtml({
    title: "<b>x</b>",
    sections: [
      { kind: "pre", title: "cmd", text: "--model '</script><script>alert(1)</script>'" },
      { kind: "charts", charts: [{ id: "c", title: "t", option: { title: { text: "</script>" } } }] },
    ],
    footer: [],
  }, "/* chart library */");
  assert.ok(html.includes("<title>&#60;b&#62;x&#60;/b&#62;</title>"));
  assert.ok(!html.includes("<script>alert(1)"));
  const charts = validateReportHtml(html);
  assert.deepEqual(charts[0].option, { title: { text: "</script>" } });
});
