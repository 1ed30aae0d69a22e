/**
 * Captured traffic replayed end to end: SageMaker Data Capture partitions through the real CLI against `serve-sim`,
 * on their recorded schedule, each captured conversation sent as written.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, readJson, runCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";

const CAPTURE = new URL("../../datasets/examples/sagemaker_capture", import.meta.url).pathname;

Deno.test("a SageMaker capture directory replays on its schedule with the captured messages and tools", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", "1", "--itl", "1", "--record-requests", journal]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "sim-model", "--url", sim.url, "--input-file", CAPTURE, "--fixed-schedule",
    "--streaming", "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  assert.match(run.stderr, /sagemaker_data_capture: 3 requests in 3 sessions/);
  const summary = await readJson(join(tmp.path, "out", "profile_export_aiperf.json"));
  assert.equal((summary.request_count as { avg: number }).avg, 3);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === "/v1/chat/completions");
  assert.equal(sent.length, 3);
  const bodies = sent.map((e) => e.body as { model: string; messages: { role: string }[]; tools?: unknown[] });
  assert.ok(bodies.every((b) => b.model === "sim-model"));
  assert.deepEqual(bodies.map((b) => b.messages.map((m) => m.role).join(",")), [
    "system,user",
    "user",
    "user,assistant,tool",
  ]);
  assert.equal(bodies[2].tools?.length, 1);
  // The recorded gaps (0.75 s, then 1.5 s) are kept, within a loaded machine's stalls and the first request's
  // connection set-up (it may reach the server late, which shortens the gaps seen there).
  const gap = (i: number) => sent[i].received_at_ms - sent[0].received_at_ms;
  assert.ok(gap(1) >= 500 && gap(1) < 1500 && gap(2) >= 2000 && gap(2) < 3500, `${gap(1)} ms, ${gap(2)} ms`);
});

Deno.test("a Baseten Parquet trace replays its prompts verbatim with their KV hints, sped up", async () => {
  const trace = new URL("../../datasets/examples/baseten_trace.parquet", import.meta.url).pathname;
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", "1", "--itl", "1", "--record-requests", journal]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "sim-model", "--url", sim.url, "--endpoint-type", "completions",
    "--input-file", trace, "--fixed-schedule", "--replay-speedup", "100", "--max-idle-gap-cap-seconds", "0.2",
    "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  assert.match(run.stderr, /baseten_trace: 6 requests in 4 sessions/);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === "/v1/completions");
  const bodies = sent.map((e) => e.body as Record<string, unknown>);
  assert.equal(bodies.length, 6);
  const second = bodies.find((b) => String(b.prompt).startsWith("Continue the haiku"))!;
  assert.equal(second.max_tokens, 24);
  assert.equal(second.min_tokens, 24);
  assert.deepEqual(second.hash_ids, [11, 12, 13]);
  assert.equal(second.block_size, 64);
  // 65 s of trace at 100× with idle gaps cut to 0.2 s: well under 2 s from first to last.
  const span = sent[sent.length - 1].received_at_ms - sent[0].received_at_ms;
  // Back to back it would be a few ms; a busy machine may send the first late and the rest on their absolute times.
  assert.ok(span >= 120 && span < 2000, `${span} ms`);

  const other = await runCli(
    ["profile", "-m", "m", "--input-file", trace, "--custom-dataset-type", "mooncake_trace", "--omit-kv-hints"],
    { cwd: tmp.path },
  );
  assertExit(other, 2);
  assert.match(other.stderr, /--omit-kv-hints.*baseten_trace/);
});
