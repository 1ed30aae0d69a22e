import assert from "node:assert/strict";
import { parsePeerRecords } from "../../../src/report/peers/peer_records.ts";
import { computePeerMetrics, type PeerMetricsResult } from "../../../src/report/peers/peer_metrics.ts";
import { PEERS, selectPeers } from "../../../src/report/peers/peer_registry.ts";
import { PEER_FIXTURE_JSONL } from "./peer_fixture.ts";

const result = computePeerMetrics(
  parsePeerRecords(PEER_FIXTURE_JSONL, "run/profile_export.jsonl"),
  selectPeers(["all"]),
);

function value(r: PeerMetricsResult, peer: string, key: string): number | null {
  const p = r.peers.find((x) => x.name === peer);
  assert.ok(p, `peer ${peer}`);
  const v = p.values.find((x) => x.key === key);
  assert.ok(v, `${peer} has ${key}`);
  return v.value;
}

function near(actual: number | null, expected: number, what: string, eps = 1e-9): void {
  assert.ok(
    actual !== null && Math.abs(actual - expected) <= eps * Math.max(1, Math.abs(expected)),
    `${what}: ${actual} ≠ ${expected}`,
  );
}

Deno.test("peer records leave warm-up out and rebuild chunk arrivals from TTFT and the chunk gaps", () => {
  const set = parsePeerRecords(PEER_FIXTURE_JSONL, "x.jsonl");
  assert.equal(set.warmupLines, 1);
  assert.equal(set.records.length, 3);
  assert.deepEqual(set.records[0].chunkTimesMs, [100, 110, 130, 160]);
  assert.deepEqual(set.records[1].chunkTimesMs, [250, 290]);
  assert.equal(set.records[2].ok, false);
  assert.equal(set.records[2].endMs, 400);
});

Deno.test("peer records name the file and line of a broken record", () => {
  assert.throws(
    () => parsePeerRecords('{"metadata":{"request_start_ns":1}}\nnot json\n', "r.jsonl"),
    /r\.jsonl:2: not valid JSON/,
  );
  assert.throws(
    () =>
      parsePeerRecords(
        '{"metadata":{"request_start_ns":1},"metrics":{"inter_chunk_latency":{"value":"x"}}}',
        "r.jsonl",
      ),
    /r\.jsonl:1: .*inter_chunk_latency/,
  );
  assert.throws(() => parsePeerRecords('{"metrics":{}}', "r.jsonl"), /r\.jsonl:1: not a per-request record/);
});

Deno.test("vLLM's figures: usage tokens for TPOT, pooled chunk gaps for ITL, totals over first send to last end", () => {
  near(value(result, "vllm", "completed"), 2, "completed");
  near(value(result, "vllm", "failed"), 1, "failed");
  near(value(result, "vllm", "duration"), 0.4, "duration: 0 → 400 ms");
  near(value(result, "vllm", "total_output_tokens"), 8, "usage 6 for A, client count 2 for B");
  near(value(result, "vllm", "request_throughput"), 5, "2 / 0.4");
  near(value(result, "vllm", "output_throughput"), 20, "8 / 0.4");
  near(value(result, "vllm", "total_token_throughput"), 270, "(100 + 8) / 0.4");
  near(value(result, "vllm", "mean_ttft_ms"), 150, "TTFT");
  near(value(result, "vllm", "p99_ttft_ms"), 199, "100 + 0.99 · 100");
  near(value(result, "vllm", "std_ttft_ms"), 50, "population std");
  near(value(result, "vllm", "mean_tpot_ms"), 26, "A (160−100)/(6−1) = 12, B 40/1 = 40");
  near(value(result, "vllm", "p99_tpot_ms"), 39.72, "12 + 0.99 · 28");
  near(value(result, "vllm", "mean_itl_ms"), 25, "gaps 10 20 30 40");
  near(value(result, "vllm", "p99_itl_ms"), 39.7, "30 + 0.97 · 10");
  near(value(result, "vllm", "mean_e2el_ms"), 200, "160 and 240");
  near(value(result, "vllm", "max_output_tokens_per_s"), 6, "all six chunks in the first second");
  near(value(result, "vllm", "max_concurrent_requests"), 2, "both successful requests in the first second");
});

Deno.test("SGLang's figures: latency to the stream's end, server tokens, Little's-law concurrency", () => {
  near(value(result, "sglang", "mean_e2e_latency_ms"), 210, "170 and 250");
  near(value(result, "sglang", "mean_tpot_ms"), 32, "A (170−100)/5 = 14, B (250−200)/1 = 50");
  near(value(result, "sglang", "p95_itl_ms"), 38.5, "30 + 0.85 · 10");
  near(value(result, "sglang", "max_itl_ms"), 40, "max gap");
  near(value(result, "sglang", "concurrency"), 1.05, "(0.17 + 0.25) / 0.4");
  near(value(result, "sglang", "total_output"), 8, "server count for A, client for B");
  near(value(result, "sglang", "total_output_retokenized"), 7, "client counts 5 + 2");
  near(value(result, "sglang", "input_throughput"), 250, "100 / 0.4");
});

