import assert from "node:assert/strict";
import { parseGoodput, resolveGoodput } from "../../src/metrics/goodput.ts";
import { MetricAccumulator } from "../../src/metrics/metric_accumulator.ts";
import { MEMORY_STORE } from "../../src/metrics/float64_column.ts";
import { scratchFiles } from "../../src/metrics/column_spill.ts";
import { METRIC_REGISTRY } from "../../src/metrics/metric_registry.ts";
import type { MetricResult, RunSummary } from "../../src/metrics/run_summary.ts";
import { makeRecord } from "./record_fixture.ts";
import { didStream } from "../../src/metrics/did_stream.ts";
import type { RecordValue } from "../../src/metrics/metric_def.ts";
import type { ProcessedRecord } from "../../src/records/request_record.ts";

const selection = {
  streaming: true,
  producesTokens: true,
  tokenizesInput: true,
  supportsReasoning: true,
  goodput: true,
};
const metrics = METRIC_REGISTRY.selectMetrics(selection);
const ORIGIN = 1_700_000_000_000;

// R1: start 0, chunks 100/150/200 → latency 200, TTFT 100, OSL 3, ITL (200 − 100)/2 = 50, ICL [50, 50]
const r1 = makeRecord({ startAt: 0, responseTimes: [100, 150, 200], endAt: 210, outputTokens: 3, isl: 10 });
// R2: start 50, chunks 150…450 → latency 400, TTFT 100, OSL 4, ITL (400 − 100)/3 = 100, ICL [100, 100, 100]
const r2 = makeRecord({
  startAt: 50,
  responseTimes: [150, 250, 350, 450],
  endAt: 460,
  outputTokens: 4,
  isl: 20,
  scheduledAt: 45,
});
const http500 = { type: "HTTPError", code: 500, message: "boom" };
const e1 = makeRecord({ startAt: 100, endAt: 130, error: http500, isl: 30 });
const e2 = makeRecord({ startAt: 120, endAt: 600, error: http500, inputTokens: 30 });
const cancelled = makeRecord({ startAt: 130, endAt: 140, cancelled: true, isl: 30 });

function run(): { acc: MetricAccumulator; summary: RunSummary } {
  const { evaluator } = resolveGoodput(parseGoodput("request_latency:300"), metrics);
  const acc = new MetricAccumulator(metrics, { timeOriginMs: ORIGIN, goodput: evaluator, initialCapacity: 1 });
  for (const r of [r1, e1, r2, e2, cancelled]) acc.add(r);
  return { acc, summary: acc.summarize() };
}

function get(summary: RunSummary, tag: string): MetricResult {
  const m = summary.metrics.find((x) => x.tag === tag);
  assert.ok(m, `missing ${tag}`);
  return m;
}

const close = (a: number | undefined, b: number) => assert.ok(a !== undefined && Math.abs(a - b) < 1e-9, `${a} ≈ ${b}`);

Deno.test("accumulator returns one record's metric values in computation order", () => {
  const acc = new MetricAccumulator(metrics);
  const values = acc.add(r1);
  assert.equal(values.request_latency, 200);
  assert.equal(values.inter_token_latency, 50);
  assert.deepEqual(values.inter_chunk_latency, [50, 50]);
  const order = Object.keys(values);
  assert.ok(order.indexOf("output_sequence_length") < order.indexOf("inter_token_latency"));
  // failed records only get error_isl
  assert.deepEqual(acc.add(e1), { error_isl: 30 });
});

Deno.test("accumulator computes record statistics over successful requests only", () => {
  const { summary } = run();
  const latency = get(summary, "request_latency").stats;
  assert.ok(latency);
  // latencies [200, 400]: avg 300, p50 300, p99 200 + 200·0.99 = 398, population std 100
  assert.deepEqual([latency.count, latency.min, latency.max, latency.avg, latency.p50], [2, 200, 400, 300, 300]);
  close(latency.p99, 398);
  assert.equal(latency.std, 100);
  // ICL pools every gap: [50, 50, 100, 100, 100] → avg 80, count 5
  const icl = get(summary, "inter_chunk_latency").stats;
  assert.ok(icl);
  assert.deepEqual([icl.count, icl.avg, icl.p50], [5, 80, 100]);
});

