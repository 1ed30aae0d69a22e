/**
 * The exact merge: records from several shard processes, each with its own latency distribution, written as the
 * `shard` command's JSON lines, read back and folded into one accumulator give the same summary as one accumulator
 * fed every original record — no statistic is averaged across shards.
 */
import assert from "node:assert/strict";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { METRIC_REGISTRY } from "../../src/metrics/metric_registry.ts";
import type { ProcessedRecord, RequestRecord } from "../../src/records/request_record.ts";
import { RecordBus } from "../../src/run/record_bus.ts";
import { MetricsSink } from "../../src/run/sinks/metrics_sink.ts";
import {
  decodeShardMessage,
  encodeShardMessage,
  type FromShardProcess,
  readLines,
} from "../../src/run/shard_stream.ts";

const METRICS = METRIC_REGISTRY.selectMetrics({
  streaming: true,
  producesTokens: true,
  tokenizesInput: true,
  supportsReasoning: false,
  goodput: false,
});

/** Shard k's records: 0 fast and tight, 1 slow and wide, 2 bimodal with failures. */
function shardRecords(k: number, n: number): RequestRecord[] {
  const rng = new SeededRandom(1000 + k);
  const out: RequestRecord[] = [];
  for (let i = 0; i < n; i++) {
    const index = i * 3 + k;
    const startAt = 1000 + i * 7.3 + rng.next();
    const ttft = k === 0 ? 10 + rng.next() : k === 1 ? 150 + rng.exponential(80) : (rng.next() < 0.5 ? 5 : 400) +
      rng.next();
    const itl = k === 0 ? 2 + rng.next() * 0.1 : k === 1 ? 20 + rng.next() * 10 : 1 / 3 + rng.next();
    const tokens = 1 + rng.int(k === 1 ? 40 : 8);
    const times = Array.from({ length: tokens }, (_, t) => startAt + ttft + t * itl);
    const failed = k === 2 && i % 9 === 4;
    out.push({
      phase: "profiling",
      requestIndex: index,
      sessionNum: index,
      conversationId: `session_${index}`,
      turnIndex: 0,
      isFinalTurn: true,
      xRequestId: `r${index}`,
      xCorrelationId: `c${index}`,
      workerId: `worker_${k}`,
      creditIssuedAt: startAt - 0.01,
      startAt,
      sentAt: startAt + 0.02,
      headersAt: startAt + ttft * 0.5,
      endAt: times[times.length - 1] + 0.1,
      responseTimes: failed ? [] : times,
      firstOutputAt: failed ? undefined : times[0],
      lastResponseAt: failed ? undefined : times[times.length - 1],
      status: failed ? 500 : 200,
      content: failed ? "" : "tok ".repeat(tokens),
      reasoning: "",
      error: failed ? { type: "HTTPError", code: 500, message: "Internal Server Error" } : undefined,
      cancelled: false,
      inputTokens: 20 + k,
    });
  }
  return out;
}

/** Token counting as the record processor does it, deterministic per record. */
function processed(r: RequestRecord): ProcessedRecord {
  return r.error ? r : { ...r, outputTokens: r.content.split(" ").length - 1, isl: r.inputTokens };
}

function summarize(records: Iterable<RequestRecord>) {
  const metrics = new MetricsSink(METRICS, { timeOriginMs: 1.7e12, warmup: false });
  const bus = new RecordBus([metrics], metrics.measure);
  bus.phaseStarted("profiling", 1000);
  for (const r of records) {
    bus.arrived(r);
    bus.measured(processed(r));
  }
  return metrics.profiling.summarize({ observationSec: 2.5 });
}

/** A shard process's stdout as bytes, delivered in chunks that split lines (and characters) anywhere. */
function shardStdout(k: number, records: readonly RequestRecord[]): ReadableStream<Uint8Array> {
  const messages: FromShardProcess[] = [
    { t: "hello", index: k, of: 3, pid: 100 + k, timeOriginMs: 1.7e12 },
    { t: "ready" },
    { t: "started", startEpochMs: 1.7e12 + 1000, latenessMs: 0.05 },
    { t: "phase", phase: "profiling", at: 1000 },
    ...records.map((r) => ({ t: "r", r }) as const),
    { t: "done", outcome: {}, peakRssBytes: 1 },
  ];
  const bytes = new TextEncoder().encode(messages.map(encodeShardMessage).join(""));
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const size = 1 + (at * 7919) % 613;
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

Deno.test("records of shards with different distributions, through the shard stream, merge exactly", async () => {
  const shards = [0, 1, 2].map((k) => shardRecords(k, 300 + k * 50));
  const direct = summarize(shards.flat());

  // Read the three streams concurrently, as the coordinator does: records arrive interleaved.
  const arrived: RequestRecord[] = [];
  await Promise.all(shards.map(async (records, k) => {
    let n = 0;
    for await (const line of readLines(shardStdout(k, records))) {
      const m = decodeShardMessage(line, ++n);
      if (m.t === "r") arrived.push(m.r);
    }
  }));
  assert.equal(arrived.length, shards.flat().length);
  const merged = summarize(arrived);
  assert.deepStrictEqual(merged.metrics, direct.metrics);
  assert.equal(merged.successCount, direct.successCount);
  assert.equal(merged.errorCount, direct.errorCount);

  // The distributions really differ: averaging each shard's p99 would not give the merged one.
  const p99 = (s: ReturnType<typeof summarize>) => s.metrics.find((m) => m.tag === "time_to_first_token")!.stats!.p99;
  const perShard = shards.map((records) => p99(summarize(records)));
  const averaged = perShard.reduce((a, b) => a + b, 0) / perShard.length;
  assert.ok(Math.abs(averaged - p99(direct)) > 10, `averaged ${averaged} vs merged ${p99(direct)}`);
  assert.ok(new Set(perShard.map((v) => Math.round(v))).size === 3);
});

Deno.test("a malformed shard line is an error naming its line and field", () => {
  assert.throws(() => decodeShardMessage('{"t":"r","r":{"phase":"profiling"}}', 12), /line 12: record: field/);
  assert.throws(() => decodeShardMessage('{"t":"phase","phase":"x","at":1}', 3), /line 3: unknown phase/);
  assert.throws(() => decodeShardMessage('{"t":"nope"}'), /unknown message 'nope'/);
  assert.throws(() => decodeShardMessage("{"), /not JSON/);
});
