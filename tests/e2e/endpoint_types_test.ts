/**
 * Every endpoint type with a path, end to end: the real CLI against `serve-sim`, checked from the server's journal
 * (what was sent, where, with which headers) and from the exports (which metrics were published, under which title).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, readJson, runCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";

const TOKEN_METRICS = [
  "time_to_first_token",
  "inter_token_latency",
  "output_sequence_length",
  "output_token_throughput",
];

interface Case {
  readonly type: string;
  readonly path: string;
  readonly title: string;
  readonly tokens: boolean;
  readonly args?: readonly string[];
}

const CASES: readonly Case[] = [
  { type: "embeddings", path: "/v1/embeddings", title: "Embeddings Metrics", tokens: false, args: ["-b", "3"] },
  { type: "nim_embeddings", path: "/v1/embeddings", title: "NIM Embeddings Metrics", tokens: false },
  { type: "chat_embeddings", path: "/v1/embeddings", title: "Embeddings Metrics", tokens: false },
  { type: "nim_rankings", path: "/v1/ranking", title: "Rankings Metrics", tokens: false },
  { type: "hf_tei_rankings", path: "/rerank", title: "Ranking Metrics", tokens: false },
  { type: "cohere_rankings", path: "/v2/rerank", title: "Ranking Metrics", tokens: false },
  { type: "image_generation", path: "/v1/images/generations", title: "Image Generation Metrics", tokens: false },
  { type: "huggingface_generate", path: "/generate_stream", title: "LLM Metrics", tokens: true },
  { type: "messages", path: "/v1/messages", title: "LLM Metrics", tokens: true },
];

Deno.test("each endpoint type runs against serve-sim, sends to its path, and publishes only its metrics", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--ttft", "1", "--itl", "1", "--api-key", "sekret", "--record-requests", journal]);
  for (const c of CASES) {
    // deno-fmt-ignore
    const run = await runCli([
      "profile", "--ui", "none", "-m", "sim-model", "--url", sim.url, "--endpoint-type", c.type, "--streaming",
      "--request-count", "4", "--isl", "12", "--osl", "3", "--api-key", "sekret", "--rankings-passages-mean", "2",
      "--rankings-query-prompt-token-mean", "10", "--rankings-passages-prompt-token-mean", "10",
      "--artifact-dir", c.type, ...(c.args ?? []),
    ], { cwd: tmp.path });
    assertExit(run, 0);
    assert.match(run.stdout, new RegExp(`infermeter \\| ${c.title}\\b`), c.type);
    const summary = await readJson(join(tmp.path, c.type, "profile_export_aiperf.json"));
    assert.equal((summary.request_count as { avg: number }).avg, 4, c.type);
    assert.ok("request_latency" in summary && "input_sequence_length" in summary, c.type);
    for (const tag of TOKEN_METRICS) assert.equal(tag in summary, c.tokens, `${c.type}: ${tag}`);
  }
  await sim.stop();
  const sent = await readRequestJournal(journal);
  for (const c of CASES) assert.ok(sent.some((e) => e.path === c.path), `${c.type} → ${c.path}`);
  // Anthropic's credential header and version; the others a bearer token (all redacted in the journal).
  const anthropic = sent.find((e) => e.path === "/v1/messages")!;
  assert.equal(anthropic.headers["anthropic-version"], "2023-06-01");
  assert.ok("x-api-key" in anthropic.headers && !("authorization" in anthropic.headers));
  // Embeddings with -b 3 send three inputs per request; rankings a query and two passages.
  const batch = sent.find((e) => e.path === "/v1/embeddings" && Array.isArray((e.body as { input?: unknown }).input))!;
  assert.equal((batch.body as { input: string[] }).input.length, 3);
  const nim = sent.find((e) => e.path === "/v1/ranking")!.body as { query: { text: string }; passages: unknown[] };
  assert.equal(typeof nim.query.text, "string");
  assert.equal(nim.passages.length, 2);
});

Deno.test("--wait-for-model-* waits through serve-sim's --load-delay; the model comes from /v1/models; run_info.server", async () => {
  await using tmp = await tempDir();
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--load-delay", "1.5", "--models", "nim/sim-llm", "--record-requests", journal]);
  const started = performance.timeOrigin + performance.now();
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "--url", sim.url, "--request-count", "2", "--osl", "2", "--artifact-dir", "out",
    "--wait-for-model-timeout", "30", "--wait-for-model-interval", "0.2", "--wait-for-model-mode", "both",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  assert.match(run.stderr, /Model: nim\/sim-llm \(no --model given/);
  assert.match(run.stderr, /Server ready after/);
  const summary = await readJson(join(tmp.path, "out", "profile_export_aiperf.json"));
  const server = (summary.run_info as { server?: Record<string, unknown> }).server;
  assert.equal(typeof server?.selected_model_profile_id, "string");
  assert.equal(typeof server?.nim_release, "string");
  await sim.stop();
  const sent = await readRequestJournal(journal);
  const firstReady = sent.find((e) => e.path === "/v1/health/ready");
  assert.ok(firstReady, "readiness was asked");
  // No inference request before the load delay has passed (the simulator started before `started`).
  const inference = sent.filter((e) => e.path === "/v1/chat/completions");
  assert.equal(inference.length, 3, "the one-token probe and the two requests");
  for (const e of inference) assert.ok(e.received_at_ms >= started + 1000, `sent ${e.received_at_ms - started} ms in`);
  assert.ok(inference.every((e) => (e.body as { model: string }).model === "nim/sim-llm"));
});
