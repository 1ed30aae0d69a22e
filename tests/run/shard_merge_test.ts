/**
 * The exact merge, over each of the shard protocol's three transports (structured clone as for Workers, JSON lines
 * as for processes, gzip chunks in ConfigMaps as for Kubernetes pods): records from several shards, each with its
 * own latency distribution, sent by shards while the coordinator merges them into one record callback, give the
 * same summary as one accumulator fed every original record — no statistic is averaged across shards.
 */
import assert from "node:assert/strict";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { METRIC_REGISTRY } from "../../src/metrics/metric_registry.ts";
import type { ProcessedRecord, RequestRecord } from "../../src/records/request_record.ts";
import { RecordBus } from "../../src/run/record_bus.ts";
import { MetricsSink } from "../../src/run/sinks/metrics_sink.ts";
import { coordinateShards } from "../../src/engine/coordinate_shards.ts";
import type { ShardChannel, ShardLink } from "../../src/engine/shard_event.ts";
import { decodeEventLine, lineChannel, type LineChild, processLink } from "../../src/engine/shard_lines.ts";
import { cloneChannel, cloneLink } from "../../src/engine/shard_worker.ts";
import { KubeRecordLinks, kubeShardChannel } from "../../src/kube/records_channel.ts";
import { kubePaths } from "../../src/kube/kube_client.ts";
import { FakeKubeApi } from "../kube/fake_kube_api.ts";

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

/** Both ends of one transport for `count` shards. */
interface Transport {
  readonly name: string;
  open(count: number): { channels: ShardChannel[]; links: ShardLink[]; close(): void; check?(): void };
}

/** Bytes re-cut into pieces that split lines (and characters) anywhere, as a pipe may deliver them. */
function rechunk(seed: number): TransformStream<Uint8Array, Uint8Array> {
  const rng = new SeededRandom(seed);
  return new TransformStream({
    transform(chunk, controller) {
      let at = 0;
      while (at < chunk.length) {
        const size = 1 + rng.int(613);
        controller.enqueue(chunk.slice(at, at + size));
        at += size;
      }
    },
  });
}

/** A shard process's pipes, without the process: its stdout carries what its channel writes. */
function pipeChild(k: number): { child: LineChild; out: { write(p: Uint8Array): Promise<number> }; exit(): void } {
  const pipe = rechunk(k);
  const writer = pipe.writable.getWriter();
  let exited!: (s: { code: number; signal: string | null }) => void;
  const status = new Promise<{ code: number; signal: string | null }>((r) => exited = r);
  return {
    child: { stdout: pipe.readable, stdin: new WritableStream(), status, kill: () => {} },
    out: { write: async (p) => (await writer.write(p.slice()), p.length) },
    exit: () => {
      void writer.close();
      exited({ code: 0, signal: null });
    },
  };
}

const TRANSPORTS: Transport[] = [
  {
    name: "structured clone (Workers)",
    open(count) {
      const pairs = Array.from({ length: count }, () => new MessageChannel());
      return {
        channels: pairs.map((p) => cloneChannel(p.port1).channel),
        links: pairs.map((p) => cloneLink(p.port2, { close: () => (p.port1.close(), p.port2.close()) })),
        close: () => {},
      };
    },
  },
  {
    name: "JSON lines (processes)",
    open(count) {
      const pipes = Array.from({ length: count }, (_, k) => pipeChild(k));
      return {
        channels: pipes.map((p) => {
          const channel = lineChannel(p.out);
          return { ...channel, close: async () => (await channel.close(), p.exit()) };
        }),
        links: pipes.map((p) => processLink(p.child)),
        close: () => {},
      };
    },
  },
  {
    name: "gzip chunks (Kubernetes)",
    open(count) {
      const api = new FakeKubeApi();
      const cms = kubePaths.configMaps("ns");
      api.put(cms, { metadata: { name: "run-start" } });
      // Two uploads fail at first and are retried: the chunks still arrive once each, in order.
      api.failCreates = [503, 429];
      const links = new KubeRecordLinks(api, { run: "run", namespace: "ns", shards: count });
      const channels = Array.from({ length: count }, (_, k) =>
        kubeShardChannel({
          api,
          run: "run",
          namespace: "ns",
          index: k,
          pod: `run-${k}-pod`,
          intervalMs: 3,
          retryDelaysMs: [1, 1, 1],
        }));
      return {
        channels,
        links: [...links.links],
        close: () => links.close(),
        check: () => {
          // Several chunks per shard, uploaded while it ran; the failed uploads were retried.
          assert.ok(api.created.length >= 3 * 3, `${api.created.length} chunks`);
          assert.deepEqual(api.failCreates, []);
          assert.deepEqual(links.problems, []);
        },
      };
    },
  },
];

