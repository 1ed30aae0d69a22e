/**
 * AIPerf options infermeter implements, seen from the server: `serve-sim`'s request journal shows what each one
 * changes in the requests.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, runCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";

const CHAT = "/v1/chat/completions";

Deno.test("--system-prompt, --session-header and --per-chunk-usage shape every request as AIPerf's do", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", "5", "--itl", "1", "--record-requests", journal]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--streaming", "--use-server-token-count",
    "--per-chunk-usage", "--session-header", "X-Session-ID", "--system-prompt", "You are terse.\nAnswer briefly.",
    "--transport", "http", "--conversation-num", "2", "--conversation-turn-mean", "2",
    "--conversation-turn-delay-mean", "5000", "--inter-turn-delay-cap-seconds", "0.2", "--isl", "20", "--osl", "3",
    "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  assert.match(run.stderr, /Dataset: 4 synthetic entries in 2 sessions \(2 think times cut to 0\.2 s\)/);
  await sim.stop();
  const requests = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  assert.equal(requests.length, 4);
  const sessions = new Map<string, number[]>();
  for (const request of requests) {
    const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]));
    assert.ok(headers["x-session-id"] !== undefined, "the session id travels in the named header");
    assert.equal(headers["x-correlation-id"], undefined, "instead of X-Correlation-ID");
    sessions.set(headers["x-session-id"], [...sessions.get(headers["x-session-id"]) ?? [], request.received_at_ms]);
    const body = request.body as { messages: { role: string; content: string }[]; stream_options: unknown };
    assert.deepEqual(body.messages[0], { role: "system", content: "You are terse.\nAnswer briefly." });
    assert.deepEqual(body.stream_options, { include_usage: true, continuous_usage_stats: true });
  }
  assert.equal(sessions.size, 2);
  for (const [id, times] of sessions) {
    assert.equal(times.length, 2, `session ${id} sends its two turns`);
    // The second turn waited a think time cut from ~5 s to 0.2 s (plus the first answer).
    assert.ok(times[1] - times[0] < 3000, `session ${id}: ${times[1] - times[0]} ms between turns`);
  }
});

Deno.test("an accuracy option without its benchmark, and system prompts that clash or are missing, exit 2", async () => {
  await using tmp = await tempDir();
  const alone = await runCli(["profile", "-m", "m", "--accuracy-tasks", "x"], { cwd: tmp.path });
  assertExit(alone, 2);
  assert.match(alone.stderr, /--accuracy-tasks applies only to an accuracy benchmark/);
  const conflict = await runCli(
    ["profile", "-m", "m", "--system-prompt", "x", "--shared-system-prompt-length", "20"],
    { cwd: tmp.path },
  );
  assertExit(conflict, 2);
  assert.match(conflict.stderr, /--system-prompt and --shared-system-prompt-length both set a prompt prefix/);
  const missing = await runCli(["profile", "-m", "m", "--system-prompt-file", "nope.txt", "--url", "127.0.0.1:9"], {
    cwd: tmp.path,
  });
  assertExit(missing, 2);
  assert.match(missing.stderr, /--system-prompt-file nope\.txt: cannot be read/);
});
