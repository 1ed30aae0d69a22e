/**
 * Custom datasets seen from the server: the commands of AIPerf's "Raw Payload Replay" page (verbatim except
 * `--url`, which points at `serve-sim`), multi-turn history with the server's real replies, trace timestamps, and
 * malformed inputs. What was sent is read from the simulator's request journal.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, metric, rawInteger, readJson, readJsonl, runCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";
import type { JournalEntry } from "../../src/sim/request_journal.ts";

const EXAMPLES = new URL("../../datasets/examples/", import.meta.url).pathname;
const CHAT = "/v1/chat/completions";
const FAST_SIM = ["--ttft", "5", "--itl", "0.2"];

/** Copies an example file or directory into the run's folder, as the page's `cat > … << EOF` does. */
async function copyExample(name: string, to: string): Promise<void> {
  const from = join(EXAMPLES, name);
  if ((await Deno.stat(from)).isDirectory) {
    await Deno.mkdir(join(to, name), { recursive: true });
    for await (const e of Deno.readDir(from)) await Deno.copyFile(join(from, e.name), join(to, name, e.name));
  } else await Deno.copyFile(from, join(to, name));
}

function lastUser(entry: JournalEntry): string {
  const messages = (entry.body as { messages: { role: string; content: string }[] }).messages;
  return messages.at(-1)!.content;
}

/** The lines of a JSONL file, trimmed, without blanks. */
async function payloadLines(path: string): Promise<string[]> {
  return (await Deno.readTextFile(path)).split("\n").map((l) => l.trim()).filter((l) => l !== "");
}

/** Each journal body is a line of the file, byte for byte (same JSON value, same length as written). */
function assertVerbatim(sent: readonly JournalEntry[], lines: readonly string[]): void {
  const bytes = (s: string) => new TextEncoder().encode(s).length;
  for (const entry of sent) {
    const line = lines.find((l) => JSON.stringify(JSON.parse(l)) === JSON.stringify(entry.body));
    assert.ok(line !== undefined, `a sent body that is no line of the file: ${JSON.stringify(entry.body)}`);
    assert.equal(Number(entry.headers["content-length"]), bytes(line), "the line's own bytes, spacing included");
  }
}

Deno.test("seed 003: a raw payload file is replayed line by line, each body as written, with and without the type", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim([...FAST_SIM, "--record-requests", journal]);
  await copyExample("payloads.jsonl", tmp.path);
  const url = sim.url.replace("http://", "");
  // deno-fmt-ignore
  const explicit = await runCli([
    "profile", "--input-file", "payloads.jsonl", "--model", "Qwen/Qwen3-0.6B", "--custom-dataset-type", "raw_payload",
    "--streaming", "--url", url, "--concurrency", "2",
  ], { cwd: tmp.path });
  assertExit(explicit, 0);
  // deno-fmt-ignore
  const detected = await runCli([
    "profile", "--input-file", "payloads.jsonl", "--model", "Qwen/Qwen3-0.6B", "--streaming", "--url", url,
    "--concurrency", "2",
  ], { cwd: tmp.path });
  assertExit(detected, 0);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  const lines = await payloadLines(join(tmp.path, "payloads.jsonl"));
  // No count given: AIPerf 0.13's 10 requests per run, the three lines in order and again from the first.
  assert.equal(sent.length, 20, "ten requests, twice");
  assertVerbatim(sent, lines);
  const lastUsers = sent.slice(0, 10).map(lastUser);
  assert.deepEqual(lastUsers.slice(0, 6).sort(), [...lastUsers.slice(0, 3), ...lastUsers.slice(0, 3)].sort());
  const records = await readJsonl(join(tmp.path, "artifacts/Qwen_Qwen3-0.6B-chat-concurrency2/profile_export.jsonl"));
  assert.equal(records.length, 10);
  // The payloads do not ask for a stream, so the answers came whole: said once, and kept out of TTFT and ITL
  // (which would otherwise read as the whole latency).
  const notStreamed = records.filter((r) => (r.record.metrics.output_sequence_length as { value: number }).value > 1);
  assert.match(detected.stdout, new RegExp(`✗ streaming: ${notStreamed.length} of 10 responses did not stream`));
  assert.doesNotMatch(detected.stdout, /Time to First Token/);
});

