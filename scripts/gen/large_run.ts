/**
 * `deno run -A scripts/gen/large_run.ts --dir /tmp/run10m [--records 10000000] [--concurrency 256] [--osl 20]
 * [--error-rate 0.01] [--seed 1]`: writes a run directory as a long streaming chat soak would leave it — the
 * per-request `profile_export.jsonl`, the summary `profile_export_aiperf.json` and `run_manifest.json` — without
 * sending a request, to measure how reports, `plot` and `compare` cope with millions of records.
 *
 * The records are simulated, not invented line by line: a closed loop of `--concurrency` streams, each request
 * with a log-normal TTFT, a normal output length, one token per chunk at jittered ITL, and a share of HTTP 500s;
 * lines are written in completion order. Every record goes through infermeter's own pipeline — the metric
 * definitions measure it, the JSONL formatter writes it, the accumulator folds it — so the lines have exactly the
 * shape a real run writes and the summary's statistics are the exact ones of those records. Deterministic for a
 * seed. The accumulator keeps the exact-percentile columns, as a real run does: ~0.5 KB per record (10 M records:
 * ~5 GB of memory, ~30 GB of JSONL).
 */
import { parseArgs } from "node:util";
import { METRIC_REGISTRY } from "../../src/metrics/metric_registry.ts";
import { MetricAccumulator } from "../../src/metrics/metric_accumulator.ts";
import { RecordLineFormatter } from "../../src/export/jsonl_writer.ts";
import { renderSummaryJson } from "../../src/export/json_export.ts";
import { MANIFEST_SCHEMA_VERSION, renderManifest } from "../../src/export/run_manifest.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { VERSION } from "../../src/base/version.ts";
import type { ProcessedRecord } from "../../src/records/request_record.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    dir: { type: "string" },
    records: { type: "string", default: "10000000" },
    concurrency: { type: "string", default: "256" },
    osl: { type: "string", default: "20" },
    "error-rate": { type: "string", default: "0.01" },
    seed: { type: "string", default: "1" },
  },
});
if (args.dir === undefined) {
  console.error("usage: large_run.ts --dir DIR [--records N] [--concurrency N] [--osl N] [--error-rate X] [--seed N]");
  Deno.exit(2);
}
const dir = args.dir;
const total = Number(args.records);
const concurrency = Number(args.concurrency);
const meanOsl = Number(args.osl);
const errorRate = Number(args["error-rate"]);
const seed = Number(args.seed);

const rng = new SeededRandom(seed);
const metrics = METRIC_REGISTRY.selectMetrics({
  streaming: true,
  producesTokens: true,
  tokenizesInput: true,
  supportsReasoning: true,
  goodput: false,
});
const timeOriginMs = Date.UTC(2026, 0, 15, 9, 0, 0);
const accumulator = new MetricAccumulator(metrics, { timeOriginMs, initialCapacity: total, timeWeighted: false });
const formatter = new RecordLineFormatter({ metrics, timeOriginMs });

function hex(n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += (rng.nextUint32() & 15).toString(16);
  return s;
}
function uuid(): string {
  return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
}
function logNormal(median: number, sigma: number): number {
  return median * Math.exp(rng.normal(0, sigma));
}

/** One request of a stream (its correlation id), sent at `startAt` (run-clock ms). */
function simulate(index: number, startAt: number, correlation: string): ProcessedRecord {
  const isl = Math.max(16, Math.round(rng.normal(256, 32)));
  const common = {
    phase: "profiling" as const,
    requestIndex: index,
    sessionNum: index,
    conversationId: `session_${String(index % 100_000).padStart(6, "0")}`,
    turnIndex: 0,
    isFinalTurn: true,
    xRequestId: uuid(),
    xCorrelationId: correlation,
    workerId: "worker_0",
    creditIssuedAt: startAt - 0.004,
    startAt,
    sentAt: startAt + 0.03,
    writeStartAt: startAt + 0.01,
    connectionReused: true,
    chunksSent: 1,
    bytesSent: 1200,
    bodyBytesSent: 1100,
    inputTokens: isl,
    isl,
    reasoning: "",
    cancelled: false,
  };
  if (rng.next() < errorRate) {
    const endAt = startAt + logNormal(2, 0.3);
    return {
      ...common,
      headersAt: endAt,
      endAt,
      responseTimes: [],
      status: 500,
      content: "",
      error: { type: "Internal Server Error", code: 500, message: "Simulated internal server error." },
      bytesReceived: 160,
      bodyBytesReceived: 60,
      chunksReceived: 1,
      firstBodyAt: endAt,
      lastBodyAt: endAt,
    };
  }
  const osl = Math.max(1, Math.round(rng.normal(meanOsl, meanOsl / 4)));
  const ttft = logNormal(45, 0.35);
  const itl = logNormal(6, 0.2);
  const responseTimes = [startAt + ttft];
  for (let i = 1; i < osl; i++) responseTimes.push(responseTimes[i - 1] + itl * (0.6 + 0.8 * rng.next()));
  const last = responseTimes[osl - 1];
  const endAt = last + 0.05;
  return {
    ...common,
    headersAt: startAt + ttft * 0.95,
    endAt,
    responseTimes,
    firstOutputAt: responseTimes[0],
    lastResponseAt: last + 0.02,
    status: 200,
    content: "",
    usage: { promptTokens: isl, completionTokens: osl, totalTokens: isl + osl },
    finishReason: "length",
    outputTokens: osl,
    requestedOutputTokens: meanOsl,
    bytesReceived: 300 + 220 * (osl + 2),
    bodyBytesReceived: 220 * (osl + 2),
    chunksReceived: osl + 2,
    firstBodyAt: responseTimes[0],
    lastBodyAt: last + 0.02,
  };
}