/** A hosted shard's side of the protocol, sending its records in batches of varying size as a busy shard does. */
async function sendShard(channel: ShardChannel, k: number, records: readonly RequestRecord[]): Promise<void> {
  const rng = new SeededRandom(77 + k);
  channel.onControl(() => {});
  channel.send({ type: "hello", index: k, of: 3, pid: 100 + k, timeOriginMs: 1.7e12 });
  channel.send({ type: "ready" });
  channel.send({ type: "started", startEpochMs: 1.7e12 + 1000, latenessMs: 0.05 });
  channel.send({ type: "phase", phase: "profiling", at: 1000 });
  for (let i = 0; i < records.length;) {
    const n = 1 + rng.int(40);
    channel.send({ type: "records", records: records.slice(i, i + n) });
    i += n;
    // Lets the other shards' sends in between: the coordinator sees the streams interleaved.
    await new Promise((r) => setTimeout(r, rng.int(3)));
  }
  channel.send({ type: "done", outcome: {}, peakRssBytes: 1 });
  await channel.close();
}

for (const transport of TRANSPORTS) {
  Deno.test(`records of shards with different distributions merge exactly over ${transport.name}`, async () => {
    const shards = [0, 1, 2].map((k) => shardRecords(k, 300 + k * 50));
    const direct = summarize(shards.flat());

    const { channels, links, close, check } = transport.open(3);
    const arrived: RequestRecord[] = [];
    const sources = new Set<string>();
    const [merged] = await Promise.all([
      coordinateShards({
        links,
        timeOriginMs: 1.7e12,
        signal: new AbortController().signal,
        onRecord: (r) => {
          arrived.push(r);
          sources.add(r.workerId);
        },
      }),
      ...channels.map((c, k) => sendShard(c, k, shards[k])),
    ]).finally(close);
    assert.deepEqual(merged.lost, []);
    check?.();
    assert.deepEqual(merged.reports.map((r) => r.records), [300, 350, 400]);
    assert.equal(arrived.length, shards.flat().length);
    // Interleaved: the first records to arrive are not all one shard's.
    assert.ok(new Set(arrived.slice(0, 400).map((r) => r.workerId)).size > 1);
    assert.equal(sources.size, 3);
    const result = summarize(arrived);
    assert.deepStrictEqual(result.metrics, direct.metrics);
    assert.equal(result.successCount, direct.successCount);
    assert.equal(result.errorCount, direct.errorCount);

    // The distributions really differ: averaging each shard's p99 would not give the merged one.
    const p99 = (s: ReturnType<typeof summarize>) => s.metrics.find((m) => m.tag === "time_to_first_token")!.stats!.p99;
    const perShard = shards.map((records) => p99(summarize(records)));
    const averaged = perShard.reduce((a, b) => a + b, 0) / perShard.length;
    assert.ok(Math.abs(averaged - p99(direct)) > 10, `averaged ${averaged} vs merged ${p99(direct)}`);
    assert.ok(new Set(perShard.map((v) => Math.round(v))).size === 3);
  });
}

Deno.test("a malformed shard line is an error naming its line and field", () => {
  assert.throws(() => decodeEventLine('{"t":"r","r":{"phase":"profiling"}}', 12), /line 12: record: field/);
  assert.throws(() => decodeEventLine('{"t":"phase","phase":"x","at":1}', 3), /line 3: unknown phase/);
  assert.throws(() => decodeEventLine('{"t":"nope"}'), /unknown message 'nope'/);
  assert.throws(() => decodeEventLine("{"), /not JSON/);
});