Deno.test("accumulator derives duration, throughputs, totals and the error rate", () => {
  const { summary } = run();
  // first successful start 0, last successful response 50 + 400 = 450 → 0.45 s
  close(get(summary, "benchmark_duration").value, 0.45);
  assert.equal(summary.benchmarkDurationSec, get(summary, "benchmark_duration").value);
  assert.equal(get(summary, "request_count").value, 2);
  close(get(summary, "request_throughput").value, 2 / 0.45);
  // total OSL 3 + 4 = 7, total ISL 10 + 20 = 30
  assert.equal(get(summary, "total_osl").value, 7);
  assert.equal(get(summary, "total_isl").value, 30);
  close(get(summary, "output_token_throughput").value, 7 / 0.45);
  close(get(summary, "total_token_throughput").value, 37 / 0.45);
  // 3 failures of 5 → 60 %
  assert.equal(get(summary, "error_request_count").value, 3);
  assert.equal(get(summary, "request_error_rate").value, 60);
  // error ISL 30 × 3
  assert.equal(get(summary, "error_isl").stats?.count, 3);
  assert.equal(get(summary, "total_error_isl").value, 90);
  // wall-clock timestamps in ns: (origin + 0) · 1e6 and (origin + 450) · 1e6
  assert.equal(get(summary, "min_request_timestamp").value, ORIGIN * 1e6);
  assert.equal(get(summary, "max_response_timestamp").value, (ORIGIN + 450) * 1e6);
  // reasoning was never reported → no reasoning metrics
  assert.ok(!summary.metrics.some((m) => m.tag === "reasoning_token_count" || m.tag === "total_reasoning_tokens"));
});

Deno.test("accumulator counts good requests against the goodput SLOs", () => {
  const { summary } = run();
  // request_latency ≤ 300: R1 (200) yes, R2 (400) no → 1 good; 1 / 0.45 req/s; 1 / 5 requests
  assert.equal(get(summary, "good_request_count").value, 1);
  close(get(summary, "goodput").value, 1 / 0.45);
  assert.equal(get(summary, "good_request_fraction").value, 0.2);
});

Deno.test("accumulator groups errors by type, code and message in first-seen order", () => {
  const { summary } = run();
  assert.equal(summary.successCount, 2);
  assert.equal(summary.errorCount, 3);
  assert.deepEqual(summary.errors, [
    { error: { code: 500, type: "HTTPError", message: "boom" }, count: 2 },
    { error: { code: 499, type: "RequestCancellationError", message: "Request was cancelled" }, count: 1 },
  ]);
});

Deno.test("accumulator sorts results by display order and reports schedule lateness", () => {
  const { summary } = run();
  const orders = summary.metrics.map((m) => m.displayOrder);
  assert.deepEqual(orders, [...orders].sort((a, b) => a - b));
  assert.equal(summary.metrics[0].tag, "time_to_first_token");
  // only R2 had a due time: 50 − 45 = 5 ms late
  assert.equal(summary.scheduleLatenessMs?.avg, 5);
});

Deno.test("accumulator snapshot gives counts and running means without summarizing", () => {
  const { acc } = run();
  const snap = acc.snapshot();
  assert.equal(snap.successCount, 2);
  assert.equal(snap.errorCount, 3);
  assert.equal(snap.goodCount, 1);
  close(snap.elapsedSec, 0.45);
  assert.equal(snap.averages.request_latency, 300);
  assert.equal(snap.sums.output_sequence_length, 7);
  assert.equal(snap.averages.inter_chunk_latency, undefined);
});

