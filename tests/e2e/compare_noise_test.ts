/**
 * `compare` knows noise, measured on real runs against real `serve-sim` processes:
 *
 * - Two runs of one configuration (a fresh simulator with the same seed for each, the same prompts, so both runs
 *   see the same jittered latencies and differ only by the machine's own timing) are "≈ same" in every metric:
 *   the jitter (TTFT 600 ms and ITL 300 ms, each with a coefficient of variation of 1) makes each statistic's
 *   interval about two hundred ms wide, well beyond what a busy machine shifts between two runs (tens of ms, once
 *   56 ms at load 9, mostly while a cold process takes its first burst: hence the warm-up and the modest
 *   concurrency).
 * - A real difference (TTFT 50 ms against 250 ms, +400 %) is "worse" with an interval that excludes 0, and a
 *   `--fail-on` change limit well below it fails, one above it does not. (The difference is large because a busy
 *   machine alone moved a 20 ms TTFT's median to 32 ms in one of two runs.) (A limit crossed only within the noise is checked
 *   on fixed runs in `compare_test.ts`, where it cannot depend on the machine.)
 */
import assert from "node:assert/strict";
import { assertExit, runCli, type Sim, startSim, tempDir } from "./cli_harness.ts";

const LOAD = [
  "--endpoint-type",
  "chat",
  "--streaming",
  "--synthetic-input-tokens-mean",
  "20",
  "--extra-inputs",
  "ignore_eos:true",
  "--random-seed",
  "7",
  "--warmup-request-count",
  "32",
  "--ui-type",
  "none",
];

async function profile(sim: Sim, cwd: string, dir: string, extra: readonly string[]): Promise<void> {
  const run = await runCli(
    ["profile", "--url", sim.url, "-m", "sim-model", ...LOAD, ...extra, "--artifact-dir", dir],
    { cwd, timeoutMs: 60_000 },
  );
  assertExit(run, 0);
}

interface JsonRow {
  metric: string;
  stat: string;
  deltas: (number | null)[];
  intervals: ({ low: number; high: number; method: string } | null)[];
  verdicts: (string | null)[];
  noise_known: (boolean | null)[];
}

Deno.test("compare calls two runs of the same configuration the same in every metric", async () => {
  await using tmp = await tempDir();
  const sim = ["--seed", "11", "--ttft", "600", "--ttft-jitter", "1", "--itl", "300", "--itl-jitter", "1"];
  for (const dir of ["a", "b"]) {
    await using server = await startSim(sim);
    await profile(server, tmp.path, dir, ["--concurrency", "16", "--request-count", "64", "--output-tokens-mean", "2"]);
  }
  const cmp = await runCli(["compare", "a", "b", "--json"], { cwd: tmp.path });
  assertExit(cmp, 0);
  const report = JSON.parse(cmp.stdout) as { rows: JsonRow[]; runs: { records: string | null }[] };
  assert.ok(report.runs.every((r) => r.records?.endsWith("profile_export.jsonl")), JSON.stringify(report.runs));
  assert.ok(report.rows.length >= 40, `${report.rows.length} rows`);
  const notSame = report.rows.filter((r) => r.verdicts[1] !== "same");
  assert.deepEqual(notSame, [], "every metric of the same configuration is ≈ same");
  // Distributions and throughputs have real intervals; only counts and the error rate compare as equal values.
  const ttft = report.rows.find((r) => r.metric === "time_to_first_token" && r.stat === "p50")!;
  assert.equal(ttft.intervals[1]?.method, "bootstrap");
  assert.ok(ttft.intervals[1]!.high - ttft.intervals[1]!.low > 50, JSON.stringify(ttft));
  const rps = report.rows.find((r) => r.metric === "request_throughput")!;
  assert.equal(rps.intervals[1]?.method, "batch-means");

  const table = await runCli(["compare", "a", "b", "--console-width", "200"], { cwd: tmp.path });
  assertExit(table, 0);
  assert.match(table.stdout, /Time to First Token \(ms\) │ avg .*≈ same/);
  assert.match(table.stdout, /^95% CI: interval of the difference/m);
  assert.doesNotMatch(table.stdout, /better|worse/);
});

Deno.test("compare reports a real TTFT difference as worse, its interval excluding 0, and --fail-on fails on it", async () => {
  await using tmp = await tempDir();
  const common = ["--seed", "3", "--itl", "2", "--ttft-jitter", "0.1"];
  for (const [dir, ttft] of [["fast", "50"], ["slow", "250"]]) {
    await using server = await startSim([...common, "--ttft", ttft]);
    await profile(server, tmp.path, dir, ["--concurrency", "8", "--request-count", "64", "--output-tokens-mean", "6"]);
  }
  const cmp = await runCli(
    ["compare", "fast", "slow", "--json", "--fail-on", "ttft.p50>+100%", "--fail-on", "ttft.p50>+1000%"],
    { cwd: tmp.path },
  );
  assertExit(cmp, 5);
  const report = JSON.parse(cmp.stdout) as { rows: JsonRow[]; breaches: { condition: string }[] };
  for (const stat of ["avg", "p50", "p90"]) {
    const row = report.rows.find((r) => r.metric === "time_to_first_token" && r.stat === stat)!;
    assert.equal(row.verdicts[1], "worse", JSON.stringify(row));
    const i = row.intervals[1]!;
    // Around +200 ms (a busy machine widens it), and far from 0.
    assert.ok(i.low > 100 && i.high < 700, `TTFT ${stat}: ${JSON.stringify(i)} around +200 ms, excluding 0`);
  }
  assert.deepEqual(report.breaches.map((b) => b.condition), ["ttft.p50>+100%"]);
});

Deno.test("compare without per-request records says the interval is unknown and marks the plain difference", async () => {
  await using tmp = await tempDir();
  for (const [dir, ttft] of [["a", "20"], ["b", "120"]]) {
    await using server = await startSim(["--seed", "5", "--itl", "1", "--ttft", ttft]);
    await profile(server, tmp.path, dir, [
      "--concurrency",
      "4",
      "--request-count",
      "16",
      "--output-tokens-mean",
      "6",
      "--export-level",
      "summary",
    ]);
  }
  const cmp = await runCli(["compare", "a", "b", "--console-width", "200", "--fail-on", "ttft.avg>+10%"], {
    cwd: tmp.path,
  });
  assertExit(cmp, 5);
  assert.match(cmp.stdout, /Time to First Token \(ms\) │ avg .* - │ .*worse †/);
  assert.match(cmp.stdout, /^† no interval \(the baseline has no per-request records\): a plain difference/m);
  assert.match(cmp.stderr, /^FAIL ttft\.avg>\+10%: .*no interval: the baseline has no per-request records/m);
});
