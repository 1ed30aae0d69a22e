/**
 * What streaming a run to OpenTelemetry (and MLflow's live metrics) costs per request, beside what writing the same
 * request's JSONL line costs, measured in the same process: the per-record work of `RecordTelemetry.measured` (every
 * metric value into its histogram; with a listener, also one live value each) against `JSON.stringify` of the
 * record's metric values, the least a per-record export does. Prints µs per record and the ratios.
 *
 *   deno run -A scripts/bench/tracking_stream_bench.ts [--records 20000]
 */
import { parseArgs } from "node:util";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { METRIC_DEFS } from "../../src/metrics/metric_defs.ts";
import { RecordRow } from "../../src/metrics/record_row.ts";
import type { ProcessedRecord } from "../../src/records/request_record.ts";
import { RecordTelemetry } from "../../src/run/outputs/record_telemetry.ts";

const { values: opts } = parseArgs({ options: { records: { type: "string", default: "20000" } } });
const n = Number(opts.records);
const { config } = await parseProfileArgs(["-m", "m", "--otel-url", "127.0.0.1:4318"], {
  env: {},
  readTextFile: () => "",
  isTty: false,
});
const metrics = METRIC_DEFS;

// A streamed chat request's values: the single-valued record metrics, and 128 inter-chunk latencies.
const values: Record<string, number | number[]> = {};
for (const def of metrics) if (def.kind === "record" && !def.flags.list) values[def.tag] = 10 + Math.random() * 100;
values.inter_chunk_latency = Array.from({ length: 128 }, () => 4 + Math.random());
const row = RecordRow.of(values);
const record = {
  phase: "profiling",
  workerId: "worker_0",
  cancelled: false,
  error: undefined,
} as unknown as ProcessedRecord;

function time(label: string, run: () => void): number {
  run(); // warm up the shapes
  const start = performance.now();
  run();
  const us = (performance.now() - start) * 1000 / n;
  console.log(`${label.padEnd(44)} ${us.toFixed(2)} µs/record`);
  return us;
}

let sink = 0;
const reference = time("JSON.stringify of the values (reference)", () => {
  for (let i = 0; i < n; i++) sink += JSON.stringify(values).length;
});
const otel = time("OpenTelemetry histograms", () => {
  const t = new RecordTelemetry({ config, metrics, streamMetrics: true, streamTiming: true });
  for (let i = 0; i < n; i++) t.measured(record, row);
});
const live = time("OpenTelemetry histograms + MLflow live values", () => {
  let buffered: unknown[] = [];
  const t = new RecordTelemetry({
    config,
    metrics,
    streamMetrics: true,
    streamTiming: true,
    listener: (e) => {
      buffered.push({ key: e.name, value: e.value, step: buffered.length });
      if (buffered.length >= 10_000) buffered = [];
    },
  });
  for (let i = 0; i < n; i++) t.measured(record, row);
});
console.log(`values per record: ${Object.keys(values).length - 1} + 128 listed; (${sink > 0 ? "ok" : ""})`);
console.log(`OpenTelemetry / reference: ${(otel / reference).toFixed(2)}×`);
console.log(`with MLflow live / reference: ${(live / reference).toFixed(2)}×`);
