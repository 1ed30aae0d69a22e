/**
 * The token-counting Worker starts before anything is sent but loads its tokenizer at the run's first count, so a
 * run's start does not pay for the tables: every record is still counted, a run with nothing to count ends without
 * loading them, and where the engine has no core to spare the tables load before the first request.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, MAIN_TS, readJsonl, runCli, startSim, tempDir } from "./cli_harness.ts";

const DIR = "artifacts/m-chat-concurrency1";
const ARGS = ["profile", "--ui", "none", "-m", "m", "--streaming", "--isl", "20", "--isl-stddev", "0"];
const COUNTED = ["--osl", "30", "--osl-stddev", "0", "--request-count", "8"];

const hasTaskset = await new Deno.Command("taskset", { args: ["-c", "0", "true"], stdout: "null", stderr: "null" })
  .output().then((o) => o.success, () => false);

async function outputCounts(dir: string): Promise<number[]> {
  const records = (await readJsonl(join(dir, DIR, "profile_export.jsonl"))).map((l) => l.record);
  return records.map((r) => r.metrics.output_token_count.value as number);
}

Deno.test("profile counts every record's output tokens with the counter loading at the first count", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "1", "--itl", "0.2"]);
  const run = await runCli([...ARGS, ...COUNTED, "--url", sim.url], { cwd: tmp.path });
  assertExit(run, 0);
  assert.deepEqual(await outputCounts(tmp.path), new Array(8).fill(30));
});

Deno.test("profile whose every request fails ends without a count, the counter never loaded", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--strict-model", "--models", "other"]);
  const run = await runCli([...ARGS, "--request-count", "4", "--url", sim.url], { cwd: tmp.path });
  assertExit(run, 1); // every request failed (EXIT.REQUESTS_FAILED)
  const records = (await readJsonl(join(tmp.path, DIR, "profile_export.jsonl"))).map((l) => l.record);
  assert.equal(records.length, 4);
  for (const r of records) assert.ok(r.error !== undefined && r.error !== null, JSON.stringify(r));
});

Deno.test({
  name: "profile confined to one core loads the counter's tokenizer before its first request and counts every record",
  ignore: !hasTaskset,
  fn: async () => {
    await using tmp = await tempDir();
    await using sim = await startSim(["--ttft", "1", "--itl", "0.2"]);
    const out = await new Deno.Command("taskset", {
      args: ["-c", "0", Deno.execPath(), "run", "-A", MAIN_TS, ...ARGS, ...COUNTED, "--url", sim.url],
      cwd: tmp.path,
      env: { NO_COLOR: "1", AIPERF_SERVER_METRICS_COLLECTION_FLUSH_PERIOD: "0" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    const log = await Deno.readTextFile(join(tmp.path, DIR, "logs", "infermeter.log"));
    const ready = log.indexOf("token counter ready (waited");
    const started = log.indexOf("profiling phase starts");
    assert.ok(ready >= 0 && started > ready, `the counter is ready before the first request:\n${log}`);
    assert.deepEqual(await outputCounts(tmp.path), new Array(8).fill(30));
  },
});
