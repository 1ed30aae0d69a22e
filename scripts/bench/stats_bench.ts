/**
 * Measures metric accumulation and summary for 1M streamed records (target: < 2 s in total).
 *
 *   deno run -A scripts/bench/stats_bench.ts [records=1000000] [chunksPerRecord=8]
 *
 * Records are generated before timing; the timed part is `MetricAccumulator.add()` for every record
 * (all record metrics, the inter-chunk-latency list, aggregates, goodput) and one `summarize()` (exact
 * statistics: one typed-array sort per metric).
 */
import { parseGoodput, resolveGoodput } from "../../src/metrics/goodput.ts";
import { MetricAccumulator } from "../../src/metrics/metric_accumulator.ts";
import { METRIC_REGISTRY } from "../../src/metrics/metric_registry.ts";
import type { ProcessedRecord } from "../../src/records/request_record.ts";

const count = Number(Deno.args[0] ?? 1_000_000);
const chunks = Number(Deno.args[1] ?? 8);

/** Deterministic xorshift32 in [0, 1). */
let seed = 0x9e3779b9;
function random(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
}

const records: ProcessedRecord[] = new Array(count);
for (let i = 0; i < count; i++) {
  const startAt = i * 0.5 + random();
  const times = new Array<number>(chunks);
  let t = startAt + 20 + random() * 80;
  for (let c = 0; c < chunks; c++) {
    times[c] = t;
    t += 5 + random() * 10;
  }
  records[i] = {
    phase: "profiling",
    requestIndex: i,
    sessionNum: i,
    conversationId: "c",
    turnIndex: 0,
    xRequestId: "r",
    xCorrelationId: "x",
    workerId: "worker_0",
    creditIssuedAt: startAt,
    startAt,
    endAt: t,
    responseTimes: times,
    firstOutputAt: times[0],
    content: "",
    reasoning: "",
    cancelled: false,
    outputTokens: chunks,
    isl: 100 + (i % 50),
  };
}

const metrics = METRIC_REGISTRY.selectMetrics({
  streaming: true,
  producesTokens: true,
  tokenizesInput: true,
  supportsReasoning: false,
  goodput: true,
});
const { evaluator } = resolveGoodput(parseGoodput("request_latency:150 inter_token_latency:12"), metrics);

const t0 = performance.now();
const acc = new MetricAccumulator(metrics, { timeOriginMs: performance.timeOrigin, goodput: evaluator });
for (let i = 0; i < count; i++) acc.add(records[i]);
const t1 = performance.now();
const summary = acc.summarize();
const t2 = performance.now();

const latency = summary.metrics.find((m) => m.tag === "request_latency")?.stats;
const icl = summary.metrics.find((m) => m.tag === "inter_chunk_latency")?.stats;
console.log(`records:       ${count.toLocaleString("en-US")} (${chunks} chunks each)`);
console.log(`accumulate:    ${(t1 - t0).toFixed(0)} ms (${((t1 - t0) * 1000 / count).toFixed(2)} µs/record)`);
console.log(
  `summarize:     ${(t2 - t1).toFixed(0)} ms (${summary.metrics.length} metrics, ICL ${
    icl?.count.toLocaleString("en-US")
  } values)`,
);
console.log(`total:         ${(t2 - t0).toFixed(0)} ms`);
console.log(`check:         request_latency p50 ${latency?.p50.toFixed(3)} ms, p99 ${latency?.p99.toFixed(3)} ms`);
