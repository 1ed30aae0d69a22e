import assert from "node:assert/strict";
import { parsePeerRecords } from "../../../src/report/peers/peer_records.ts";
import { computePeerMetrics } from "../../../src/report/peers/peer_metrics.ts";
import { selectPeers } from "../../../src/report/peers/peer_registry.ts";
import { peerMetricsSectionHtml, peerMetricsSections } from "../../../src/report/peers/peer_metrics_section.ts";
import { PEER_FIXTURE_JSONL } from "./peer_fixture.ts";

const result = computePeerMetrics(
  parsePeerRecords(PEER_FIXTURE_JSONL, "<run>/profile_export.jsonl"),
  selectPeers(["vllm", "guidellm"]),
);

Deno.test("peer metrics section explains each compared metric beside both values", () => {
  const sections = peerMetricsSections(result);
  assert.equal(sections[0].kind, "heading");
  const why = sections.find((s) => s.kind === "table" && s.table.caption === "Why the values differ");
  assert.ok(why && why.kind === "table");
  const tpot = why.table.rows.find((r) => r[0] === "vllm bench serve" && r[1].startsWith("TPOT"));
  assert.ok(tpot, "vLLM's TPOT row");
  assert.equal(tpot[2], "26 ms");
  assert.equal(tpot[4], "inter_token_latency.avg");
  assert.equal(tpot[5], "27.500 ms");
  assert.ok(sections.some((s) => s.kind === "note" && s.text.includes("vllm/benchmarks/serve.py (calculate_metrics)")));
});

Deno.test("peer metrics section HTML escapes every text and is empty without peers", () => {
  const html = peerMetricsSectionHtml(result);
  assert.match(html, /^<section class="peer-metrics">/);
  assert.ok(html.includes("&#60;run&#62;/profile_export.jsonl"), "the path's angle brackets are escaped");
  assert.ok(!html.includes("<run>"));
  assert.equal(peerMetricsSectionHtml(computePeerMetrics(parsePeerRecords("", "x"), [])), "");
});
