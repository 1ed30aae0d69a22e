/**
 * `infermeter plot` as a user runs it, on real runs made against serve-sim: every PNG decodes and has a chart on it
 * (not blank), SVGs are SVG, and report.html is written beside them.
 */
import assert from "node:assert/strict";
import { assertExit, runCli, tempDir } from "./cli_harness.ts";
import { decodePng, inkStats } from "../report/png_pixels.ts";
import { type InlineChart, validateReportHtml } from "../report/report_validation.ts";
import { cdfPoints, histogram, intervalFor } from "../../src/report/chart_data.ts";

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

/** A run's records as the charts define them, read the plain way (the whole small file, JSON.parse per line). */
function exactCharts(jsonl: string) {
  const value = (r: { metrics: Record<string, { value: unknown }> }, tag: string) => r.metrics[tag]?.value;
  const records = jsonl.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))
    .filter((r) => (r.metadata.benchmark_phase ?? "profiling") === "profiling")
    .map((r) => ({
      start: r.metadata.request_start_ns / 1e6,
      end: r.metadata.request_end_ns / 1e6,
      ok: r.error === undefined || r.error === null,
      ttft: value(r, "time_to_first_token") as number | undefined,
      itl: value(r, "inter_token_latency") as number | undefined,
      latency: value(r, "request_latency") as number | undefined,
      tokens: value(r, "output_sequence_length") as number | undefined,
      gaps: (value(r, "inter_chunk_latency") ?? []) as number[],
    }));
  // A short run's time grid is 1 ms: time 0 is the first send rounded down to the millisecond.
  const origin = Math.floor(Math.min(...records.map((r) => r.start)));
  const ok = records.filter((r) => r.ok);
  const maxEnd = Math.max(...records.map((r) => r.end)) - origin;
  const w = intervalFor(maxEnd / 1000), wMs = w * 1000;
  const n = Math.max(1, Math.ceil(maxEnd / wMs));
  const bucket = (t: number) => Math.min(n - 1, Math.max(0, Math.floor((t - origin) / wMs)));
  const tokens = new Array(n).fill(0), done = new Array(n).fill(0), busy = new Array(n).fill(0);
  for (const r of records) {
    for (let b = bucket(r.start); b <= bucket(r.end); b++) {
      busy[b] += Math.max(0, Math.min(r.end, origin + (b + 1) * wMs) - Math.max(r.start, origin + b * wMs));
    }
    if (!r.ok) continue;
    done[bucket(r.end)]++;
    if (r.tokens === undefined) continue;
    if (r.ttft === undefined) tokens[bucket(r.end)] += r.tokens;
    else {
      let t = r.start + r.ttft;
      const chunks = [t, ...r.gaps.map((g) => (t += g))];
      for (const c of chunks) tokens[bucket(c)] += r.tokens / chunks.length;
    }
  }
  const values = (pick: (r: (typeof ok)[number]) => number | undefined) =>
    ok.map(pick).filter((v): v is number => v !== undefined);
  return {
    ttft: values((r) => r.ttft),
    itl: values((r) => r.itl),
    latency: values((r) => r.latency),
    ttftOverTime: ok.filter((r) => r.ttft !== undefined).map((r) => [(r.start - origin) / 1000, r.ttft!]),
    lengths: ok.filter((r) => r.latency !== undefined && r.tokens !== undefined).map((r) => [r.tokens!, r.latency!]),
    series: [tokens.map((x) => x / w), done.map((x) => x / w), busy.map((x) => x / wMs)],
    w,
  };
}

/** Equal up to the 3-decimal rounding the charts apply (times here come from float milliseconds). */
function assertClose(actual: unknown, expected: unknown, what: string): void {
  if (typeof expected === "number") {
    assert.ok(typeof actual === "number" && Math.abs(actual - expected) <= 0.0011, `${what}: ${actual} vs ${expected}`);
    return;
  }
  assert.ok(Array.isArray(actual) && Array.isArray(expected), what);
  assert.equal(actual.length, expected.length, `${what}: length`);
  expected.forEach((e, i) => assertClose(actual[i], e, `${what}[${i}]`));
}

Deno.test("plot and report.html draw a small run's charts exactly as its records give them", async () => {
  await using tmp = await tempDir();
  const run = await runCli(["plot", `${RUNS}sweep/c4`, "--format", "svg", "-o", `${tmp.path}/out`], { cwd: tmp.path });
  assertExit(run, 0);
  const exact = exactCharts(await Deno.readTextFile(`${RUNS}sweep/c4/profile_export.jsonl`));
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const charts = new Map(
    validateReportHtml(await Deno.readTextFile(`${tmp.path}/out/report.html`)).map((c) => [c.id, c]),
  );
  assert.deepEqual([...charts.keys()], [
    "ttft_distribution",
    "itl_distribution",
    "latency_distribution",
    "ttft_over_time",
    "itl_over_time",
    "throughput_over_time",
    "latency_vs_output_length",
  ]);
  const series = (c: InlineChart | undefined) => (c!.option.series as { data: unknown[] }[]).map((s) => s.data);
  for (const [id, values] of [["ttft", exact.ttft], ["itl", exact.itl], ["latency", exact.latency]] as const) {
    const h = histogram(values);
    const steps = h.counts.map((c, i) => [round(h.edges[i]), c]);
    steps.push([round(h.edges[h.edges.length - 1] + h.width), h.counts[h.counts.length - 1]]);
    const [drawnSteps, drawnCdf] = series(charts.get(`${id}_distribution`));
    assert.deepEqual(drawnSteps, steps, `${id} histogram`);
    assert.deepEqual(drawnCdf, cdfPoints(values), `${id} CDF`);
  }
  assertClose(
    series(charts.get("ttft_over_time"))[0],
    exact.ttftOverTime.map(([x, y]) => [round(x), round(y)]),
    "ttft",
  );
  assertClose(series(charts.get("latency_vs_output_length"))[0], exact.lengths.map(([x, y]) => [x, round(y)]), "len");
  const drawn = series(charts.get("throughput_over_time")) as number[][][];
  exact.series.forEach((ys, k) => {
    const steps = [...ys.map((y, i) => [round(i * exact.w), round(y)]), [
      round(ys.length * exact.w),
      round(ys.at(-1)!),
    ]];
    assertClose(drawn[k], steps, `series ${k}`);
  });
  // The same charts as files.
  const files = [...Deno.readDirSync(`${tmp.path}/out`)].map((e) => e.name).filter((n) => n.endsWith(".svg"));
  assert.deepEqual(files.sort(), [...charts.keys()].map((id) => `${id}.svg`).sort());
});
