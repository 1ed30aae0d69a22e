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

/** Sends `signal` to the CLI once its stderr matches `ready`; resolves with the time it was sent. */
async function signalWhen(cli: ReturnType<typeof spawnCli>, ready: RegExp, signal: Deno.Signal): Promise<number> {
  const deadline = performance.now() + 30_000;
  while (!ready.test(cli.stderrSoFar()) && !cli.hasExited() && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 200)); // well inside the phase
  const at = performance.now();
  cli.kill(signal);
  return at;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.test(`profile stops within a second at the first ${signal} while loading a large dataset, exit 130`, async () => {
    await using tmp = await tempDir();
    await using sim = await startSim();
    // About 100 MB of single_turn lines: reading, counting and preparing them takes seconds.
    const line = JSON.stringify({ text: "the quick brown fox jumps over the lazy dog ".repeat(25) }) + "\n";
    const chunk = new TextEncoder().encode(line.repeat(10_000));
    const file = await Deno.open(join(tmp.path, "big.jsonl"), { write: true, create: true });
    for (let written = 0; written < 100 * 1024 * 1024; written += chunk.length) await file.write(chunk);
    file.close();
    // deno-fmt-ignore
    await using cli = spawnCli([
      "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--input-file", "big.jsonl",
      "--custom-dataset-type", "single_turn", "--request-count", "5", "--log-level", "debug",
    ], { cwd: tmp.path, timeoutMs: 60_000 });
    const sentAt = await signalWhen(cli, /Tokenizer: /, signal);
    const run = await cli.result;
    const took = performance.now() - sentAt;
    assertExit(run, 130);
    assert.doesNotMatch(run.stderr, /request bodies prepared/, "stopped before the dataset was ready");
    assert.match(run.stderr, /Interrupted before the benchmark started; nothing was sent/);
    assert.ok(took < 1500, `exited ${took.toFixed(0)} ms after the ${signal}`);
  });
}

Deno.test("profile exits 130 at SIGINT while waiting for the model (--wait-for-model-timeout), not 3", async () => {
  await using tmp = await tempDir();
  // Nothing listens on the port: the wait would go on for 60 s.
  const port = (() => {
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const p = (l.addr as Deno.NetAddr).port;
    l.close();
    return p;
  })();
  // deno-fmt-ignore
  await using cli = spawnCli([
    "profile", "--ui", "none", "-m", "m", "--url", `http://127.0.0.1:${port}`, "--request-count", "2",
    "--wait-for-model-timeout", "60", "--wait-for-model-interval", "5",
  ], { cwd: tmp.path, timeoutMs: 60_000 });
  const sentAt = await signalWhen(cli, /Waiting up to 60\.0 s for the server/, "SIGINT");
  const run = await cli.result;
  assertExit(run, 130);
  assert.ok(performance.now() - sentAt < 1500, "stopped within a second and a half");
  assert.doesNotMatch(run.stderr, /not ready within/);
});