Deno.test("accumulator summary of a fully failed run keeps the error rate and a duration", () => {
  const acc = new MetricAccumulator(metrics);
  acc.add(e1);
  acc.add(e2);
  const summary = acc.summarize();
  // The time-weighted metrics still describe the failed requests' concurrency.
  const timeWeighted = /^(effective_|active_|tokens_in_flight)/;
  assert.deepEqual(
    summary.metrics.map((m) => m.tag).filter((t) => !timeWeighted.test(t)),
    [
      "completed_request_count",
      "request_error_rate",
      "error_request_count",
      "context_overflow_count",
      "error_isl",
      "total_error_isl",
    ],
  );
  assert.ok(get(summary, "effective_concurrency").stats!.max >= 1);
  assert.equal(get(summary, "request_error_rate").value, 100);
  // span over all records: 100 → 600 ms
  assert.equal(summary.benchmarkDurationSec, 0.5);
});

Deno.test("accumulator throughputs divide by the phase window when the run gives one", () => {
  const { acc } = run();
  const plain = acc.summarize();
  const windowed = acc.summarize({ observationSec: 2 });
  // 2 successful requests: over benchmark_duration (0.45 s) and over a 2 s phase window.
  close(get(plain, "request_throughput").value!, 2 / 0.45);
  close(get(windowed, "request_throughput").value!, 1);
  // benchmark_duration itself stays first start → last response.
  close(get(windowed, "benchmark_duration").value!, 0.45);
  assert.equal(get(windowed, "completed_request_count").value, 5);
});

Deno.test("accumulator without goodput leaves the goodput metrics out", () => {
  const acc = new MetricAccumulator(metrics);
  acc.add(r1);
  const summary = acc.summarize();
  assert.ok(!summary.metrics.some((m) => m.tag.startsWith("good")));
  assert.equal(acc.snapshot().goodCount, undefined);
});

Deno.test("accumulator retains well under 1 KB per 100-token request", () => {
  const metrics = METRIC_REGISTRY.selectMetrics({
    streaming: true,
    producesTokens: true,
    tokenizesInput: true,
    supportsReasoning: true,
    goodput: false,
  });
  const acc = new MetricAccumulator(metrics);
  const n = 20_000;
  for (let i = 0; i < n; i++) {
    const times = Array.from({ length: 100 }, (_, k) => i + 50 + k * 13);
    acc.add({
      phase: "profiling",
      requestIndex: i,
      sessionNum: i,
      conversationId: "c",
      turnIndex: 0,
      xRequestId: "r",
      xCorrelationId: "c",
      workerId: "w",
      creditIssuedAt: i,
      startAt: i,
      endAt: times[99],
      responseTimes: times,
      firstOutputAt: times[0],
      lastResponseAt: times[99],
      content: "",
      reasoning: "",
      cancelled: false,
      outputTokens: 100,
      reasoningTokens: 0,
      isl: 8,
    });
  }
  // 99 inter-chunk gaps as float32 (396 B) + ~17 scalar record metrics as float64, plus growth slack.
  const perRequest = acc.retainedBytes() / n;
  assert.ok(perRequest < 1024, `retained ${perRequest.toFixed(0)} B per request`);
});

Deno.test("measure is pure and fold of its values equals add", () => {
  const { evaluator } = resolveGoodput(parseGoodput("request_latency:300"), metrics);
  const byAdd = new MetricAccumulator(metrics, { timeOriginMs: ORIGIN, goodput: evaluator });
  const bySteps = new MetricAccumulator(metrics, { timeOriginMs: ORIGIN, goodput: evaluator });
  for (const r of [r1, e1, r2, e2, cancelled]) {
    const values = bySteps.measure(r).toObject();
    assert.deepEqual(bySteps.measure(r).toObject(), values); // measuring twice changes nothing
    assert.equal(
      bySteps.snapshot().successCount + bySteps.snapshot().errorCount,
      byAdd.snapshot().successCount + byAdd.snapshot().errorCount,
    );
    bySteps.fold(r, bySteps.measure(r));
    assert.deepEqual(byAdd.add(r), values);
  }
  assert.deepEqual(bySteps.summarize(), byAdd.summarize());
});

