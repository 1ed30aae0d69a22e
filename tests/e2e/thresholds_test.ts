/** `profile --threshold` as CI uses it: ✓/✗ in the console, `thresholds` in the JSON, exit 5 on a failure. */
import assert from "node:assert/strict";
import { assertExit, readJson, runCli, startSim, tempDir } from "./cli_harness.ts";

const SMALL = ["-m", "m", "--ui", "none", "--streaming", "--osl", "4", "--isl", "16"];

Deno.test("a failed --threshold exits 5 with the results written; a met one exits 0", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "30", "--itl", "1"]);
  const failed = await runCli([
    "profile",
    ...SMALL,
    "--url",
    sim.url,
    "--request-count",
    "8",
    "--artifact-dir",
    "a",
    "--threshold",
    "ttft.p99<5",
    "--threshold",
    "request_error_rate<1%",
  ], { cwd: tmp.path });
  assertExit(failed, 5);
  assert.match(failed.stdout, /^ {2}✗ ttft\.p99<5: p99 \d+\.\d\d ms$/m);
  assert.match(failed.stdout, /^ {2}✓ request_error_rate<1%: 0\.00 %$/m);
  assert.match(failed.stderr, /1 threshold failed/);
  const json = await readJson<{ thresholds: { threshold: string; ok: boolean; observed: number }[] }>(
    `${tmp.path}/a/profile_export_aiperf.json`,
  );
  assert.deepEqual(json.thresholds.map((t) => [t.threshold, t.ok]), [["ttft.p99<5", false], [
    "request_error_rate<1%",
    true,
  ]]);
  assert.ok(json.thresholds[0].observed >= 30);
  const html = await Deno.readTextFile(`${tmp.path}/a/report.html`);
  assert.match(html, /<li class="fail">ttft\.p99&#60;5: p99/);

  const met = await runCli(
    [
      "profile",
      ...SMALL,
      "--url",
      sim.url,
      "--request-count",
      "8",
      "--artifact-dir",
      "b",
      "--threshold",
      "ttft.p99<5s",
    ],
    { cwd: tmp.path },
  );
  assertExit(met, 0);
  assert.match(met.stdout, /✓ ttft\.p99<5s/);
});

Deno.test("--threshold-abort stops the run at the first failed threshold, writes partial results and exits 5", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "30", "--itl", "1"]);
  const run = await runCli([
    "profile",
    ...SMALL,
    "--url",
    sim.url,
    "--request-count",
    "5000",
    "--concurrency",
    "4",
    "--artifact-dir",
    "a",
    "--threshold",
    "ttft.p50<5",
    "--threshold-abort",
  ], { cwd: tmp.path, timeoutMs: 60_000 });
  assertExit(run, 5);
  assert.match(run.stderr, /threshold ttft\.p50<5 failed while running .*stopping \(--threshold-abort\)/);
  const json = await readJson<{ request_count: { avg: number } }>(`${tmp.path}/a/profile_export_aiperf.json`);
  assert.ok(json.request_count.avg < 5000, `stopped early: ${json.request_count.avg} requests`);
});

Deno.test("a --threshold that cannot be judged is refused before anything is sent (exit 2)", async () => {
  await using tmp = await tempDir();
  const run = await runCli(
    ["profile", ...SMALL, "--url", "http://127.0.0.1:9", "--threshold", "ttft.p99<5%"],
    { cwd: tmp.path },
  );
  assertExit(run, 2);
  assert.match(run.stderr, /--threshold 'ttft\.p99<5%': time_to_first_token is in ms; '%' does not fit it/);
});
