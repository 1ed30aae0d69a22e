import assert from "node:assert/strict";
import {
  answerClockPings,
  CHUNK_ANNOTATION,
  CHUNK_BYTES,
  chunkObject,
  DIGEST_ANNOTATION,
  gzip,
  KubeRecordLinks,
  kubeShardChannel,
  LAST_ANNOTATION,
  measureClock,
} from "../../src/kube/records_channel.ts";
import { coordinateShards } from "../../src/engine/coordinate_shards.ts";
import { encodeEventLines } from "../../src/engine/shard_lines.ts";
import type { ShardControl } from "../../src/engine/shard_event.ts";
import { kubePaths } from "../../src/kube/kube_client.ts";
import { CANCEL_ANNOTATION, START_ANNOTATION } from "../../src/kube/kube_manifests.ts";
import type { RequestRecord } from "../../src/records/request_record.ts";
import { FakeKubeApi } from "./fake_kube_api.ts";

const CMS = kubePaths.configMaps("ns");

function record(i: number, endAt: number, content = `answer ${i}`): RequestRecord {
  return {
    phase: "profiling",
    requestIndex: i,
    sessionNum: i,
    conversationId: `s${i}`,
    turnIndex: 0,
    xRequestId: `r${i}`,
    xCorrelationId: `c${i}`,
    workerId: "worker_0",
    creditIssuedAt: endAt - 30,
    startAt: endAt - 29.5,
    endAt,
    responseTimes: [endAt - 20 + 1 / 3, endAt],
    status: 200,
    content,
    reasoning: "",
    cancelled: false,
  } as RequestRecord;
}

function setup(shards: number) {
  const api = new FakeKubeApi();
  api.put(CMS, { metadata: { name: "run-start" } });
  const links = new KubeRecordLinks(api, { run: "run", namespace: "ns", shards });
  const channel = (index: number, pod = `pod-${index}`, intervalMs = 5) =>
    kubeShardChannel({ api, run: "run", namespace: "ns", index, pod, intervalMs, retryDelaysMs: [1] });
  return { api, links, channel };
}

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

async function until(test: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !test(); i++) await tick(5);
  assert.ok(test(), what);
}

Deno.test("kube records: chunks are uploaded while the shard runs, in order, checksummed, the last one marked", async () => {
  const { api, links, channel } = setup(1);
  const c = channel(0);
  c.onControl(() => {});
  c.send({ type: "hello", index: 0, of: 1, pid: 1, timeOriginMs: 0 });
  c.send({ type: "records", records: [record(0, 10), record(1, 11)] });
  await until(() => api.created.length === 1, "the first chunk is uploaded before the shard ends");
  c.send({ type: "activity", activities: [{ target: "x", lastDataAt: 1, stages: {}, inFlight: 1 }] });
  c.send({ type: "records", records: [record(2, 12)] });
  await until(() => api.created.length === 2, "a second chunk after the next interval");
  c.send({ type: "done", outcome: {} });
  await c.close();
  assert.deepEqual(api.created, ["run-records-0-0", "run-records-0-1", "run-records-0-2"]);
  const chunks = api.objects(CMS).filter((o) => o.metadata?.name?.startsWith("run-records-"));
  assert.deepEqual(chunks.map((o) => o.metadata?.annotations?.[CHUNK_ANNOTATION]), ["0", "1", "2"]);
  assert.deepEqual(chunks.map((o) => o.metadata?.annotations?.[LAST_ANNOTATION]), [undefined, undefined, "true"]);
  assert.ok(chunks.every((o) => /^[0-9a-f]{64}$/.test(o.metadata?.annotations?.[DIGEST_ANNOTATION] ?? "")));
  assert.ok(chunks.every((o) => o.metadata?.labels?.["app.kubernetes.io/instance"] === "run"));

  const got: RequestRecord[] = [];
  const merged = await coordinateShards({
    links: links.links,
    timeOriginMs: 0,
    signal: new AbortController().signal,
    onRecord: (r) => got.push(r),
    lossBeforeStart: "partial",
  });
  links.close();
  assert.deepEqual(got.map((r) => r.requestIndex), [0, 1, 2]);
  assert.deepEqual(merged.lost, []);
});