Deno.test("accumulator adds AIPerf's error-adjusted rows when requests failed: each failure an infinite latency", () => {
  const { summary } = run();
  const adj = get(summary, "adj_request_latency");
  assert.equal(adj.header, "Request Latency (error-adjusted)");
  assert.equal(adj.consoleGroup, "llm");
  // Latencies 200 and 400 plus 3 failures (two errors, one cancellation): n = 5, nearest ranks.
  const s = adj.stats!;
  assert.equal(s.count, 5);
  assert.equal(s.min, 200);
  assert.equal(s.p25, 400); // index 1
  assert.equal(s.p50, Infinity); // index 2
  assert.equal(s.avg, Infinity);
  // After every other row of the main table.
  assert.equal(summary.metrics.filter((m) => m.consoleGroup === "llm").at(-1)!.tag.startsWith("adj_"), true);
  for (const tag of ["adj_time_to_first_token", "adj_inter_token_latency", "adj_decode_duration"]) get(summary, tag);
  // None without failures.
  const clean = new MetricAccumulator(metrics);
  clean.add(r1);
  assert.equal(clean.summarize().metrics.some((m) => m.tag.startsWith("adj_")), false);
});

Deno.test("accumulator summarizes the time-weighted metrics over the phase window it is given", () => {
  const { acc } = run();
  const windowed = acc.summarize({ windowEpochMs: { start: ORIGIN, end: ORIGIN + 1000 } });
  // Requests in flight: r1 [0,210), r2 [50,460), e1 [100,130), e2 [120,600), cancelled [130,140) → 1,160 ms·req.
  const c = get(windowed, "effective_concurrency").stats!;
  assert.ok(Math.abs(c.avg - (210 + 410 + 30 + 480 + 10) / 1000) < 1e-12, `${c.avg}`);
  assert.equal(c.max, 4);
  assert.ok(Number.isNaN(c.p1) && Number.isNaN(c.count));
});

/** A record's values the plain way: each record metric in order, on an object holding every value computed so far. */
function measuredPlainly(record: ProcessedRecord): Record<string, RecordValue> {
  const failed = record.error !== undefined || record.cancelled;
  const streamed = didStream(record);
  const values: Record<string, RecordValue> = {};
  for (const def of metrics) {
    if (def.kind !== "record" || (def.flags.errorOnly === true) !== failed) continue;
    if (!streamed && def.flags.streamingOnly) continue;
    const v = def.compute(record, values);
    if (v === undefined) continue;
    if (typeof v === "number") {
      if (Number.isFinite(v)) values[def.tag] = v;
    } else values[def.tag] = v.filter(Number.isFinite);
  }
  return values;
}

Deno.test("measure gives the plain values, in the same order, whatever the mix of record shapes", () => {
  let seed = 11;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const acc = new MetricAccumulator(metrics, { timeOriginMs: ORIGIN });
  let shapes = 0;
  const seen = new Set<string>();
  for (let i = 0; i < 3000; i++) {
    const start = i * 3;
    const chunks = random() < 0.3 ? 1 : 1 + Math.floor(random() * 5);
    const times = Array.from({ length: chunks }, (_, k) => start + 10 + k * 2 + random());
    const kind = random();
    const record = makeRecord({
      startAt: start,
      endAt: times[chunks - 1] + 1,
      responseTimes: kind < 0.1 ? [] : times,
      // Runs of one shape, then changes: the shapes alternate, repeat and drop metrics (no ISL, no usage, NaN).
      outputTokens: kind < 0.1 ? undefined : chunks + (random() < 0.2 ? 3 : 0),
      isl: random() < 0.15 ? undefined : 32,
      usage: random() < 0.5 ? { promptTokens: 32, completionTokens: chunks, totalTokens: 32 + chunks } : undefined,
      scheduledAt: random() < 0.3 ? start - random() : undefined,
      error: kind > 0.9 ? { type: "HTTPError", code: 500, message: "boom" } : undefined,
      cancelled: kind > 0.85 && kind <= 0.9,
      creditIssuedAt: random() < 0.05 ? NaN : start,
    });
    const values = acc.measure(record).toObject();
    const plain = measuredPlainly(record);
    assert.deepEqual(values, plain, `record ${i}`);
    assert.deepEqual(Object.keys(values), Object.keys(plain), `record ${i}: key order`);
    for (const v of Object.values(values)) assert.notEqual(v, null, `record ${i}: a placeholder left`);
    const key = Object.keys(plain).join(",");
    if (!seen.has(key)) {
      seen.add(key);
      shapes++;
    }
  }
  assert.ok(shapes >= 8, `only ${shapes} shapes: the mix does not exercise leaving a template`);
});

