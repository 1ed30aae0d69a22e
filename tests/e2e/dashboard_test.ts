/** `--ui dashboard` on a pipe, and the HTML report every run writes: what a user sees, from the real CLI. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, consoleTableRows, runCli, startSim, tempDir } from "./cli_harness.ts";

Deno.test("profile --ui dashboard on a pipe writes plain status lines (no escapes), and every run writes report.html", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "5", "--itl", "1"]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "-m", "m", "--url", sim.url, "--request-count", "6", "--concurrency", "2", "--osl", "4",
    "--streaming", "--ui", "dashboard", "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  assert.ok(!run.stderr.includes("\x1b"), "no escape codes on a pipe");
  assert.match(
    run.stderr,
    /^profiling \d\d:\d\d 100% done 6 in flight 0 [\d.,]+ req\/s [\d.,]+ tokens\/s TTFT p50 [\d.]+ ms p99 [\d.]+ ms ITL p50 [\d.]+ ms errors 0/m,
  );
  const html = await Deno.readTextFile(join(tmp.path, "out", "report.html"));
  assert.match(html, /^<!DOCTYPE html>/i);
  assert.match(run.stdout, /HTML Report: out\/report\.html/);
});

Deno.test("the dashboard's last frame shows the final table's request and output-token throughput (within 1 %)", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "20", "--itl", "2"]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "-m", "m", "--url", sim.url, "--request-count", "40", "--concurrency", "4", "--osl", "20",
    "--streaming", "--ui", "dashboard", "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  const frames = [...run.stderr.matchAll(/^profiling .* ([\d.,]+) req\/s ([\d.,]+) tokens\/s/gm)];
  const last = frames.at(-1)!;
  const live = { requests: Number(last[1].replaceAll(",", "")), tokens: Number(last[2].replaceAll(",", "")) };
  const rows = consoleTableRows(run.stdout);
  const final = {
    requests: Number(rows.get("Request Throughput (requests/sec)")![0].replaceAll(",", "")),
    tokens: Number(rows.get("Output Token Throughput (tokens/sec)")![0].replaceAll(",", "")),
  };
  for (const key of ["requests", "tokens"] as const) {
    const ratio = live[key] / final[key];
    assert.ok(Math.abs(ratio - 1) <= 0.01, `${key}: live ${live[key]} vs final ${final[key]}`);
  }
});

Deno.test("without a terminal a run prints a plain progress line every --progress-every seconds", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "50", "--itl", "5"]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "-m", "m", "--url", sim.url, "--request-count", "24", "--concurrency", "2", "--osl", "20",
    "--streaming", "--progress-every", "0.2", "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  const lines = run.stderr.split("\n").filter((l) => l.startsWith("Profiling: "));
  assert.ok(lines.length >= 3, run.stderr);
  for (const line of lines) {
    assert.match(
      line,
      /^Profiling: \d+\/24 \(\d+%\) \[\d\d:\d\d<(\d\d:\d\d|\?)\] [\d.,]+ req\/s · [\d,]+ tok\/s · \d+ in flight · \d+ errors?$/,
    );
  }
  assert.match(lines.at(-1)!, /^Profiling: 24\/24 \(100%\)/);
  assert.ok(!run.stderr.includes("\x1b"), "no escape codes on a pipe");
});
