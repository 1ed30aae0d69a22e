/**
 * Every run directory says what it holds (`run_manifest.json`), and the readers use it: `plot` and `compare` take a
 * sweep directory, report.html names the tool that produced the run, and a run's prefixed exports are found.
 */
import assert from "node:assert/strict";
import { SPILL_FILE_NAME } from "../../src/metrics/column_spill.ts";
import { assertExit, exists, readJson, runCli, startSim, tempDir } from "./cli_harness.ts";

const FAST_SIM = ["--ttft", "2", "--itl", "0.1"];
const SMALL = ["-m", "m", "--ui", "none", "--synthetic-input-tokens-mean", "20", "--output-tokens-mean", "8"];

interface Manifest {
  producer: string;
  version: string;
  schema_version: number;
  kind: string;
  files: { role: string; label: string; path: string }[];
  points?: { label: string; dir: string; values: Record<string, number>; end: string }[];
}

Deno.test("a run writes a manifest of every file by role, and its report names infermeter and its version", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(FAST_SIM);
  const run = await runCli(
    [
      "profile",
      ...SMALL,
      "--url",
      sim.url,
      "--request-count",
      "4",
      "--artifact-dir",
      "out",
      "--profile-export-prefix",
      "my",
    ],
    { cwd: tmp.path },
  );
  assertExit(run, 0);
  const manifest = await readJson<Manifest>(`${tmp.path}/out/run_manifest.json`);
  assert.equal(manifest.producer, "infermeter");
  assert.equal(manifest.kind, "run");
  assert.match(manifest.version, /^\d+\.\d+\.\d+/);
  const byRole = Object.fromEntries(manifest.files.map((f) => [f.role, f.path]));
  assert.equal(byRole.summary_json, "my.json");
  assert.equal(byRole.summary_csv, "my.csv");
  assert.equal(byRole.records_jsonl, "my.jsonl");
  assert.equal(byRole.console_txt, "my_console.txt");
  assert.equal(byRole.report_html, "report.html");
  assert.equal(byRole.inputs_json, "inputs.json");
  assert.equal(byRole.log, "logs/infermeter.log");
  for (const f of manifest.files) assert.ok(await exists(`${tmp.path}/out/${f.path}`), f.path);
  // The lock is released and never listed; no temporary file is left behind.
  assert.ok(!manifest.files.some((f) => f.path.includes("lock")));
  assert.deepEqual([...Deno.readDirSync(`${tmp.path}/out`)].filter((e) => e.name.endsWith(".tmp")), []);
  // Nor the columns' spill file (removed when the run ends).
  assert.ok(!(await exists(`${tmp.path}/out/${SPILL_FILE_NAME}`)), "the spill file was left behind");
  const html = await Deno.readTextFile(`${tmp.path}/out/report.html`);
  assert.ok(html.includes(`Produced by</dt><dd>infermeter ${manifest.version}</dd>`));
  // The footers list the report with the other files: the console's, and the report's own.
  assert.match(run.stdout, /HTML Report: out\/report\.html/);
  assert.match(html, /<p>JSONL Export: out\/my\.jsonl<\/p>/);
  assert.match(html, /<p>Log File: out\/logs\/infermeter\.log<\/p>/);
  // The report's charts came from the prefixed JSONL the manifest names.
  assert.doesNotMatch(html, /No per-request records/);
});

Deno.test("plot and compare take a sweep directory: its manifest lists the points in order", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(FAST_SIM);
  const run = await runCli(
    ["profile", ...SMALL, "--url", sim.url, "--request-count", "6", "--concurrency", "1,4,16", "--artifact-dir", "sw"],
    { cwd: tmp.path, timeoutMs: 60_000 },
  );
  assertExit(run, 0);
  const manifest = await readJson<Manifest>(`${tmp.path}/sw/run_manifest.json`);
  assert.equal(manifest.kind, "sweep");
  assert.deepEqual(manifest.points?.map((p) => [p.dir, p.values.concurrency, p.end]), [
    ["concurrency_1", 1, "completed"],
    ["concurrency_4", 4, "completed"],
    ["concurrency_16", 16, "completed"],
  ]);
  assert.deepEqual(manifest.files.map((f) => f.role).sort(), ["report_html", "sweep_csv", "sweep_json"]);
  // One headline per point and one summary table: the whole sweep reads in a screenful.
  assert.ok(run.stdout.trimEnd().split("\n").length <= 30, run.stdout);
  assert.equal(run.stdout.match(/^infermeter \| 6 ok, 0 failed/gm)?.length, 3);
  assert.match(run.stdout, /infermeter \| Sweep Summary/);
  const report = await Deno.readTextFile(`${tmp.path}/sw/report.html`);
  assert.match(report, /infermeter sweep — 3 points/);
  assert.match(report, /concurrency_16/);
  const compare = await runCli(["compare", "sw"], { cwd: tmp.path });
  assertExit(compare, 0);
  assert.match(compare.stdout, /concurrency_1/);
  assert.match(compare.stdout, /concurrency_16/);
  const plot = await runCli(["plot", "sw", "--format", "svg"], { cwd: tmp.path, timeoutMs: 120_000 });
  assertExit(plot, 0);
  assert.ok(await exists(`${tmp.path}/sw/plots/report.html`));
  assert.ok(await exists(`${tmp.path}/sw/plots/sweep_latency.svg`));
});

Deno.test("--console compact shows the headline and AIPerf's main table; full every table; aiperf no headline", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(FAST_SIM);
  const run = (mode: string) =>
    runCli(["profile", ...SMALL, "--url", sim.url, "--request-count", "4", "--artifact-dir", mode, "--console", mode], {
      cwd: tmp.path,
    });
  const [compact, full, aiperf] = [await run("compact"), await run("full"), await run("aiperf")];
  for (const r of [compact, full, aiperf]) assertExit(r, 0);
  assert.match(compact.stdout, /^infermeter \| 4 ok, 0 failed/);
  assert.match(compact.stdout, /infermeter \| LLM Metrics\n/);
  assert.doesNotMatch(compact.stdout, /LLM Metrics: Effective/);
  assert.match(full.stdout, /^infermeter \| 4 ok, 0 failed/);
  assert.match(full.stdout, /LLM Metrics: Effective/);
  assert.doesNotMatch(aiperf.stdout, /^infermeter \| 4 ok/m);
  assert.match(aiperf.stdout, /LLM Metrics: Effective/);
  // The console file keeps every table whatever the terminal showed.
  assert.match(await Deno.readTextFile(`${tmp.path}/compact/profile_export_console.txt`), /LLM Metrics: Effective/);
});