Deno.test("kube records: a shard killed mid-run loses only what came after its last upload", async () => {
  const { api, links, channel } = setup(2);
  const got: RequestRecord[] = [];
  const merging = coordinateShards({
    links: links.links,
    timeOriginMs: 0,
    signal: new AbortController().signal,
    onRecord: (r) => got.push(r),
    lossBeforeStart: "partial",
    phaseStart: "earliest",
  });
  const [a, b] = [channel(0), channel(1)];
  for (const [i, c] of [a, b].entries()) {
    c.onControl(() => {});
    c.send({ type: "hello", index: i, of: 2, pid: 1, timeOriginMs: 0 });
    c.send({ type: "started", startEpochMs: 1, latenessMs: 0 });
    c.send({ type: "phase", phase: "profiling", at: 1 });
  }
  b.send({ type: "records", records: [record(10, 10), record(11, 11)] });
  await until(() => got.length === 2, "shard 1's first records arrive during the run");
  // Shard 1's pod dies now (no upload of it lands any more): what it measured since its last upload is lost.
  api.refuse = (name) => name.startsWith("run-records-1-") ? 403 : undefined;
  b.send({ type: "records", records: [record(12, 12)] });
  a.send({ type: "records", records: [record(0, 10)] });
  a.send({ type: "done", outcome: {} });
  await a.close();
  await links.settle(1, "lost its pod");
  const merged = await merging;
  links.close();
  assert.deepEqual(got.map((r) => r.requestIndex).sort((x, y) => x - y), [0, 10, 11]);
  assert.equal(merged.lost.length, 1);
  assert.equal(merged.lost[0].index, 1);
  assert.equal(merged.lost[0].records, 2);
  assert.match(merged.lost[0].reason, /^lost its pod \(its records end at chunk \d\)$/);
  await b.close().catch(() => {});
});

Deno.test("kube records: another pod's chunks for an index are refused; a corrupt chunk ends its stream there", async () => {
  const { api, links, channel } = setup(2);
  const got: RequestRecord[] = [];
  const merging = coordinateShards({
    links: links.links,
    timeOriginMs: 0,
    signal: new AbortController().signal,
    onRecord: (r) => got.push(r),
    lossBeforeStart: "partial",
  });
  const first = channel(0, "pod-a");
  first.onControl(() => {});
  first.send({ type: "hello", index: 0, of: 2, pid: 1, timeOriginMs: 0 });
  first.send({ type: "records", records: [record(0, 10)] });
  first.send({ type: "done", outcome: {} });
  await first.close();
  // A retried index (a second pod) would replay its load: its chunks must not count.
  const lines = encodeEventLines({ type: "records", records: [record(99, 10)] });
  await api.create(
    CMS,
    await chunkObject({
      run: "run",
      namespace: "ns",
      index: 0,
      pod: "pod-b",
      seq: 5,
      last: false,
      gzipped: await gzip(new TextEncoder().encode(lines)),
    }),
  );
  // Index 1: chunk 0 fine, chunk 1 altered after its digest was taken.
  for (
    const [seq, text] of [[0, encodeEventLines({ type: "hello", index: 1, of: 2, pid: 2, timeOriginMs: 0 })], [
      1,
      encodeEventLines({ type: "records", records: [record(50, 10)] }),
    ]] as const
  ) {
    const object = await chunkObject({
      run: "run",
      namespace: "ns",
      index: 1,
      pod: "pod-c",
      seq,
      last: false,
      gzipped: await gzip(new TextEncoder().encode(text)),
    });
    if (seq === 1) (object.metadata as { annotations: Record<string, string> }).annotations[DIGEST_ANNOTATION] = "0";
    await api.create(CMS, object);
  }
  await links.settle(1, "lost its pod");
  const merged = await merging;
  links.close();
  assert.deepEqual(got.map((r) => r.requestIndex), [0]);
  assert.deepEqual(merged.lost.map((l) => [l.index, l.reason]), [[1, "uploaded a corrupt records chunk (1)"]]);
  assert.ok(links.problems.some((p) => /index 0: records from pod pod-b as well as pod-a: duplicated/.test(p)));
  assert.ok(links.problems.some((p) => /index 1: records chunk 1 digest mismatch/.test(p)));
});

