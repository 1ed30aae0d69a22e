/**
 * Ctrl-C during a run: the user still gets the table, the summary files and every completed record, and the
 * exit code says the run was interrupted (130).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  assertExit,
  consoleTableRows,
  exists,
  metric,
  readJson,
  readJsonl,
  spawnCli,
  startSim,
  tempDir,
} from "./cli_harness.ts";

const DIR = "artifacts/m-chat-concurrency1";

/** Lines in `path` (0 while it does not exist). */
async function lineCount(path: string): Promise<number> {
  if (!(await exists(path))) return 0;
  return (await Deno.readTextFile(path)).split("\n").filter((l) => l !== "").length;
}

Deno.test("profile on SIGINT exits 130 and writes the table, the summary and the completed records", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "20", "--itl", "2"]);
  // ~60 ms per request: 2000 requests would take two minutes, so the run is surely still going when interrupted.
  await using cli = spawnCli(
    [
      "profile",
      "--ui",
      "none",
      "-m",
      "m",
      "--streaming",
      "--url",
      sim.url,
      "--isl",
      "20",
      "--osl",
      "20",
      "--request-count",
      "2000",
    ],
    { cwd: tmp.path, timeoutMs: 60_000 },
  );
  const jsonl = join(tmp.path, DIR, "profile_export.jsonl");
  // Records are flushed to the JSONL file about once a second: wait until some completed ones are on disk.
  let seen = 0;
  const deadline = performance.now() + 30_000;
  while ((seen = await lineCount(jsonl)) < 3 && performance.now() < deadline && !cli.hasExited()) {
    await new Promise((r) => setTimeout(r, 100));
  }
  cli.kill("SIGINT");
  const run = await cli.result;
  assert.ok(seen >= 3, `no records on disk before the interrupt (exit ${run.code}); stderr:\n${run.stderr}`);
  assertExit(run, 130);

  assert.ok(consoleTableRows(run.stdout).has("Request Latency (ms)"), "the table is printed");
  assert.match(run.stdout, /\(cancelled early\)/);
  const summary = await readJson(join(tmp.path, DIR, "profile_export_aiperf.json"));
  assert.equal(summary.was_cancelled, true);

  const lines = await readJsonl(jsonl);
  assert.ok(lines.length >= seen, `${lines.length} records after exit, ${seen} before the interrupt`);
  assert.ok(lines.length < 2000);
  const completed = lines.filter((l) => !l.record.metadata.was_cancelled);
  assert.ok(completed.length >= 3);
  for (const { record } of completed) {
    assert.equal(record.error, undefined);
    assert.equal(record.metrics.output_sequence_length.value, 20);
  }
  const errorCount = "error_request_count" in summary ? metric(summary, "error_request_count").avg : 0;
  assert.equal(metric(summary, "request_count").avg, completed.length, "the summary counts the completed records");
  assert.equal(metric(summary, "request_count").avg + errorCount, lines.length, "every record is accounted for");
});
