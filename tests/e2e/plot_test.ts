/**
 * `infermeter plot` as a user runs it, on real runs made against serve-sim: every PNG decodes and has a chart on it
 * (not blank), SVGs are SVG, and report.html is written beside them.
 */
import assert from "node:assert/strict";
import { assertExit, runCli, tempDir } from "./cli_harness.ts";
import { decodePng, inkStats } from "../report/png_pixels.ts";
import { validateReportHtml } from "../report/report_validation.ts";

const RUNS = new URL("../fixtures/runs/", import.meta.url).pathname;

async function assertChartPng(path: string): Promise<void> {
  const png = await decodePng(await Deno.readFile(path));
  assert.deepEqual([png.width, png.height], [1800, 960], path);
  const { ink, colours } = inkStats(png);
  // Axes, text and data cover a few percent of a chart; a blank or all-black image fails either bound.
  assert.ok(ink > 0.01 && ink < 0.8, `${path}: ${(ink * 100).toFixed(1)}% of its pixels are not white`);
  assert.ok(colours > 8, `${path}: only ${colours} colours`);
}

Deno.test("plot writes one run's charts as PNGs that decode and are not blank, and report.html", async () => {
  await using tmp = await tempDir();
  const run = await runCli(["plot", `${RUNS}sweep/c4`, "--output", `${tmp.path}/out`], {
    cwd: tmp.path,
    timeoutMs: 60_000,
  });
  assertExit(run, 0);
  const names = [...Deno.readDirSync(`${tmp.path}/out`)].map((e) => e.name).sort();
  assert.deepEqual(names, [
    "itl_distribution.png",
    "itl_over_time.png",
    "latency_distribution.png",
    "latency_vs_output_length.png",
    "report.html",
    "throughput_over_time.png",
    "ttft_distribution.png",
    "ttft_over_time.png",
  ]);
  for (const name of names.filter((n) => n.endsWith(".png"))) await assertChartPng(`${tmp.path}/out/${name}`);
  validateReportHtml(await Deno.readTextFile(`${tmp.path}/out/report.html`));
});

Deno.test("plot of a three-point sweep draws percentiles against concurrency and the throughput-latency curve", async () => {
  await using tmp = await tempDir();
  const run = await runCli(["plot", `${RUNS}sweep`, "-o", `${tmp.path}/out`], { cwd: tmp.path, timeoutMs: 120_000 });
  assertExit(run, 0);
  const top = [...Deno.readDirSync(`${tmp.path}/out`)].map((e) => e.name).sort();
  assert.deepEqual(top, [
    "c1",
    "c2",
    "c4",
    "report.html",
    "sweep_itl.png",
    "sweep_latency.png",
    "sweep_throughput.png",
    "sweep_ttft.png",
    "throughput_latency_curve.png",
  ]);
  for (const name of top.filter((n) => n.endsWith(".png"))) await assertChartPng(`${tmp.path}/out/${name}`);
  for (const c of ["c1", "c2", "c4"]) {
    // Each run's own charts (decoded in the test above): present and of a chart's size.
    const files = [...Deno.readDirSync(`${tmp.path}/out/${c}`)];
    assert.equal(files.length, 7, c);
    for (const e of files) assert.ok(Deno.statSync(`${tmp.path}/out/${c}/${e.name}`).size > 10_000, e.name);
  }
  const html = await Deno.readTextFile(`${tmp.path}/out/report.html`);
  const charts = validateReportHtml(html);
  // The points against the load, never a change against the first point.
  assert.match(html, /Against the load/);
  assert.doesNotMatch(html, /% better|% worse| vs A/);
  const curve = charts.find((c) => c.id === "throughput_latency_curve")!;
  const points = (curve.option.series as { data: { name: string }[] }[])[0].data.map((d) => d.name);
  assert.deepEqual(points, ["concurrency 1", "concurrency 2", "concurrency 4"]);
});

Deno.test("plot --format svg writes SVG text, and a path without a run is exit 2", async () => {
  await using tmp = await tempDir();
  const run = await runCli(["plot", `${RUNS}faster`, "--format", "svg", "-o", `${tmp.path}/svg`], { cwd: tmp.path });
  assertExit(run, 0);
  const svg = await Deno.readTextFile(`${tmp.path}/svg/ttft_distribution.svg`);
  assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.ok(svg.includes("Time to first token") && svg.includes("p99"));
  const empty = await runCli(["plot", tmp.path], { cwd: tmp.path });
  assertExit(empty, 2);
  assert.match(empty.stderr, /no profile export \(profile_export_aiperf\.json\) in it or in its subdirectories/);
});