Deno.test("GuideLLM's figures: TPOT with the first token, token-weighted means, nearest-rank percentiles", () => {
  near(value(result, "guidellm", "time_per_output_token_ms.mean"), 50, "(160/6 · 6 + 240/2 · 2) / 8");
  near(value(result, "guidellm", "time_per_output_token_ms.median"), 160 / 6, "weight 6 of 8 reaches 0.5");
  near(value(result, "guidellm", "time_per_output_token_ms.p95"), 120, "B's (290−50)/2");
  near(value(result, "guidellm", "inter_token_latency_ms.mean"), 100 / 6, "(12 · 5 + 40 · 1) / 6");
  near(value(result, "guidellm", "inter_token_latency_ms.median"), 12, "nearest rank");
  near(value(result, "guidellm", "time_to_first_token_ms.median"), 100, "cumulative 0.5 reached at the first");
  near(value(result, "guidellm", "request_latency.mean"), 0.21, "0.17 and 0.25 s");
  near(value(result, "guidellm", "requests_per_second.mean"), 7.5, "every status: 3 / 0.4");
  near(value(result, "guidellm", "output_tokens_per_second.mean"), 20, "usage 6 + 2 chunks = 8 / 0.4");
  near(value(result, "guidellm", "request_concurrency.mean"), 1.8, "(0.17 + 0.25 + 0.3) / 0.4");
});

Deno.test("LLMPerf's figures: (TTFT + gaps) / chunks per request in seconds, sample std", () => {
  near(value(result, "llmperf", "results_inter_token_latency_s.mean"), 0.08, "A 0.16/4 = 0.04, B 0.24/2 = 0.12");
  near(value(result, "llmperf", "results_inter_token_latency_s.quantiles.p99"), 0.1192, "0.04 + 0.99 · 0.08");
  near(value(result, "llmperf", "results_inter_token_latency_s.stddev"), Math.sqrt(0.0032), "ddof 1");
  near(value(result, "llmperf", "results_end_to_end_latency_s.mean"), 0.21, "stream close");
  near(value(result, "llmperf", "results_request_output_throughput_token_per_s.mean"), (5 / 0.17 + 2 / 0.25) / 2, "");
  near(value(result, "llmperf", "results_mean_output_throughput_token_per_s"), 17.5, "7 / 0.4");
  near(value(result, "llmperf", "results_num_completed_requests_per_min"), 300, "2 / 0.4 · 60");
  near(value(result, "llmperf", "results_number_errors"), 1, "the failure");
});

Deno.test("GenAI-Perf's figures: AIPerf's ITL, every request in the throughput, duration to the last response", () => {
  near(value(result, "genai-perf", "inter_token_latency.avg"), 27.5, "A 60/4 = 15, B 40/1 = 40");
  near(value(result, "genai-perf", "request_latency.avg"), 200, "160 and 240");
  near(value(result, "genai-perf", "request_throughput.avg"), 3 / 0.29, "3 requests / 0.29 s");
  near(value(result, "genai-perf", "output_token_throughput.avg"), 7 / 0.29, "7 tokens / 0.29 s");
});

Deno.test("infermeter's own values from the same records sit beside each peer's", () => {
  near(result.infermeter["inter_token_latency.avg"], 27.5, "AIPerf ITL with client counts");
  near(result.infermeter["inter_chunk_latency.avg"], 25, "pooled gaps");
  near(result.infermeter["output_token_throughput"], 7 / 0.29, "OSL 7 over first send → last content");
  const vllm = result.peers.find((p) => p.name === "vllm");
  const tpot = vllm?.resolved.find((e) => e.metric === "TPOT");
  assert.equal(tpot?.peerValue, 26);
  assert.equal(tpot?.infermeterValue, 27.5);
  assert.match(tpot?.why ?? "", /usage/);
});

Deno.test("every peer cites where it defines its metrics and explains each compared value", () => {
  for (const peer of PEERS.entries()) {
    assert.ok(peer.definedIn.length > 0, peer.name);
    for (const c of peer.definedIn) assert.ok(c.repository.includes("/") && c.file !== "" && c.function !== "");
    const report = result.peers.find((p) => p.name === peer.name);
    assert.ok(report && report.resolved.length >= 3, `${peer.name} explains its headline metrics`);
    for (const e of report.resolved) assert.ok(e.why.length > 40 && e.peerDefinition.length > 10);
  }
});

Deno.test("peer selection takes comma lists and all, and names the choices for an unknown tool", () => {
  assert.deepEqual(selectPeers(["guidellm,vllm"]).map((p) => p.name), ["vllm", "guidellm"]);
  assert.equal(selectPeers(["all"]).length, 5);
  assert.throws(() => selectPeers(["vlm"]), /unknown peer tool 'vlm'.*vllm/);
});
