/**
 * Peers' metrics as a user gets them: `profile --peer-metrics` against serve-sim with known latencies, and
 * `infermeter peers DIR` on a finished run, including a run AIPerf 0.13 wrote.
 */
import assert from "node:assert/strict";
import { assertExit, readJson, runCli, startSim, tempDir } from "./cli_harness.ts";

interface PeerJson {
  name: string;
  values: { key: string; value: number | null }[];
  explanations: { metric: string; why: string }[];
}

function peerValue(doc: { peers: PeerJson[] }, peer: string, key: string): number {
  const v = doc.peers.find((p) => p.name === peer)?.values.find((x) => x.key === key)?.value;
  assert.ok(typeof v === "number", `${peer} ${key}: ${v}`);
  return v;
}

Deno.test("profile --peer-metrics reports the run as vLLM and GuideLLM would, from serve-sim's known chunk timing", async () => {
  await using tmp = await tempDir();
  // 20 output tokens, two per chunk, 20 ms between chunks: vLLM's ITL is a chunk gap (≈ 20 ms), its TPOT spreads
  // the 9 gaps over 19 tokens (≈ 9.5 ms); GuideLLM's TPOT adds the 40 ms TTFT over 20 tokens (≈ 11 ms).
  await using sim = await startSim(["--ttft", "40", "--itl", "10", "--tokens-per-chunk", "2"]);
  const run = await runCli([
    "profile",
    "--url",
    sim.url,
    "--model",
    "m",
    "--endpoint-type",
    "chat",
    "--streaming",
    "--request-count",
    "8",
    "--concurrency",
    "2",
    "--synthetic-input-tokens-mean",
    "30",
    "--output-tokens-mean",
    "20",
    "--extra-inputs",
    "ignore_eos:true",
    "--artifact-dir",
    `${tmp.path}/run`,
    "--ui",
    "none",
    "--peer-metrics",
    "vllm,guidellm",
  ], { cwd: tmp.path, timeoutMs: 60_000 });
  assertExit(run, 0);
  assert.match(run.stdout, /This run as each tool would report it/);
  assert.match(run.stdout, /vllm bench serve/);
  const doc = await readJson<{ peers: PeerJson[]; records: { successful: number } }>(
    `${tmp.path}/run/peer_metrics.json`,
  );
  assert.deepEqual(doc.peers.map((p) => p.name), ["vllm", "guidellm"]);
  assert.equal(doc.records.successful, 8);
  const itl = peerValue(doc, "vllm", "mean_itl_ms");
  const tpot = peerValue(doc, "vllm", "mean_tpot_ms");
  const gTpot = peerValue(doc, "guidellm", "time_per_output_token_ms.mean");
  assert.ok(itl > 18 && itl < 30, `vLLM ITL is a chunk gap: ${itl}`);
  assert.ok(tpot > 8.5 && tpot < 14, `vLLM TPOT is per token without the first: ${tpot}`);
  assert.ok(gTpot > tpot + 1, `GuideLLM's TPOT includes the first token's wait: ${gTpot} vs ${tpot}`);
  assert.equal(peerValue(doc, "vllm", "total_output_tokens"), 160);
});

Deno.test("peers reads a run AIPerf 0.13 wrote and writes peer_metrics.json beside it", async () => {
  await using tmp = await tempDir();
  const text = await Deno.readTextFile(
    new URL("../fixtures/aiperf_0_13/chat_streaming/profile_export.jsonl", import.meta.url),
  );
  await Deno.mkdir(`${tmp.path}/aiperf`);
  await Deno.writeTextFile(`${tmp.path}/aiperf/profile_export.jsonl`, text);
  const run = await runCli(["peers", `${tmp.path}/aiperf`], { cwd: tmp.path, timeoutMs: 30_000 });
  assertExit(run, 0);
  for (const tool of ["vllm bench serve", "sglang.bench_serving", "guidellm", "llmperf", "genai-perf"]) {
    assert.ok(run.stdout.includes(tool), tool);
  }
  const doc = await readJson<{ peers: PeerJson[]; infermeter: Record<string, number> }>(
    `${tmp.path}/aiperf/peer_metrics.json`,
  );
  assert.equal(doc.peers.length, 5);
  // GenAI-Perf's ITL is AIPerf's: on AIPerf's own records the two agree.
  const genai = peerValue(doc, "genai-perf", "inter_token_latency.avg");
  assert.ok(Math.abs(genai - doc.infermeter["inter_token_latency.avg"]) < 1e-3, `${genai}`);
});

Deno.test("peers refuses a directory without records, an unknown tool, and profile checks --peer-metrics first", async () => {
  await using tmp = await tempDir();
  const none = await runCli(["peers", tmp.path], { cwd: tmp.path, timeoutMs: 30_000 });
  assertExit(none, 2);
  assert.match(none.stderr, /profile_export\.jsonl: not found/);
  await Deno.writeTextFile(`${tmp.path}/profile_export.jsonl`, "");
  const unknown = await runCli(["peers", tmp.path, "--peer-metrics", "vlm"], { cwd: tmp.path, timeoutMs: 30_000 });
  assertExit(unknown, 2);
  assert.match(unknown.stderr, /unknown peer tool 'vlm'; did you mean/);
  const profile = await runCli(
    ["profile", "--url", "http://127.0.0.1:9", "--model", "m", "--peer-metrics", "guidelm", "--ui", "none"],
    { cwd: tmp.path, timeoutMs: 30_000 },
  );
  assertExit(profile, 2);
  assert.match(profile.stderr, /--peer-metrics: unknown peer tool 'guidelm'/);
});
