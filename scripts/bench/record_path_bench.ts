/**
 * CPU per record of what a run does with each finished request once it is back: the metric values (`measure`),
 * folding them into the summary's columns (`fold`), the JSONL line as bytes (`format`) and its copy into the
 * batched file writer (`writeLine`, written to a temporary file). Records are shaped like a 1-token answer against
 * `serve-sim` (non-streaming and streaming, every HTTP trace field set) and a 512-token stream.
 *
 *   deno run -A scripts/bench/record_path_bench.ts [--records 200000] [--rounds 5] [--json]
 *
 * Each stage runs on its own over the same records, `rounds` times, and the median CPU µs per record is
 * printed with the spread (min–max), with the bytes the summary's columns keep per record (`retainedB`); the thread's CPU time is read from `/proc/thread-self/stat` where it exists
 * (wall time elsewhere). A ratio between two trees is read by running it in each (same hour, interleaved).
 */
import { METRIC_REGISTRY } from "../../src/metrics/metric_registry.ts";
import { MetricAccumulator } from "../../src/metrics/metric_accumulator.ts";
import { RecordLineFormatter } from "../../src/export/jsonl_writer.ts";
import { LineFileWriter } from "../../src/export/line_file_writer.ts";
import { benchRecord, type RecordShape } from "./bench_record.ts";

function arg(name: string, fallback: string): string {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 && at + 1 < Deno.args.length ? Deno.args[at + 1] : fallback;
}

const RECORDS = Number(arg("records", "100000"));
const ROUNDS = Number(arg("rounds", "5"));

/** CPU ms of this thread (user + system), or wall ms where /proc is missing. */
function threadCpuMs(): number {
  try {
    const stat = Deno.readTextFileSync("/proc/thread-self/stat");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return performance.now();
  }
}

const SHAPES: readonly RecordShape[] = [
  { name: "1-token, non-streaming", streaming: false, tokens: 1 },
  { name: "1-token, streaming", streaming: true, tokens: 1 },
  { name: "512-token stream", streaming: true, tokens: 512 },
];

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function benchShape(shape: RecordShape): Promise<Record<string, number[]>> {
  const metrics = METRIC_REGISTRY.selectMetrics({
    streaming: shape.streaming,
    producesTokens: true,
    tokenizesInput: true,
    supportsReasoning: true,
    goodput: false,
  });
  const n = shape.tokens > 1 ? Math.max(1000, Math.floor(RECORDS / 20)) : RECORDS;
  const records = Array.from({ length: n }, (_, i) => benchRecord(i, shape));
  const formatter = new RecordLineFormatter({ metrics, timeOriginMs: 1795872225783, withWarmup: true });
  const path = await Deno.makeTempFile({ prefix: "record-path-bench-" });
  const out: Record<string, number[]> = { measure: [], fold: [], format: [], writeLine: [], total: [], retainedB: [] };
  // Cumulative passes (measure; + fold; + format; + writeLine), one record at a time as a run does, so each
  // stage's garbage is collected as in a run; a stage's cost is the difference between two passes.
  let retained = 0;
  const bytesPath = typeof (formatter as Partial<RecordLineFormatter>).formatInto === "function";
  const pass = async (stages: number): Promise<number> => {
    const acc = new MetricAccumulator(metrics, { timeOriginMs: 1795872225783 });
    const writer = stages >= 4 ? await LineFileWriter.open(path) : undefined;
    let sink = 0;
    const t0 = threadCpuMs();
    for (let i = 0; i < n; i++) {
      const r = records[i];
      const values = acc.measure(r);
      if (stages >= 2) acc.fold(r, values);
      if (stages >= 3) {
        if (bytesPath) {
          const line = formatter.formatInto(r, values).bytes();
          if (writer !== undefined) writer.writeBytes(line);
          else sink += line.length;
        } else {
          // A tree from before lines were built as bytes (for A/B runs against it).
          const line = (formatter as RecordLineFormatter).format(r, values);
          if (writer !== undefined) writer.writeLine(line);
          else sink += line.length;
        }
      }
    }
    await writer?.close();
    if (sink < 0) console.log(sink);
    if (stages === 2) retained = acc.retainedBytes() / n;
    return 1000 * (threadCpuMs() - t0) / n;
  };
  try {
    for (let round = 0; round < ROUNDS + 1; round++) {
      const cum = [await pass(1), await pass(2), await pass(3), await pass(4)];
      if (round === 0) continue; // warm-up round
      out.measure.push(cum[0]);
      out.fold.push(cum[1] - cum[0]);
      out.format.push(cum[2] - cum[1]);
      out.writeLine.push(cum[3] - cum[2]);
      out.total.push(cum[3]);
      out.retainedB.push(retained);
    }
  } finally {
    await Deno.remove(path).catch(() => {});
  }
  return out;
}

const results: Record<string, Record<string, number[]>> = {};
for (const shape of SHAPES) results[shape.name] = await benchShape(shape);
if (Deno.args.includes("--json")) {
  console.log(JSON.stringify({ loadavg: Deno.loadavg(), results }));
} else {
  console.log(`record path, CPU µs per record, median of ${ROUNDS} rounds [min–max]; load average ${Deno.loadavg()}`);
  for (const [name, stages] of Object.entries(results)) {
    const cells = Object.entries(stages).map(([stage, xs]) =>
      `${stage} ${median(xs).toFixed(2)} [${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}]`
    );
    console.log(`${name.padEnd(24)} ${cells.join("  ")}`);
  }
}
