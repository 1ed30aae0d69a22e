/**
 * Sessions and trace replay seen from the server: what the CLI sent and when is read from `serve-sim`'s request
 * journal, never from infermeter's own logs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, readJsonl, runCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";
import type { JournalEntry } from "../../src/sim/request_journal.ts";

/** The text of the last user message of a chat body. */
function lastUserText(entry: JournalEntry): string {
  const messages = (entry.body as { messages: { role: string; content: string }[] }).messages;
  return messages.at(-1)!.content;
}

Deno.test("a single_turn file with session_id and delay sends each session's lines in order, after the delays", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  // Each answer takes ~160 ms (TTFT 150 ms + 5 tokens × 2 ms): long enough that a line sent after another's answer
  // is told apart from one sent beside it even on a loaded machine.
  await using sim = await startSim(["--ttft", "150", "--itl", "2", "--record-requests", journal]);
  await Deno.writeTextFile(
    join(tmp.path, "sessions.jsonl"),
    [
      { session_id: "a", text: "a1", output_length: 5 },
      { session_id: "b", text: "b1", output_length: 5 },
      { session_id: "a", text: "a2", output_length: 5, delay: 300 },
      { text: "alone", output_length: 5 },
      { session_id: "a", text: "a3", output_length: 5, delay: 100 },
      { session_id: "b", text: "b2", output_length: 5, delay: 200 },
    ].map((r) => JSON.stringify(r)).join("\n") + "\n",
  );
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--input-file", "sessions.jsonl", "--concurrency", "3",
    "--conversation-num", "3",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop(); // flushes the journal
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === "/v1/chat/completions");
  const at = new Map(sent.map((e) => [lastUserText(e), e.received_at_ms]));
  assert.deepEqual([...at.keys()].sort(), ["a1", "a2", "a3", "alone", "b1", "b2"], "each line once");
  // Lines of one session go in order, each after the previous answer (~160 ms) and its delay; nothing waits longer
  // than a second for anything here.
  const gap = (from: string, to: string) => at.get(to)! - at.get(from)!;
  for (const [from, to, delay] of [["a1", "a2", 300], ["a2", "a3", 100], ["b1", "b2", 200]] as const) {
    assert.ok(gap(from, to) >= delay + 150, `${from} → ${to}: ${gap(from, to).toFixed(1)} ms, delay ${delay} ms`);
    assert.ok(gap(from, to) < delay + 1000, `${from} → ${to}: ${gap(from, to).toFixed(1)} ms`);
  }
  // Sessions do not wait for each other: b1 and the lone line go out with a1, well before its answer could arrive.
  assert.ok(Math.abs(gap("a1", "b1")) < 100, `a1 and b1 ${gap("a1", "b1").toFixed(1)} ms apart`);
  assert.ok(Math.abs(gap("a1", "alone")) < 100, `a1 and alone ${gap("a1", "alone").toFixed(1)} ms apart`);
  // Each line is sent as written (no history), and a session keeps one correlation id.
  for (const e of sent) assert.equal((e.body as { messages: unknown[] }).messages.length, 1);
  const correlation = (text: string) => sent.find((e) => lastUserText(e) === text)!.headers["x-correlation-id"];
  assert.equal(correlation("a1"), correlation("a3"));
  assert.equal(correlation("b1"), correlation("b2"));
  assert.notEqual(correlation("a1"), correlation("b1"));
  // The records say the same.
  const records = await readJsonl(join(tmp.path, "artifacts/m-chat-concurrency3/profile_export.jsonl"));
  assert.equal(records.length, 6);
});

Deno.test("a timestamped file is replayed on its schedule: each conversation starts at its timestamp", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", "20", "--itl", "1", "--record-requests", journal]);
  await Deno.writeTextFile(
    join(tmp.path, "trace.jsonl"),
    [
      { timestamp: 0, text: "t0", output_length: 3 },
      { timestamp: 800, text: "t800", output_length: 3 },
      { timestamp: 300, text: "t300", output_length: 3 },
      { timestamp: 300, text: "t300b", output_length: 3 },
    ].map((r) => JSON.stringify(r)).join("\n") + "\n",
  );
  const run = await runCli(["profile", "--ui", "none", "-m", "m", "--url", sim.url, "--input-file", "trace.jsonl"], {
    cwd: tmp.path,
  });
  assertExit(run, 0);
  assert.match(run.stderr, /trace replay/);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === "/v1/chat/completions");
  const at = new Map(sent.map((e) => [lastUserText(e), e.received_at_ms]));
  // Spaced as their timestamps say (the first request also opens the connection, so measure from the later ones),
  // not one after another: the default concurrency does not cap a replay.
  const spacing = (a: string, b: string) => at.get(b)! - at.get(a)!;
  // One after another they would be ~20 ms apart (the TTFT); on schedule 500, 0 and 300. The bounds leave room for a
  // busy machine to send one late (the schedule is absolute, so a late send shortens the next gap), never for a
  // replay that ignores the timestamps; that each send is never early is the trace-replay test's.
  assert.ok(
    spacing("t300", "t800") > 300 && spacing("t300", "t800") < 800,
    `t300 → t800: ${spacing("t300", "t800").toFixed(1)} ms`,
  );
  assert.ok(Math.abs(spacing("t300", "t300b")) < 150, `t300 → t300b: ${spacing("t300", "t300b").toFixed(1)} ms`);
  assert.ok(
    spacing("t0", "t300") > 150 && spacing("t0", "t300") < 600,
    `t0 → t300: ${spacing("t0", "t300").toFixed(1)} ms`,
  );
});