Deno.test("seed 003: a directory of raw payload files is one conversation per file, turns in order on one session", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim([...FAST_SIM, "--record-requests", journal]);
  await copyExample("conversations", tmp.path);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--input-file", "conversations/", "--model", "Qwen/Qwen3-0.6B", "--custom-dataset-type", "raw_payload",
    "--streaming", "--url", sim.url.replace("http://", ""), "--concurrency", "2",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  // No count given: AIPerf 0.13's 10 requests, the two conversations over and again.
  assert.equal(sent.length, 10);
  const lines = [
    ...await payloadLines(join(tmp.path, "conversations/session_001.jsonl")),
    ...await payloadLines(join(tmp.path, "conversations/session_002.jsonl")),
  ];
  assertVerbatim(sent, lines);
  const at = (text: string) => sent.find((e) => lastUser(e) === text)!;
  // A session's second turn goes after its first, on the same correlation id; nothing is added to it.
  for (
    const [first, second] of [["What is Python?", "Show me a hello world example."], [
      "Explain REST APIs.",
      "What about GraphQL?",
    ]]
  ) {
    assert.ok(at(first).received_at_ms < at(second).received_at_ms);
    assert.equal(at(first).headers["x-correlation-id"], at(second).headers["x-correlation-id"]);
    assert.equal((at(second).body as { messages: unknown[] }).messages.length, 3);
  }
  assert.notEqual(
    at("What is Python?").headers["x-correlation-id"],
    at("Explain REST APIs.").headers["x-correlation-id"],
  );
});

Deno.test("--endpoint-type raw posts the written bodies to the full --url and reads the text by JMESPath", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim([...FAST_SIM, "--record-requests", journal]);
  await copyExample("conversations", tmp.path);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "--input-file", "conversations", "-m", "Qwen/Qwen3-0.6B", "--endpoint-type", "raw",
    "--url", `${sim.url}${CHAT}`, "--extra-inputs", "response_field:choices[0].message.content", "--conversation-num", "2",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  const sent = await readRequestJournal(journal);
  assert.deepEqual(sent.filter((e) => e.method === "POST").map((e) => e.path), [CHAT, CHAT, CHAT, CHAT]);
  assertVerbatim(sent.filter((e) => e.method === "POST"), [
    ...await payloadLines(join(tmp.path, "conversations/session_001.jsonl")),
    ...await payloadLines(join(tmp.path, "conversations/session_002.jsonl")),
  ]);
  const records = await readJsonl(join(tmp.path, "artifacts/Qwen_Qwen3-0.6B-raw-concurrency1/profile_export.jsonl"));
  assert.equal(records.length, 4);
  for (const { record } of records) {
    assert.equal(record.error ?? null, null);
    assert.ok((record.metrics as Record<string, { value: number }>).output_token_count.value > 0, "text was found");
  }
  // A bad expression stops the run before anything is sent; a synthetic dataset has no bodies to send.
  const bad = await runCli([
    "profile",
    "--ui",
    "none",
    "--input-file",
    "conversations",
    "-m",
    "m",
    "--endpoint-type",
    "raw",
    "--url",
    sim.url,
    "--extra-inputs",
    "response_field:choices[",
  ], { cwd: tmp.path });
  assertExit(bad, 2);
  assert.match(bad.stderr, /response_field "choices\[" is not a valid JMESPath expression/);
  const synthetic = await runCli(["profile", "--ui", "none", "-m", "m", "--endpoint-type", "raw", "--url", sim.url], {
    cwd: tmp.path,
  });
  assertExit(synthetic, 2);
  assert.match(synthetic.stderr, /--endpoint-type raw sends the request bodies written in the dataset/);
});

