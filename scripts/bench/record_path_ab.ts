/**
 * A/B micro-benchmark of the record path between two source trees, in one process: a 1-token record's metric values
 * (`measure`), their fold into the summary's columns (`fold`) and its JSONL line as bytes (`formatInto`), timed in
 * alternating 100 ms rounds (`alternating_ab.ts`), so both trees see the same machine. Records are
 * `record_path_bench.ts`'s 1-token ones (`bench_record.ts`).
 *
 *   git archive <commit> | tar -x -C /tmp/base
 *   deno run -A scripts/bench/record_path_ab.ts --base /tmp/base [--rounds 60] [--streaming]
 */
import { pathToFileURL } from "node:url";
import { abArgs, type AbRun, runAlternating } from "./alternating_ab.ts";
import { benchRecord } from "./bench_record.ts";

const { base, ours, rounds } = abArgs();
const streaming = Deno.args.includes("--streaming");
const BATCH = 64;
/** Records made, used round-robin; an accumulator is replaced after this many, so its columns stay small. */
const RECORDS = 16_384;

const records = Array.from({ length: RECORDS }, (_, i) => benchRecord(i, { name: "1-token", streaming, tokens: 1 }));

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
