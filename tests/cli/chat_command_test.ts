import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, MAIN_TS, runCli, startSim, tempDir } from "../e2e/cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";
import { chatPath } from "../../src/cli/chat.ts";
import { parseTarget } from "../../src/transport/parse_target.ts";
import { formatChatStats } from "../../src/run/chat_turn.ts";
import type { RequestRecord } from "../../src/records/request_record.ts";

/** `infermeter chat` with `lines` typed at its prompt (then end of input). */
async function chatWith(args: readonly string[], lines: readonly string[], cwd: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN_TS, "chat", ...args],
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(lines.map((l) => l + "\n").join("")));
  await writer.close();
  const out = await child.output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout), stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("chat --quick: one streamed request, the reply, then TTFT, TPS and ITL computed as profile does", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim([
    "--ttft",
    "30",
    "--itl",
    "4",
    "--api-key",
    "sk-chat",
    "--record-requests",
    journal,
  ]);
  // deno-fmt-ignore
  const run = await runCli([
    "chat", "-m", "sim-model", "-u", `${sim.url}/v1`, "-q", "Name a river.", "--system-prompt", "Be brief.",
    "--tokenizer", "builtin",
  ], { cwd: tmp.path, env: { OPENAI_API_KEY: "sk-chat" } });
  assertExit(run, 0);
  const [reply, ttft, tps, itl] = run.stdout.trim().split("\n");
  assert.ok(reply.trim().split(" ").length >= 5, reply);
  const ttftMs = Number(/^TTFT: ([\d.]+) ms$/.exec(ttft)?.[1]);
  assert.ok(ttftMs >= 30, ttft);
  assert.match(tps, /^TPS: {2}[\d.]+ tokens\/s \(\d+ tokens in [\d.]+s\)$/);
  const itlMs = Number(/^ITL: {2}([\d.]+) ms\/token \(decode [\d.]+ tokens\/s\)$/.exec(itl)?.[1]);
  // The simulator's 4 ms, or less when a busy machine hands late tokens on together (never more than the latency).
  assert.ok(itlMs >= 1 && itlMs < 30, itl);
  assert.equal(run.stdout.includes("sk-chat") || run.stderr.includes("sk-chat"), false);
  await sim.stop();
  const [sent] = (await readRequestJournal(journal)).filter((e) => e.path === "/v1/chat/completions");
  const body = sent.body as { model: string; stream: boolean; messages: unknown[]; stream_options: unknown };
  assert.equal(body.model, "sim-model");
  assert.equal(body.stream, true);
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.deepEqual(body.messages, [{ role: "system", content: "Be brief." }, {
    role: "user",
    content: "Name a river.",
  }]);
});

Deno.test("chat: each message at the prompt, the conversation resent; --no-history sends each alone", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", "1", "--itl", "1", "--record-requests", journal]);
  const kept = await chatWith(
    ["-m", "sim-model", "-u", sim.url, "--tokenizer", "builtin"],
    ["hi", "", "more"],
    tmp.path,
  );
  assert.equal(kept.code, 0, kept.stderr);
  assert.match(kept.stdout, /^Please enter a message for the chat model \(Ctrl-D to exit\):\n> /);
  assert.equal(kept.stdout.match(/^TTFT: /gm)?.length, 2, "an empty line sends nothing");
  const alone = await chatWith(
    ["-m", "sim-model", "-u", sim.url, "--tokenizer", "builtin", "--no-history"],
    ["one", "two"],
    tmp.path,
  );
  assert.equal(alone.code, 0, alone.stderr);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).map((e) => (e.body as { messages: { role: string }[] }).messages);
  assert.deepEqual(sent.map((m) => m.map((x) => x.role).join(",")), [
    "user",
    "user,assistant,user",
    "user",
    "user",
  ]);
  const replied = (sent[1][1] as unknown as { content: string }).content;
  assert.ok(kept.stdout.includes(replied), "the assistant message resent is the reply printed");
});

Deno.test("chat: no model exits 2, an unreachable server 3, an HTTP error 1 with the server's message", async () => {
  await using tmp = await tempDir();
  assertExit(await runCli(["chat", "-q", "hi"], { cwd: tmp.path }), 2);
  const down = await runCli(["chat", "-m", "m", "-u", "http://127.0.0.1:9", "-q", "hi", "--tokenizer", "builtin"], {
    cwd: tmp.path,
  });
  assertExit(down, 3);
  assert.match(down.stderr, /request failed: ConnectionError/);
  await using sim = await startSim(["--strict-model", "--models", "real"]);
  const refused = await runCli(["chat", "-m", "other", "-u", sim.url, "-q", "hi", "--tokenizer", "builtin"], {
    cwd: tmp.path,
  });
  assertExit(refused, 1);
  assert.match(refused.stderr, /request failed: Not Found 404: .*The model 'other' does not exist/);
});

Deno.test("chat: the URL forms AIPerf takes, and a reply without tokens", () => {
  assert.equal(chatPath(parseTarget("localhost:8000")), "/v1/chat/completions");
  assert.equal(chatPath(parseTarget("http://h/openai/v1")), "/openai/v1/chat/completions");
  assert.equal(chatPath(parseTarget("http://h/x/chat/completions")), "/x/chat/completions");
  const record = { responseTimes: [] } as unknown as RequestRecord;
  assert.equal(formatChatStats({ record, metrics: {}, outputTokens: 0, reasoningTokens: 0 }), "(no tokens received)");
  assert.equal(
    formatChatStats({
      record,
      metrics: { time_to_first_token: 20, request_latency: 500, output_sequence_length: 10, input_sequence_length: 40 },
      outputTokens: 8,
      reasoningTokens: 2,
      cachedPromptTokens: 30,
    }),
    "TTFT: 20.00 ms\nTPS:  20.00 tokens/s (10 tokens, 2 reasoning in 0.50s)\nCache: 30/40 prompt tokens cached (75.0%)",
  );
});