Deno.test("multi_turn: later turns carry the earlier ones with the server's real replies, after their delays", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim([...FAST_SIM, "--record-requests", journal]);
  await copyExample("multi_turn.jsonl", tmp.path);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--input-file", "multi_turn.jsonl", "--concurrency", "2",
    "--export-level", "raw", "--conversation-num", "2",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  assert.equal(sent.length, 4);
  const byText = (t: string) => sent.find((e) => lastUser(e) === t)!;
  const second = byText("Now make it cheaper.").body as { messages: { role: string; content: string }[] };
  assert.deepEqual(second.messages.map((m) => m.role), ["system", "user", "assistant", "user"]);
  assert.equal(second.messages[0].content, "You are a concise travel agent.", "the leading system turn is hoisted");
  assert.equal(second.messages[1].content, "Plan two days in Lisbon.");
  // The assistant message is what the server answered to the first turn (its streamed or returned text).
  const answer = second.messages[2].content;
  assert.ok(answer.length > 0);
  const raw = await Deno.readTextFile(join(tmp.path, "artifacts/m-chat-concurrency2/profile_export_raw.jsonl"));
  assert.ok(raw.includes(answer.split(" ").slice(0, 3).join(" ")), "the reply the server sent");
  // The raw export's payload of each request is the body the server received, history included.
  const rawLines = raw.trim().split("\n").map((l) =>
    JSON.parse(l) as { metadata: { x_request_id: string }; payload: unknown }
  );
  assert.equal(rawLines.length, 4);
  for (const line of rawLines) {
    const received = sent.find((e) => e.headers["x-request-id"] === line.metadata.x_request_id);
    assert.ok(received, `request ${line.metadata.x_request_id} reached the server`);
    assert.deepEqual(line.payload, received.body);
  }
  const gap = byText("Now make it cheaper.").received_at_ms - byText("Plan two days in Lisbon.").received_at_ms;
  assert.ok(gap >= 800, `think time honoured: ${gap.toFixed(1)} ms`);
  // Two conversations of two turns: both sessions complete, and the rate is per hour of the run.
  const summary = await readJson(join(tmp.path, "artifacts/m-chat-concurrency2/profile_export_aiperf.json"));
  assert.equal(metric(summary, "session_count").avg, 2);
  assert.equal(metric(summary, "session_count").unit, "sessions");
  const duration = metric(summary, "benchmark_duration").avg;
  assert.ok(Math.abs(metric(summary, "session_throughput").avg - 2 / (duration / 3600)) < 1e-6);
  assert.equal(metric(summary, "session_throughput").unit, "sessions/hour");
  assert.match(run.stdout, /Session Throughput \(sessions\/hour\)/);
});

Deno.test("mooncake_trace: requests go out at their timestamps, prompts synthesized to the requested lengths", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim([...FAST_SIM, "--record-requests", journal]);
  await copyExample("mooncake_trace.jsonl", tmp.path);
  const run = await runCli(
    ["profile", "--ui", "none", "-m", "m", "--url", sim.url, "--input-file", "mooncake_trace.jsonl"],
    { cwd: tmp.path },
  );
  assertExit(run, 0);
  assert.match(run.stderr, /trace replay/);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  assert.equal(sent.length, 4);
  // Lags against the schedule, anchored on the least-late request (as replay lag is): none may be early, and on a
  // loaded test machine none much later (the bench measures the real figure).
  const due = [0, 120, 250, 400];
  const lags = sent.map((e, i) => e.received_at_ms - due[i]);
  const anchor = Math.min(...lags);
  for (const [i, lag] of lags.entries()) {
    // Sent one after another the first would be 400 ms behind its place; a busy machine adds tens of ms at most.
    assert.ok(lag - anchor < 250, `request ${i} ${(lag - anchor).toFixed(1)} ms behind the schedule`);
  }
  // Lines 1 and 2 share hash block 0: their prompts start with the same text.
  const p1 = lastUser(sent[0]);
  const p2 = lastUser(sent[1]);
  assert.equal(p1.slice(0, 100), p2.slice(0, 100));
  assert.notEqual(p1, p2);
  assert.deepEqual(sent[3].body, {
    model: "Qwen/Qwen3-0.6B",
    messages: [{ role: "user", content: "Say hi." }],
    max_tokens: 8,
  });
});

