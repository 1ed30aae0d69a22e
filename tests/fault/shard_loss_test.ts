/**
 * `profile --workers-mode processes` when one shard process dies: SIGKILL (nothing flushed) or SIGTERM (it sends
 * what it measured). The coordinator keeps every record the shard streamed, writes every export, says the run is
 * partial ("3 of 4 shards") and exits 1; the server's request journal bounds what could have been lost.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { exists, readJson, readJsonl, spawnCli, startSim, tempDir } from "../e2e/cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";

/** The pid of shard `index` of the run writing to `artifactDir` (its command line names both). */
async function shardPid(artifactDir: string, index: number): Promise<number | undefined> {
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    let args: string[];
    try {
      args = (await Deno.readTextFile(`/proc/${e.name}/cmdline`)).split("\0");
    } catch {
      continue;
    }
    const at = args.indexOf("--index");
    if (args.includes("shard") && at > 0 && args[at + 1] === String(index) && args.includes(artifactDir)) {
      return Number(e.name);
    }
  }
  return undefined;
}

async function until(test: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = performance.now() + ms;
  while (!(await test())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function runAndKill(signal: Deno.Signal, index: number) {
  const tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  const sim = await startSim(["--ttft", "20", "--itl", "10", "--record-requests", journal]);
  const out = join(tmp.path, "out");
  // deno-fmt-ignore
  const cli = spawnCli(["profile", "--ui", "none", "-m", "m", "--streaming", "--url", sim.url, "--isl", "16",
    "--osl", "10", "--concurrency", "8", "--benchmark-duration", "4", "--random-seed", "3", "--workers", "4",
    "--workers-mode", "processes", "--artifact-dir", out], { cwd: tmp.path, timeoutMs: 90_000 });
  try {
    await until(() => cli.stderrSoFar().includes("PROFILING") || cli.hasExited(), 60_000, "the profiling phase");
    const pid = await shardPid(out, index);
    assert.ok(pid !== undefined, "the shard process is found");
    // Let every shard stream records for a while first.
    await new Promise((r) => setTimeout(r, 1200));
    Deno.kill(pid, signal);
    const run = await cli.result;
    await sim.stop();
    const received = (await readRequestJournal(journal)).filter((e) => e.method === "POST").length;
    return { run, out, received, dispose: () => tmp[Symbol.asyncDispose]() };
  } catch (err) {
    await cli[Symbol.asyncDispose]();
    await sim.stop();
    await tmp[Symbol.asyncDispose]();
    throw err;
  }
}

async function assertPartialRun(out: string, index: number) {
  for (const f of ["profile_export_aiperf.json", "profile_export_aiperf.csv", "profile_export.jsonl", "inputs.json"]) {
    assert.ok(await exists(join(out, f)), `${f} is written`);
  }
  const records = await readJsonl(join(out, "profile_export.jsonl"));
  const byWorker = Map.groupBy(records, (l) => l.record.metadata.worker_id as string);
  assert.equal(byWorker.size, 4, "every shard's records are there, the lost one's included");
  assert.ok((byWorker.get(`worker_${index}`)?.length ?? 0) > 0);
  // The summary counts the same records (requests a stopping shard cut short are in the JSONL, not counted).
  const summary = await readJson<Record<string, { avg?: number }>>(join(out, "profile_export_aiperf.json"));
  const cut = records.filter((l) => l.record.metadata.was_cancelled === true).length;
  assert.equal(summary.request_count?.avg, records.length - cut);
  return records.length;
}

Deno.test({
  name: "kill -9 of one shard process: what it streamed is kept, every export written, partial run, exit 1",
  sanitizeResources: false,
  fn: async () => {
    const { run, out, received, dispose } = await runAndKill("SIGKILL", 2);
    try {
      assert.equal(run.code, 1, run.stderr);
      assert.match(
        run.stderr,
        /partial run: 3 of 4 shards ran to their end; shard 2 was killed by SIGKILL \(\d+ records kept\)/,
      );
      const recorded = await assertPartialRun(out, 2);
      // Lost at most: the killed shard's requests in flight (concurrency 8 over 4 shards) and one unsent batch.
      assert.ok(received - recorded >= 0 && received - recorded <= 4, `received ${received}, recorded ${recorded}`);
    } finally {
      await dispose();
    }
  },
});

Deno.test({
  name: "kill -TERM of one shard process: it sends what it measured, the run is marked partial with a warning",
  sanitizeResources: false,
  fn: async () => {
    const { run, out, received, dispose } = await runAndKill("SIGTERM", 1);
    try {
      assert.equal(run.code, 1, run.stderr);
      assert.match(
        run.stderr,
        /partial run: 3 of 4 shards ran to their end; shard 1 was stopped by SIGTERM \(\d+ records kept\)/,
      );
      assert.match(run.stderr, /shard 1 of 4: SIGTERM received; stopping and sending what it measured/);
      const recorded = await assertPartialRun(out, 1);
      // The stopped shard recorded even the requests it cut short: every request the server saw is recorded.
      assert.equal(recorded, received);
    } finally {
      await dispose();
    }
  },
});
