/**
 * Synthetic prompt shaping seen from the server (the simulator's request journal): `--seq-dist` pairs,
 * `--random-range-ratio` windows and per-session `--cache-bust` markers.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, runCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";

const CHAT = "/v1/chat/completions";
type Body = { messages: { role: string; content: string }[]; max_completion_tokens?: number };

Deno.test("--seq-dist and --cache-bust: each request's lengths come from a pair; each session has its own marker", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", "2", "--itl", "0.1", "--record-requests", journal]);
  // 3 conversations of 2 turns, 5 sessions: conversations are replayed, each play with a new marker.
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--seq-dist", "30,4:50;70,9:50",
    "--cache-bust", "first_turn_prefix", "--conversation-num", "3", "--conversation-turn-mean", "2",
    "--num-sessions", "5", "--concurrency", "2", "--random-seed", "11",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  assert.equal(sent.length, 10);
  const tokenizer = await loadBuiltinTokenizer();
  const bySession = new Map<string, Body[]>();
  for (const e of sent) {
    const id = e.headers["x-correlation-id"];
    bySession.set(id, [...(bySession.get(id) ?? []), e.body as Body]);
  }
  assert.equal(bySession.size, 5);
  const digests = new Set<string>();
  for (const [first, second] of bySession.values()) {
    const opening = first.messages[0].content;
    const m = /^\[rid:([0-9a-f]{12})\]\n\n/.exec(opening);
    assert.ok(m, `the first user turn opens with the marker: ${JSON.stringify(opening.slice(0, 30))}`);
    digests.add(m[1]);
    // The second turn repeats the first turn, marker included, before the reply and its own prompt.
    assert.equal(second.messages[0].content, opening);
    for (const body of [first, second]) {
      const prompt = body.messages.at(-1)!.content.replace(/^\[rid:[0-9a-f]{12}\]\n\n/, "");
      const pair = [tokenizer.count(prompt), body.max_completion_tokens];
      assert.ok(
        (pair[0] === 30 && pair[1] === 4) || (pair[0] === 70 && pair[1] === 9),
        `(ISL, OSL) from a pair: ${pair}`,
      );
    }
  }
  assert.equal(digests.size, 5, "every session its own marker, also when it replays a conversation");
});

Deno.test("--random-range-ratio keeps every request's max tokens inside the OSL window", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", "2", "--itl", "0.1", "--record-requests", journal]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--isl", "40", "--osl", "10",
    "--random-range-ratio", "0.5", "--request-count", "20", "--concurrency", "4",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  const osl = (await readRequestJournal(journal)).filter((e) => e.path === CHAT).map((e) =>
    (e.body as Body).max_completion_tokens!
  );
  assert.equal(osl.length, 20);
  assert.ok(osl.every((n) => n >= 5 && n <= 15), `${osl}`);
  assert.ok(new Set(osl).size > 3, `spread: ${osl}`);
  const bad = await runCli(
    ["profile", "--ui", "none", "-m", "m", "--url", sim.url, "--random-range-ratio", "0.5", "--seq-dist", "1,1:100"],
    { cwd: tmp.path },
  );
  assertExit(bad, 2);
  assert.match(bad.stderr, /cannot be combined/);
});