Deno.test("trace replay: each request reaches the server at its timestamp, never early; lag metrics exported", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim([...FAST_SIM, "--record-requests", journal]);
  // 30 requests every 20 ms, each naming its due time in its prompt.
  const due = Array.from({ length: 30 }, (_, i) => i * 20);
  const trace = due.map((t) => JSON.stringify({ timestamp: t, text_input: `due ${t}`, output_length: 2 })).join("\n");
  await Deno.writeTextFile(join(tmp.path, "trace.jsonl"), trace + "\n");
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--input-file", "trace.jsonl",
    "--custom-dataset-type", "mooncake_trace", "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  assert.equal(sent.length, due.length);
  // Each request's due time is its record's credit time (epoch, this machine's clock, like the journal's):
  // its arrival at the server is never before it, and late by less than a loaded 2-core machine's worst stall.
  const dir = join(tmp.path, "out");
  const records = await readJsonl(join(dir, "profile_export.jsonl"));
  assert.equal(records.length, due.length);
  const dueMs = new Map(
    records.map((l) => [l.record.metadata.x_request_id, Number(rawInteger(l.raw, "credit_issued_ns")) / 1e6]),
  );
  const lags = sent.map((e) => e.received_at_ms - dueMs.get(e.headers["x-request-id"])!).sort((a, b) => a - b);
  // 1 ms for two processes' readings of the wall clock.
  assert.ok(lags[0] >= -1, `a request arrived ${(-lags[0]).toFixed(2)} ms before its time`);
  // A busy machine stalls a process for 100–200 ms now and then; the median shows whether the schedule was kept.
  assert.ok(lags[lags.length - 1] < 400, `worst lag ${lags[lags.length - 1].toFixed(1)} ms`);
  assert.ok(lags[Math.floor(lags.length / 2)] < 25, `median lag ${lags[Math.floor(lags.length / 2)].toFixed(1)} ms`);
  // Due times follow the trace: 20 ms apart.
  const dues = [...dueMs.values()].sort((a, b) => a - b);
  for (let i = 1; i < dues.length; i++) assert.ok(Math.abs(dues[i] - dues[i - 1] - 20) < 0.01);
  const summary = await readJson(join(dir, "profile_export_aiperf.json"));
  const p50 = metric(summary, "replay_sched_lag_p50").avg;
  const p99 = metric(summary, "replay_sched_lag_p99").avg;
  assert.ok(p50 >= 0 && p50 <= p99 && p99 < 400, `client-side lag p50 ${p50} ms, p99 ${p99} ms`);
  assert.equal(metric(summary, "replay_sched_degraded").avg, 0);
  assert.equal(summary["replay_send_schedule_offset"], undefined, "the raw offset is internal");
});

Deno.test("trace synthesis on profile: a sped-up trace goes out at the new times, filtered and with outputs cut", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim([...FAST_SIM, "--record-requests", journal]);
  // 8 requests 200 ms apart, and one too long for --synthesis-max-isl.
  const lines = Array.from({ length: 8 }, (_, i) => ({ timestamp: i * 200, input_length: 20 + i, output_length: 10 }));
  lines.splice(3, 0, { timestamp: 500, input_length: 5000, output_length: 10 });
  await Deno.writeTextFile(join(tmp.path, "trace.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--input-file", "trace.jsonl", "--artifact-dir", "out",
    "--synthesis-speedup-ratio", "2", "--synthesis-max-isl", "100", "--synthesis-max-osl", "3",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  assert.equal(sent.length, 8, "the 5000-token line is left out");
  const asked = sent.map((e) => (e.body as { max_completion_tokens: number }).max_completion_tokens);
  assert.deepEqual(asked, Array(8).fill(3), "outputs cut at 3");
  // Due times (the records' credit times) follow the trace at twice its speed: 100 ms apart.
  const records = await readJsonl(join(tmp.path, "out", "profile_export.jsonl"));
  const dues = records.map((l) => Number(rawInteger(l.raw, "credit_issued_ns")) / 1e6).sort((a, b) => a - b);
  assert.equal(dues.length, 8);
  for (let i = 1; i < dues.length; i++) assert.ok(Math.abs(dues[i] - dues[i - 1] - 100) < 0.01, `gap ${i}`);
});

Deno.test("--public-dataset sharegpt reads AIPerf's local cache, never the network; without it, says where to put it", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim([...FAST_SIM, "--record-requests", journal]);
  // deno-fmt-ignore
  const args = [
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--public-dataset", "sharegpt", "--conversation-num", "3",
  ];
  const missing = await runCli(args, { cwd: tmp.path, env: { HOME: tmp.path } });
  assertExit(missing, 2);
  assert.match(
    missing.stderr,
    /never downloads.*\.cache\/aiperf\/datasets\/ShareGPT_V3_unfiltered_cleaned_split\.json/s,
  );
  const file = "ShareGPT_V3_unfiltered_cleaned_split.json";
  await Deno.mkdir(join(tmp.path, ".cache/aiperf/datasets"), { recursive: true });
  await Deno.copyFile(
    new URL(
      `../fixtures/hf_hub/datasets--anon8231489123--ShareGPT_Vicuna_unfiltered/snapshots/0123456789abcdef/${file}`,
      import.meta.url,
    ),
    join(tmp.path, ".cache/aiperf/datasets", file),
  );
  const run = await runCli(args, { cwd: tmp.path, env: { HOME: tmp.path } });
  assertExit(run, 0);
  await sim.stop();
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  // Three conversations (one of two turns), in file order; the second turn carries the first and its real reply.
  assert.equal(sent.length, 4);
  const prompts = sent.map(lastUser);
  assert.ok(prompts.includes("Suggest three things to see there in one afternoon."));
  const second = sent.find((e) => lastUser(e).startsWith("Suggest"))!.body as { messages: { role: string }[] };
  assert.deepEqual(second.messages.map((m) => m.role), ["user", "assistant", "user"]);
});

