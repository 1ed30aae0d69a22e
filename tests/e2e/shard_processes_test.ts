/**
 * Shards as processes: `profile --workers-mode processes` runs `infermeter shard` children and merges their records;
 * with the same seed they send what in-process Worker shards send (same sessions, same conversations, same shard),
 * and `infermeter shard` alone writes its JSON lines to a file.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, readJson, readJsonl, runCli, startSim, tempDir } from "./cli_harness.ts";
import { decodeEventLine } from "../../src/engine/shard_lines.ts";

Deno.test("profile --workers-mode processes sends what Worker shards send and merges every record", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "5", "--itl", "1"]);
  // deno-fmt-ignore
  const common = ["profile", "--ui", "none", "-m", "m", "--streaming", "--url", sim.url, "--isl", "16", "--osl", "4",
    "--concurrency", "6", "--request-count", "30", "--random-seed", "11", "--workers", "2"];
  const sent = async (mode: string) => {
    const run = await runCli([...common, "--workers-mode", mode, "--artifact-dir", join(tmp.path, mode)], {
      cwd: tmp.path,
      timeoutMs: 60_000,
    });
    assertExit(run, 0);
    const lines = await readJsonl(join(tmp.path, mode, "profile_export.jsonl"));
    const summary = await readJson<{ infermeter: Record<string, unknown> }>(
      join(tmp.path, mode, "profile_export_aiperf.json"),
    );
    const keys = lines.map(({ record: { metadata: m } }) => `${m.session_num}:${m.conversation_id}:${m.worker_id}`);
    return { keys: keys.sort(), summary };
  };
  const threads = await sent("threads");
  const processes = await sent("processes");
  assert.equal(threads.keys.length, 30);
  assert.deepEqual(processes.keys, threads.keys);
  const layout = processes.summary.infermeter.engine_layout as Record<string, unknown>;
  assert.equal(layout.mode, "processes");
  const children = processes.summary.infermeter.shard_processes as { peak_rss_bytes: number }[];
  assert.equal(children.length, 2);
  assert.ok(children.every((c) => c.peak_rss_bytes > 0));
});

Deno.test("infermeter shard --records-out writes hello … done with every record of its share", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "2", "--itl", "1"]);
  const out = join(tmp.path, "shard1.jsonl");
  // deno-fmt-ignore
  const run = await runCli(["shard", "--index", "1", "--of", "3", "--start-at", "now", "--records-out", out,
    "-m", "m", "--streaming", "--url", sim.url, "--isl", "8", "--osl", "3", "--concurrency", "3",
    "--request-count", "9", "--random-seed", "4"], { cwd: tmp.path, timeoutMs: 60_000 });
  assertExit(run, 0);
  const messages = (await Deno.readTextFile(out)).trimEnd().split("\n").map((l, i) => decodeEventLine(l, i + 1));
  assert.deepEqual(messages.slice(0, 3).map((m) => m.type), ["hello", "ready", "started"]);
  assert.equal(messages[messages.length - 1].type, "done");
  const records = messages.flatMap((m) => m.type === "records" ? m.records : []);
  assert.equal(records.length, 3);
  assert.ok(records.every((r) => r.workerId === "worker_1" && r.error === undefined));

  const bad = await runCli(["shard", "--index", "3", "--of", "3", "-m", "m", "--url", sim.url], { cwd: tmp.path });
  assertExit(bad, 2);
  assert.match(bad.stderr, /--index <K> must be 0 … 2/);
});
