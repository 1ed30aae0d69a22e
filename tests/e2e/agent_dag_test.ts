/**
 * Agent DAGs seen from the server (`dag_jsonl`): a parent's turn starts sub-agents that run side by side, and the
 * parent's next turn goes only once they have all answered; a fork's child carries the conversation so far. What
 * was sent, and when, is read from the simulator's request journal.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, readJsonl, runCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";
import type { JournalEntry } from "../../src/sim/request_journal.ts";

/** Every answer takes at least this long (the simulator's time to first token). */
const TTFT_MS = 80;
const CHAT = "/v1/chat/completions";

const user = (content: string) => ({ messages: [{ role: "user", content }], max_tokens: 4 });
const DAG = [
  { session_id: "lead", turns: [{ ...user("plan"), spawns: ["a", "b"] }, { ...user("merge"), forks: ["review"] }] },
  { session_id: "a", turns: [user("a-first"), user("a-second")] },
  { session_id: "b", turns: [user("b-only")] },
  { session_id: "review", turns: [user("review")] },
];

/** Two requests overlapped in time: each started before the other ended (the records' own timestamps). */
function overlapped(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const n = (m: Record<string, unknown>, k: string) => BigInt(String(m[k]));
  return n(a, "request_start_ns") < n(b, "request_end_ns") && n(b, "request_start_ns") < n(a, "request_end_ns");
}

/** The records of a run by `<conversation>#<turn>`. */
async function recordsByTurn(path: string): Promise<Map<string, Record<string, unknown>>> {
  const records = (await readJsonl(path)).map((r) => r.record.metadata as Record<string, unknown>);
  return new Map(records.map((m) => [`${m.conversation_id}#${m.turn_index}`, m]));
}

function lastUser(entry: JournalEntry): string {
  return (entry.body as { messages: { content: string }[] }).messages.at(-1)!.content;
}

Deno.test("dag_jsonl: children run concurrently and join before the parent's next turn; a fork carries the context", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", String(TTFT_MS), "--itl", "1", "--record-requests", journal]);
  await Deno.writeTextFile(join(tmp.path, "dag.jsonl"), DAG.map((l) => JSON.stringify(l)).join("\n") + "\n");
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--input-file", "dag.jsonl", "--custom-dataset-type", "dag_jsonl", "--model", "Qwen/Qwen3-0.6B",
    "--url", sim.url.replace("http://", ""), "--streaming", "--concurrency", "1", "--request-count", "6",
    "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  const at = new Map(sent.map((e) => [lastUser(e), e]));
  assert.deepEqual([...at.keys()].sort(), ["a-first", "a-second", "b-only", "merge", "plan", "review"]);
  const t = (k: string) => at.get(k)!.received_at_ms;
  // Side by side: b's request and a's first one overlap.
  const byTurn = await recordsByTurn(join(tmp.path, "out/profile_export.jsonl"));
  assert.ok(overlapped(byTurn.get("a#0")!, byTurn.get("b#0")!), "the two children run side by side");
  assert.ok(t("a-first") >= t("plan") + TTFT_MS, "the children start after the spawning turn's answer");
  // Joined: the parent's next turn waits for a's second answer and b's answer.
  assert.ok(t("merge") >= t("a-second") + TTFT_MS, `merge at ${t("merge")}, a's last at ${t("a-second")}`);
  assert.ok(t("merge") >= t("b-only") + TTFT_MS);
  assert.ok(t("review") >= t("merge") + TTFT_MS);
  // Each child is a session of its own; a spawn starts fresh, a fork with the lead's conversation and replies.
  const corr = (k: string) => at.get(k)!.headers["x-correlation-id"];
  assert.equal(corr("plan"), corr("merge"));
  assert.equal(new Set(["plan", "a-first", "b-only", "review"].map(corr)).size, 4);
  assert.equal(corr("a-first"), corr("a-second"));
  assert.equal((at.get("b-only")!.body as { messages: unknown[] }).messages.length, 1);
  const review = (at.get("review")!.body as { messages: { role: string; content: string }[] }).messages;
  assert.deepEqual(review.map((m) => m.role), ["user", "assistant", "user", "assistant", "user"]);
  assert.deepEqual(review.filter((m) => m.role === "user").map((m) => m.content), ["plan", "merge", "review"]);
  // The records say where each request sits in the tree (AIPerf's agent_depth and correlation ids).
  const records = await readJsonl(join(tmp.path, "out/profile_export.jsonl"));
  assert.equal(records.length, 6);
  const meta = records.map((r) => r.record.metadata as Record<string, unknown>);
  const root = meta.find((m) => m.agent_depth === 0)!;
  assert.equal(meta.filter((m) => m.agent_depth === 0).length, 2, "the lead's two turns");
  for (const m of meta.filter((m) => m.agent_depth === 1)) {
    assert.equal(m.parent_correlation_id, root.x_correlation_id);
    assert.equal(m.root_correlation_id, root.x_correlation_id);
  }
  assert.ok(meta.every((m) => m.root_correlation_id === root.x_correlation_id));
});