Deno.test("single_turn media reach the server as OpenAI chat content parts; completions refuses them", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim([...FAST_SIM, "--record-requests", journal]);
  await Deno.writeFile(join(tmp.path, "dot.png"), new Uint8Array([137, 80, 78, 71, 0, 1]));
  await Deno.writeTextFile(
    join(tmp.path, "media.jsonl"),
    '{"text": "Describe both.", "images": ["https://example.com/a.jpg", "dot.png"], "audio": "wav,UklGRg=="}\n',
  );
  const args = ["profile", "--ui", "none", "-m", "m", "--url", sim.url, "--input-file", "media.jsonl"];
  assertExit(await runCli(args, { cwd: tmp.path }), 0);
  const refused = await runCli([...args, "--endpoint-type", "completions"], { cwd: tmp.path });
  assertExit(refused, 2);
  assert.match(refused.stderr, /--endpoint-type completions cannot carry image inputs/);
  await sim.stop();
  const [sent] = (await readRequestJournal(journal)).filter((e) => e.path === CHAT);
  assert.deepEqual((sent.body as { messages: unknown[] }).messages, [{
    role: "user",
    content: [
      { type: "text", text: "Describe both." },
      { type: "image_url", image_url: { url: "https://example.com/a.jpg" } },
      { type: "image_url", image_url: { url: `data:image/png;base64,${btoa("\x89PNG\x00\x01")}` } },
      { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
    ],
  }]);
});

Deno.test("bad dataset inputs exit 2 naming the file, the line, an excerpt and what was expected", async () => {
  await using tmp = await tempDir();
  const cases: [string, string, RegExp][] = [
    [
      "bad.jsonl",
      '{"text": "ok"}\n{"text": 5}\n',
      /bad\.jsonl:2: "text" must be a string .* — the line reads: \{"text": 5\}/,
    ],
    [
      "broken.jsonl",
      '{"messages": []}\n{"messages": [\n',
      /broken\.jsonl:2: invalid JSON .* — the line reads: \{"messages": \[/,
    ],
    [
      "nomsg.jsonl",
      '{"messages": []}\n{"model": "x"}\n',
      /nomsg\.jsonl:2: expected a "messages" list in every raw payload/,
    ],
    ["empty.jsonl", "\n\n", /empty\.jsonl: has no records/],
  ];
  for (const [name, text] of cases) await Deno.writeTextFile(join(tmp.path, name), text);
  await Deno.mkdir(join(tmp.path, "nothing"));
  await Deno.writeTextFile(join(tmp.path, "nothing", "notes.txt"), "hi");
  cases.push(["nothing", "", /nothing: is a directory with no \.jsonl or \.json files/]);
  cases.push(["missing.jsonl", "", /missing\.jsonl: cannot be read \(no such file\)/]);
  for (const [name, , pattern] of cases) {
    const type = name === "nomsg.jsonl" ? ["--custom-dataset-type", "raw_payload"] : [];
    const run = await runCli(
      ["profile", "--ui", "none", "-m", "m", "--url", "127.0.0.1:9", "--input-file", name, ...type],
      { cwd: tmp.path },
    );
    assertExit(run, 2);
    assert.match(run.stderr, pattern, name);
  }
});