Deno.test("kube records: a chunk too big once compressed is cut in two at a line, both in order", async () => {
  const { api, links, channel } = setup(1);
  // Random text hardly compresses: six 300 kB records make well over one chunk's limit.
  const noise = (n: number) => {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i += 65536) crypto.getRandomValues(b.subarray(i, Math.min(n, i + 65536)));
    return btoa(String.fromCharCode(...b.subarray(0, 1))) + [...b].map((x) => (x % 64).toString(36)).join("");
  };
  const records = Array.from({ length: 6 }, (_, i) => record(i, 10 + i, noise(300_000)));
  const c = channel(0, "pod-0", 60_000);
  c.onControl(() => {});
  c.send({ type: "hello", index: 0, of: 1, pid: 1, timeOriginMs: 0 });
  c.send({ type: "records", records });
  c.send({ type: "done", outcome: {} });
  await c.close();
  const chunks = api.objects(CMS).filter((o) => o.metadata?.name?.startsWith("run-records-"));
  assert.ok(chunks.length >= 2, `${chunks.length} chunks`);
  for (const o of chunks) {
    const b64 = (o as { binaryData: Record<string, string> }).binaryData["records.jsonl.gz"];
    assert.ok(b64.length * 3 / 4 <= CHUNK_BYTES + 3);
  }
  const got: RequestRecord[] = [];
  await coordinateShards({
    links: links.links,
    timeOriginMs: 0,
    signal: new AbortController().signal,
    onRecord: (r) => got.push(r),
  });
  links.close();
  assert.deepEqual(got.map((r) => r.content), records.map((r) => r.content));
});

Deno.test("kube records: clock measured, ready reported on the start ConfigMap, then the start and a cancel", async () => {
  const { api, links, channel } = setup(1);
  const answers = new AbortController();
  const answering = (async () => {
    for await (const e of api.watch(CMS, { signal: answers.signal })) {
      await answerClockPings(api, `${CMS}/run-start`, e.object, () => performance.timeOrigin + performance.now() + 40);
    }
  })();
  const c = channel(0, "pod-x");
  const controls: ShardControl[] = [];
  c.onControl((x) => controls.push(x));
  c.send({ type: "hello", index: 0, of: 1, pid: 1, timeOriginMs: 0 });
  c.send({ type: "ready" });
  const startCm = `${CMS}/run-start`;
  await until(
    () => (api.objects(CMS)[0].metadata?.annotations ?? {})["infermeter.dev/ready-0"] === "pod-x",
    "ready annotation",
  );
  answers.abort();
  await answering;
  const annotations = api.objects(CMS)[0].metadata?.annotations ?? {};
  assert.equal(annotations["infermeter.dev/clock-ping-0"], undefined, "the clock annotations are cleared");
  await api.mergePatch(startCm, { metadata: { annotations: { [START_ANNOTATION]: "1700000000123" } } });
  await until(() => controls.length === 1, "start delivered");
  // The coordinator's clock runs 40 ms ahead of this one: the start, on this clock, is about 40 ms earlier.
  const start = controls[0] as Extract<ShardControl, { type: "start" }>;
  assert.ok(Math.abs(1700000000123 - start.epochMs - 40) < 20, String(start.epochMs));
  await links.cancel();
  assert.ok(api.objects(CMS)[0].metadata?.annotations?.[CANCEL_ANNOTATION] !== undefined);
  await until(() => controls.length === 2, "cancel delivered");
  assert.deepEqual(controls[1], { type: "cancel" });
  await c.close();
  links.close();
});

Deno.test("kube clock: a shard 300 ms behind measures +300 ms against the coordinator, within its bound", async () => {
  const api = new FakeKubeApi();
  api.put(CMS, { metadata: { name: "run-start" } });
  const stop = new AbortController();
  const real = () => performance.timeOrigin + performance.now();
  // The coordinator answers each ping as its watch shows it, after a little work of its own.
  const answering = (async () => {
    for await (const e of api.watch(CMS, { signal: stop.signal })) {
      await tick(1);
      await answerClockPings(api, `${CMS}/run-start`, e.object, real);
    }
  })();
  const clock = await measureClock({
    api,
    run: "run",
    namespace: "ns",
    index: 3,
    stop: new AbortController().signal,
    now: () => real() - 300,
  });
  stop.abort();
  await answering;
  assert.ok(clock !== undefined);
  assert.ok(Math.abs(clock.offsetMs - 300) <= clock.uncertaintyMs + 0.01, JSON.stringify(clock));
  assert.ok(clock.uncertaintyMs < 50, JSON.stringify(clock));
  const annotations = api.objects(CMS)[0].metadata?.annotations ?? {};
  assert.equal(annotations["infermeter.dev/clock-ping-3"], "5");
  assert.match(annotations["infermeter.dev/clock-pong-3"], /^5:\d+(\.\d+)?$/);
});

Deno.test("kube clock: no coordinator answering leaves the offset unmeasured, said once", async () => {
  const api = new FakeKubeApi();
  api.put(CMS, { metadata: { name: "run-start" } });
  const stop = new AbortController();
  setTimeout(() => stop.abort(), 50);
  const clock = await measureClock({ api, run: "run", namespace: "ns", index: 0, stop: stop.signal });
  assert.equal(clock, undefined);
});