Deno.test("a summary is the same, to the last bit, when the columns hand their segments to a store", () => {
  let seed = 5;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const records: ProcessedRecord[] = [];
  for (let i = 0; i < 4000; i++) {
    const start = i * 2 + random();
    const chunks = random() < 0.2 ? 1 : 2 + Math.floor(random() * 12);
    const times = Array.from({ length: chunks }, (_, k) => start + 20 + k * (1 + random()) + random());
    const kind = random();
    records.push(makeRecord({
      startAt: start,
      endAt: times[chunks - 1] + random(),
      responseTimes: times,
      outputTokens: chunks + (random() < 0.3 ? 1 : 0),
      isl: random() < 0.5 ? 32 : 16 + Math.floor(random() * 64),
      scheduledAt: start - random(),
      error: kind > 0.93 ? { type: "HTTPError", code: 500, message: "boom" } : undefined,
      cancelled: kind > 0.9 && kind <= 0.93,
    }));
  }
  const { evaluator } = resolveGoodput(parseGoodput("request_latency:30"), metrics);
  const summarize = (options: { store?: typeof MEMORY_STORE; spillAt?: number }) => {
    const acc = new MetricAccumulator(metrics, { timeOriginMs: ORIGIN, goodput: evaluator, ...options });
    for (const r of records) acc.add(r);
    return { acc, summary: acc.summarize({ windowEpochMs: { start: ORIGIN + 100, end: ORIGIN + 7000 } }) };
  };
  const { acc: whole, summary: plain } = summarize({});
  for (const spillAt of [1, 97, 1000]) {
    const { acc, summary } = summarize({ store: MEMORY_STORE, spillAt });
    const kept = acc.retainedBytes(), all = whole.retainedBytes();
    assert.ok(kept < all / (spillAt === 1000 ? 2 : 10), `spillAt ${spillAt}: ${kept} of ${all} bytes kept in memory`);
    assert.deepEqual(summary, plain, `spillAt ${spillAt}`);
  }
  assert.ok(plain.metrics.some((m) => m.tag === "effective_decode_throughput" && m.stats!.avg > 0));
  assert.ok(plain.metrics.some((m) => m.tag === "adj_request_latency"));
});

Deno.test("time-weighted metrics are the same when their value ranges are set aside in the run's scratch files", () => {
  let seed = 9;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const records: ProcessedRecord[] = [];
  for (let i = 0; i < 1500; i++) {
    const start = i * 0.7 + random();
    const times = Array.from({ length: 12 }, (_, k) => start + 15 + k * (1 + random()));
    const failed = random() < 0.04;
    records.push(makeRecord({
      startAt: start,
      endAt: times[11] + random(),
      responseTimes: failed ? [] : times,
      outputTokens: failed ? undefined : 12,
      isl: 32,
      error: failed ? { type: "HTTPError", code: 500, message: "boom" } : undefined,
    }));
  }
  const dir = Deno.makeTempDirSync();
  const scratch = scratchFiles(dir);
  const summarize = (options: { scratch?: typeof scratch }) => {
    // A small budget: many value ranges per statistic, as a long run has at the default one.
    const acc = new MetricAccumulator(metrics, { timeOriginMs: ORIGIN, sweepBudget: 500, ...options });
    for (const r of records) acc.add(r);
    return acc.summarize();
  };
  const plain = summarize({});
  const aside = summarize({ scratch });
  assert.ok(scratch.opened() >= 4, `${scratch.opened()} scratch files: the statistics were not set aside`);
  assert.deepEqual(aside, plain);
  assert.deepEqual([...Deno.readDirSync(dir)], [], "a scratch file was left behind");
  Deno.removeSync(dir);
});

