/**
 * The SemiAnalysis Weka trace datasets (`--public-dataset semianalysis_cc_traces_weka*`, `weka_hf` with
 * `--hf-weka-dataset`): each row of the split is one Weka trace object, checked and replayed exactly as a
 * `weka_trace` file is (`weka_trace_loader.ts`), so file and hub replay build the same conversations. Traces over
 * `--max-context-length` are left out first; then `--conversation-num` (or `--num-dataset-entries`), when given,
 * keeps the first that many traces (AIPerf's filter-then-cap).
 */
import type { Conversation } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { HfReadContext } from "./hf_reader.ts";
import type { HfRow } from "./hf_rows.ts";
import {
  agentTraceConversations,
  agentTraceOptionValues,
  parseWekaTrace,
  peakContext,
  type WekaTrace,
} from "./weka_trace_loader.ts";

/** A Parquet row's 64-bit integers come back as bigints: the trace schema wants numbers. */
function plain(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === "object" && !(value instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

export async function readWekaRows(rows: AsyncIterable<HfRow>, ctx: HfReadContext): Promise<Conversation[]> {
  if (ctx.rng === undefined) throw new TypeError("the Weka public datasets synthesize prompts; pass ctx.rng");
  const options = agentTraceOptionValues(ctx.options ?? {}, {
    rng: ctx.rng,
    tokenizer: ctx.tokenizer,
    signal: ctx.signal,
    warn: ctx.warn,
  });
  const traces: WekaTrace[] = [];
  const rowOf = new Map<string, number>();
  let index = 0;
  let tooLarge = 0;
  for await (const row of rows) {
    const trace = parseWekaTrace(plain(row), `${ctx.where} row ${index}`);
    if (rowOf.has(trace.id)) {
      throw new DatasetError(
        ctx.where,
        undefined,
        `row ${index} repeats trace id ${trace.id} (row ${rowOf.get(trace.id)})`,
      );
    }
    rowOf.set(trace.id, index++);
    if (options.maxContextLength !== undefined && peakContext(trace, options.maxOsl) > options.maxContextLength) {
      tooLarge++;
      continue;
    }
    traces.push(trace);
    if (ctx.entries !== undefined && traces.length >= ctx.entries) break;
  }
  if (tooLarge > 0) {
    ctx.warn?.(
      `${tooLarge} traces left out: their peak context exceeds --max-context-length ${options.maxContextLength}`,
    );
    if (traces.length === 0) {
      throw new DatasetError(
        "--max-context-length",
        undefined,
        `${options.maxContextLength} leaves out every trace; raise it`,
      );
    }
  }
  return await agentTraceConversations(traces, { ...options, maxContextLength: undefined }, (trace, reason) => {
    throw new DatasetError(ctx.where, undefined, `row ${rowOf.get(trace.id)} (trace ${trace.id}): ${reason}`);
  });
}