Deno.test("weka_trace: sub-agent streams run side by side and join before the parent's next request; prompts keep the recorded prefixes", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", String(TTFT_MS), "--itl", "1", "--record-requests", journal]);
  const traces = new URL("../../datasets/examples/weka_traces", import.meta.url).pathname;
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--input-file", traces, "--custom-dataset-type", "weka_trace", "--model", "Qwen/Qwen3-0.6B",
    "--url", sim.url.replace("http://", ""), "--streaming", "--concurrency", "1", "--request-count", "6",
    "--ignore-trace-delays", "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  assert.equal(sent.length, 6, "session_a: 3 requests and 3 sub-agent requests");
  const records = (await readJsonl(join(tmp.path, "out/profile_export.jsonl"))).map((r) =>
    r.record.metadata as Record<string, unknown>
  );
  const byRequest = new Map(records.map((m) => [m.x_request_id as string, m]));
  const who = (e: JournalEntry) => {
    const m = byRequest.get(e.headers["x-request-id"])!;
    return `${m.conversation_id}#${m.turn_index}`;
  };
  const at = new Map(sent.map((e) => [who(e), e]));
  const t = (k: string) => at.get(k)!.received_at_ms;
  const sa = "session_a::sa:agent_001";
  // Both streams of the sub-agent start together once the parent's first request is answered.
  assert.ok(t(`${sa}#0`) >= t("session_a#0") + TTFT_MS);
  const byTurn = await recordsByTurn(join(tmp.path, "out/profile_export.jsonl"));
  assert.ok(overlapped(byTurn.get(`${sa}:fa:000#0`)!, byTurn.get(`${sa}#0`)!), "the two streams run side by side");
  // The parent's second request waits for the sub-agent's last answer.
  assert.ok(t("session_a#1") >= t(`${sa}#1`) + TTFT_MS);
  assert.ok(t("session_a#1") >= t(`${sa}:fa:000#0`) + TTFT_MS);
  // The second request carries the recorded context (the same system blocks), not the server's live reply.
  type Body = { messages: { role: string; content: string }[] };
  const first = (at.get("session_a#0")!.body as Body).messages;
  const second = (at.get("session_a#1")!.body as Body).messages;
  assert.equal(second[0].content, first[0].content);
  assert.deepEqual(second.map((m) => m.role), ["system", "user", "assistant", "user"]);
  // Its user blocks are the first request's, without the unhashed tail (the context started over, as recorded).
  assert.ok(first[1].content.startsWith(second[1].content) && second[1].content.length < first[1].content.length);
  assert.ok(records.filter((m) => m.agent_depth === 1).length === 3);
});

Deno.test("tracelab: the sessions inside a spawning call run side by side and join before the parent's next round", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", String(TTFT_MS), "--itl", "1", "--record-requests", journal]);
  const corpus = new URL("../../datasets/examples/tracelab.jsonl", import.meta.url).pathname;
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--input-file", corpus, "--model", "Qwen/Qwen3-0.6B", "--url", sim.url.replace("http://", ""),
    "--streaming", "--concurrency", "1", "--request-count", "6", "--ignore-trace-delays", "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  const records = (await readJsonl(join(tmp.path, "out/profile_export.jsonl"))).map((r) =>
    r.record.metadata as Record<string, unknown>
  );
  const byRequest = new Map(records.map((m) => [m.x_request_id as string, m]));
  const at = new Map(sent.map((e) => {
    const m = byRequest.get(e.headers["x-request-id"])!;
    return [`${m.conversation_id}#${m.turn_index}`, e.received_at_ms];
  }));
  const c1 = "claude_parent::sa:claude_child", c2 = "claude_parent::sa:claude_child2";
  assert.equal(at.size, 6, [...at.keys()].join(", "));
  const byTurn = await recordsByTurn(join(tmp.path, "out/profile_export.jsonl"));
  assert.ok(overlapped(byTurn.get(`${c1}#0`)!, byTurn.get(`${c2}#0`)!), "the two sub-agents run side by side");
  assert.ok(at.get(`${c1}#0`)! >= at.get("claude_parent#1")! + TTFT_MS, "started by the parent's second round");
  assert.ok(at.get("claude_parent#2")! >= at.get(`${c1}#1`)! + TTFT_MS, "joined before the parent's third round");
  assert.ok(at.get("claude_parent#2")! >= at.get(`${c2}#0`)! + TTFT_MS);
});
