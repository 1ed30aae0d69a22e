/**
 * A/B micro-benchmark of the record path between two source trees, in one process: a 1-token record's metric values
 * (`measure`), their fold into the summary's columns (`fold`) and its JSONL line as bytes (`formatInto`), timed in
 * alternating 100 ms rounds (`alternating_ab.ts`), so both trees see the same machine. Records are shaped like
 * `record_path_bench.ts`'s (serve-sim's 1-token answers, every HTTP trace field set), each with its own ids.
 *
 *   git archive <commit> | tar -x -C /tmp/base
 *   deno run -A scripts/bench/record_path_ab.ts --base /tmp/base [--rounds 60] [--streaming]
 */
import { pathToFileURL } from "node:url";
import { abArgs, type AbRun, runAlternating } from "./alternating_ab.ts";
import type { ProcessedRecord } from "../../src/records/request_record.ts";

const { base, ours, rounds } = abArgs();
const streaming = Deno.args.includes("--streaming");
const BATCH = 64;
/** Records made, used round-robin; an accumulator is replaced after this many, so its columns stay small. */
const RECORDS = 16_384;

function record(i: number): ProcessedRecord {
  const t = 1000 + i * 0.137;
  const ttft = 1.5 + (i % 97) * 0.013;
  const last = t + ttft + (i % 7) * 1e-3;
  const responseTimes = streaming ? [t + ttft * 0.7, last] : [last];
  return {
    phase: "profiling",
    requestIndex: i,
    sessionNum: i % 64,
    conversationId: crypto.randomUUID(),
    turnIndex: 0,
    xRequestId: crypto.randomUUID(),
    xCorrelationId: crypto.randomUUID(),
    workerId: "worker_0",
    creditIssuedAt: t - 0.004,
    startAt: t,
    sentAt: t + 0.011,
    writeStartAt: t + 0.002,
    headersAt: t + ttft * (streaming ? 0.5 : 1),
    firstBodyAt: t + ttft,
    lastBodyAt: last,
    endAt: last + 0.001,
    responseTimes,
    lastResponseAt: last,
    firstOutputAt: last,
    status: 200,
    content: " the",
    reasoning: "",
    usage: { promptTokens: 32, completionTokens: 1, totalTokens: 33 },
    finishReason: "length",
    cancelled: false,
    inputTokens: 32,
    requestedOutputTokens: 1,
    connectionReused: true,
    bytesSent: 300 + (i % 5),
    bytesReceived: 460 + (i % 11),
    bodyBytesSent: 180,
    bodyBytesReceived: 340,
    chunksSent: 1,
    chunksReceived: streaming ? 4 : 1,
    outputTokens: 1,
    reasoningTokens: 0,
    isl: 32,
  };
}

const records = Array.from({ length: RECORDS }, (_, i) => record(i));

/** One tree's record path over a batch of records. */
async function pathOf(tree: string): Promise<AbRun> {
  const at = (path: string) => pathToFileURL(`${tree}/${path}`).href;
  const { METRIC_REGISTRY } = await import(at("src/metrics/metric_registry.ts"));
  const { MetricAccumulator } = await import(at("src/metrics/metric_accumulator.ts"));
  const { RecordLineFormatter } = await import(at("src/export/jsonl_writer.ts"));
  const metrics = METRIC_REGISTRY.selectMetrics({
    streaming,
    producesTokens: true,
    tokenizesInput: true,
    supportsReasoning: true,
    goodput: false,
  });
  const formatter = new RecordLineFormatter({ metrics, timeOriginMs: 1795872225783 });
  let acc = new MetricAccumulator(metrics, { timeOriginMs: 1795872225783 });
  let done = 0;
  return (from) => {
    let sum = 0;
    for (let i = 0; i < BATCH; i++) {
      const r = records[(from + i) % RECORDS];
      const values = acc.measure(r);
      acc.fold(r, values);
      sum += formatter.formatInto(r, values).at;
    }
    done += BATCH;
    if (done >= RECORDS) {
      acc = new MetricAccumulator(metrics, { timeOriginMs: 1795872225783 });
      done = 0;
    }
    return sum;
  };
}

console.log(`A ${base}, B ${ours}: ${streaming ? "streaming" : "non-streaming"} 1-token records`);
await runAlternating([await pathOf(base), await pathOf(ours)], rounds, BATCH);
