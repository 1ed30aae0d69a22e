import assert from "node:assert/strict";
import { parsePeerRecords } from "../../src/report/peers/peer_records.ts";
import {
  fileContains,
  serverTimingSplit,
  serverTimingSplitJson,
  serverTimingSplitSections,
  serverTimingSplitTable,
} from "../../src/report/server_timing_split.ts";

function line(startMs: number, metrics: Record<string, number | number[]>, timing?: Record<string, unknown>): string {
  const m: Record<string, { value: unknown; unit: string }> = {};
  for (const [k, v] of Object.entries(metrics)) m[k] = { value: v, unit: "ms" };
  const metadata: Record<string, unknown> = {
    request_start_ns: 1_000_000_000_000 + startMs * 1e6,
    request_end_ns: 1_000_000_000_000 + (startMs + 500) * 1e6,
  };
  if (timing !== undefined) metadata.server_timing = timing;
  return JSON.stringify({ metadata, metrics: m });
}

// A: TTFT 40, latency 140, OSL 11; server prefill 30, queue 4, decode 95 over 11 tokens.
// B: TTFT 60, latency 260, OSL 21; server prefill 50, decode 190 over 21 tokens.
// C: no server timing (left out). D: TGI totals only (non-streamed: latency 300, total 280, inference 270).
const TEXT = [
  line(
    0,
    { time_to_first_token: 40, inter_chunk_latency: [50, 50], request_latency: 140, output_sequence_length: 11 },
    {
      source: "llama.cpp",
      queue_ms: 4,
      prefill_ms: 30,
      decode_ms: 95,
      decode_tokens: 11,
    },
  ),
  line(10, { time_to_first_token: 60, inter_chunk_latency: [200], request_latency: 260, output_sequence_length: 21 }, {
    source: "llama.cpp",
    prefill_ms: 50,
    decode_ms: 190,
    decode_tokens: 21,
  }),
  line(20, { time_to_first_token: 10, request_latency: 10, output_sequence_length: 1 }),
  line(30, { request_latency: 300, output_sequence_length: 5 }, {
    source: "tgi",
    queue_ms: 0,
    inference_ms: 270,
    total_ms: 280,
  }),
].join("\n");

const split = serverTimingSplit(parsePeerRecords(TEXT, "r.jsonl").records)!;

function part(rows: readonly { part: string }[], name: string) {
  const r = rows.find((x) => x.part === name);
  assert.ok(r, name);
  return r as { part: string; count: number; avg: number; p50: number; p99: number };
}

Deno.test("server timing split: client TTFT = queue + prefill + network and client, per request", () => {
  assert.deepEqual(split.sources, ["llama.cpp", "tgi"]);
  assert.equal(split.withTiming, 3);
  assert.equal(split.requests, 4);
  const rest = part(split.ttft, "Network + client");
  assert.equal(rest.count, 2);
  assert.equal(rest.avg, (40 - 4 - 30 + (60 - 50)) / 2, "A 6, B 10");
  assert.equal(rest.p99, 6 + 0.99 * 4);
  assert.equal(part(split.ttft, "Server prefill").p50, 40);
  assert.equal(part(split.ttft, "Server queue").count, 2, "A's 4 and D's 0");
});

Deno.test("server timing split: client decode beside the server's, and ITL beside time per token", () => {
  assert.equal(part(split.decode, "Client decode").avg, (100 + 200) / 2);
  assert.equal(part(split.decode, "Client − server decode").avg, (5 + 10) / 2);
  assert.equal(part(split.decode, "Client ITL").avg, (10 + 10) / 2);
  assert.equal(part(split.decode, "Server time per token").avg, (95 / 11 + 190 / 21) / 2);
});

Deno.test("server timing split: servers that report totals give latency − server total", () => {
  assert.equal(part(split.total, "Network + client").avg, 20);
  assert.equal(part(split.total, "Server inference").avg, 270);
});

Deno.test("server timing split: nothing when no request carries a timing; table, JSON and report sections", () => {
  assert.equal(serverTimingSplit(parsePeerRecords(line(0, { request_latency: 5 }), "x").records), undefined);
  const table = serverTimingSplitTable(split);
  assert.match(table, /3 of 4 requests/);
  assert.match(table, /Network \+ client\s+2\s+8\.000/);
  const json = serverTimingSplitJson(split);
  assert.equal(json.requests_with_server_timing, 3);
  assert.equal(serverTimingSplitSections(split)[0].kind, "heading");
});

Deno.test("server timing split: a malformed server_timing names the line", () => {
  assert.throws(
    () => parsePeerRecords(line(0, {}, { source: "tgi", queue_ms: "3" }), "r.jsonl"),
    /r\.jsonl:1: server_timing\.queue_ms/,
  );
});

Deno.test("server timing split: the first pass finds the key anywhere in the file, across its reads, or not at all", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const key = new TextEncoder().encode('"server_timing"');
    const path = `${dir}/records.jsonl`;
    const filler = (n: number) => new Uint8Array(n).fill(0x22); // quotes: the key's first byte, everywhere
    for (const at of [0, 5, (1 << 20) - 7, (1 << 20) - 1, 1 << 20, 3 * (1 << 20) + 11]) {
      const bytes = new Uint8Array(at + key.length + 100);
      bytes.set(filler(at));
      bytes.set(key, at);
      await Deno.writeFile(path, bytes);
      assert.equal(await fileContains(path, key), true, `key at ${at}`);
      // one byte of it changed: not found
      bytes[at + key.length - 2] = 0x78;
      await Deno.writeFile(path, bytes);
      assert.equal(await fileContains(path, key), false, `broken key at ${at}`);
    }
    await Deno.writeFile(path, new Uint8Array(0));
    assert.equal(await fileContains(path, key), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