Deno.test("folding rows (its own, read by slot, or another accumulator's) sums up as folding values read by tag", () => {
  let seed = 5;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
  const records = Array.from({ length: 400 }, (_, i) => {
    const start = i * 3 + rand();
    const kind = Math.floor(rand() * 4);
    if (kind === 3) return makeRecord({ startAt: start, endAt: start + 7, error: http500, isl: 30 });
    // Streamed (several chunks) or not (one chunk of 5 tokens): the non-streamed ones have no streaming-only values.
    const chunks = kind === 0 ? 1 : 2 + Math.floor(rand() * 3);
    const times = Array.from({ length: chunks }, (_, c) => start + 10 + c * (1 + rand()));
    return makeRecord({
      startAt: start,
      responseTimes: times,
      endAt: times[chunks - 1] + 1,
      outputTokens: kind === 0 ? 5 : chunks,
      isl: 10 + i,
    });
  });
  // `bySlot` folds the rows its own `measure` returns; `byTag` gets copies keyed by tag of the rows another accumulator
  // measured, and `foreign` those rows themselves (another layout, mapped slot by slot).
  const bySlot = new MetricAccumulator(metrics, { timeOriginMs: ORIGIN });
  const byTag = new MetricAccumulator(metrics, { timeOriginMs: ORIGIN });
  const foreign = new MetricAccumulator(metrics, { timeOriginMs: ORIGIN });
  const other = new MetricAccumulator(metrics, { timeOriginMs: ORIGIN });
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    byTag.fold(r, other.measure(r).toObject());
    foreign.fold(r, other.measure(r));
    if (i % 2 === 0) bySlot.add(r);
    else bySlot.fold(r, bySlot.measure(r));
  }
  assert.deepEqual(foreign.summarize(), byTag.summarize());
  assert.deepEqual(bySlot.summarize(), byTag.summarize());
});

Deno.test("goodput judges every SLO's metric, also one no other metric reads", () => {
  // TTST is read by no metric's formula: the row's view must still carry it for the SLO.
  const { evaluator } = resolveGoodput(parseGoodput("time_to_second_token:5"), metrics);
  const acc = new MetricAccumulator(metrics, { timeOriginMs: ORIGIN, goodput: evaluator });
  // TTST 3 ms (good), 8 ms (not good), 4.5 ms (good): 2 good of 3.
  for (const [i, gap] of [3, 8, 4.5].entries()) {
    const start = 100 * i;
    acc.add(
      makeRecord({ startAt: start, responseTimes: [start + 10, start + 10 + gap], endAt: start + 30, outputTokens: 2 }),
    );
  }
  assert.equal(get(acc.summarize(), "good_request_count").value, 2);
});

Deno.test("folding rows of another metric set maps them by tag: the sums of folding their values keyed by tag", () => {
  // Rows of a non-streaming run's layout (no streaming-only slots), folded by accumulators of the streaming set.
  const plain = METRIC_REGISTRY.selectMetrics({ ...selection, streaming: false });
  const other = new MetricAccumulator(plain, { timeOriginMs: ORIGIN });
  const byRow = new MetricAccumulator(metrics, { timeOriginMs: ORIGIN });
  const byTag = new MetricAccumulator(metrics, { timeOriginMs: ORIGIN });
  for (let i = 0; i < 50; i++) {
    const start = i * 10;
    const r = i % 5 === 4 ? makeRecord({ startAt: start, endAt: start + 3, error: http500, isl: 7 }) : makeRecord({
      startAt: start,
      responseTimes: [start + 2 + (i % 3)],
      endAt: start + 6,
      outputTokens: 4,
      isl: 9 + i,
    });
    byTag.fold(r, other.measure(r).toObject());
    byRow.fold(r, other.measure(r));
  }
  assert.deepEqual(byRow.summarize(), byTag.summarize());
  assert.equal(get(byRow.summarize(), "input_sequence_length").stats!.max, 9 + 48);
});