/** The streams' next completions, smallest end first: lines are written in the order requests end. */
class EndHeap {
  readonly items: ProcessedRecord[] = [];
  push(r: ProcessedRecord): void {
    const a = this.items;
    a.push(r);
    for (let i = a.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (a[p].endAt <= a[i].endAt) break;
      [a[p], a[i]] = [a[i], a[p]];
      i = p;
    }
  }
  pop(): ProcessedRecord {
    const a = this.items;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      for (let i = 0;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < a.length && a[l].endAt < a[m].endAt) m = l;
        if (r < a.length && a[r].endAt < a[m].endAt) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i], a[m]];
        i = m;
      }
    }
    return top;
  }
}

await Deno.mkdir(dir, { recursive: true });
const jsonlPath = `${dir}/profile_export.jsonl`;
const file = await Deno.open(jsonlPath, { write: true, create: true, truncate: true });
const encoder = new TextEncoder();
const started = performance.now();
const heap = new EndHeap();
const slotOf = new Map<ProcessedRecord, number>();
const correlations = Array.from({ length: concurrency }, () => uuid());
let issued = 0;
let firstStart = Infinity;
let lastEnd = -Infinity;
for (let s = 0; s < Math.min(concurrency, total); s++) {
  const r = simulate(issued++, 1000 + s * 0.01, correlations[s]);
  slotOf.set(r, s);
  heap.push(r);
}
let batch = "";
let written = 0;
while (heap.items.length > 0) {
  const record = heap.pop();
  const slot = slotOf.get(record)!;
  slotOf.delete(record);
  const values = accumulator.measure(record);
  accumulator.fold(record, values);
  batch += formatter.format(record, values) + "\n";
  firstStart = Math.min(firstStart, record.startAt);
  lastEnd = Math.max(lastEnd, record.endAt);
  if (batch.length > 4 << 20) {
    await file.write(encoder.encode(batch));
    batch = "";
  }
  if (issued < total) {
    const next = simulate(issued++, record.endAt + 0.02, correlations[slot]);
    slotOf.set(next, slot);
    heap.push(next);
  }
  if (++written % 1_000_000 === 0) {
    console.error(`${written} records, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
}
await file.write(encoder.encode(batch));
file.close();

const summary = accumulator.summarize({
  observationSec: (lastEnd - firstStart) / 1000,
  windowEpochMs: { start: timeOriginMs + firstStart, end: timeOriginMs + lastEnd },
});
const command = `infermeter profile --url 'http://127.0.0.1:8000' --model 'large-run-model' --endpoint-type 'chat' ` +
  `--streaming --request-count ${total} --concurrency ${concurrency} --output-tokens-mean ${meanOsl}`;
const summaryText = renderSummaryJson(summary, {
  infermeterVersion: VERSION,
  benchmarkId: `large-run-${seed}`,
  startTimeMs: timeOriginMs + firstStart,
  endTimeMs: timeOriginMs + lastEnd,
  wasCancelled: false,
  inputConfig: {
    models: { items: [{ name: "large-run-model" }] },
    endpoint: { urls: ["http://127.0.0.1:8000"], type: "chat", streaming: true },
    datasets: [{
      name: "main",
      type: "synthetic",
      prompts: { isl: { mean: 256, stddev: 32 }, osl: { mean: meanOsl } },
    }],
    phases: [{ name: "profiling", kind: "profiling", type: "concurrency", requests: total, concurrency }],
    artifacts: { dir, records: ["jsonl"] },
  },
  runInfo: { randomSeed: seed, cliCommand: command },
});
await Deno.writeTextFile(`${dir}/profile_export_aiperf.json`, summaryText);
await Deno.writeTextFile(
  `${dir}/run_manifest.json`,
  renderManifest({
    producer: "infermeter",
    version: VERSION,
    schema_version: MANIFEST_SCHEMA_VERSION,
    kind: "run",
    files: [
      { role: "summary_json", label: "JSON Export", path: "profile_export_aiperf.json" },
      { role: "records_jsonl", label: "Per-request records", path: "profile_export.jsonl" },
    ],
  }),
);
const size = (await Deno.stat(jsonlPath)).size;
console.error(
  `${dir}: ${total} records, ${(size / 2 ** 30).toFixed(2)} GiB of JSONL, ` +
    `${((lastEnd - firstStart) / 1000).toFixed(0)} s of simulated run, in ${
      ((performance.now() - started) / 1000).toFixed(0)
    } s`,
);
