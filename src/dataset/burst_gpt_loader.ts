/**
 * AIPerf's `burst_gpt_trace` format: a BurstGPT CSV (`Timestamp,Model,Request tokens,Response tokens,…`), one
 * request per row, streamed. `Timestamp` is seconds from the trace start (→ ms); each row is its own one-turn
 * conversation with a prompt synthesized to `Request tokens` and `Response tokens` as max tokens. Rows whose numbers
 * do not parse are skipped, as AIPerf does, and counted in the error when nothing is left.
 */
import type { Dataset } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { DatasetLoader, LoaderContext } from "./dataset_loader.ts";
import { unreadable } from "./json_record.ts";
import { describeTrace, traceConversations, type TraceLine } from "./mooncake_trace_loader.ts";
import { readLines } from "./read_lines.ts";
import { BURST_GPT_TRACE_FORMAT } from "./dataset_formats.ts";

export const BURST_GPT_TRACE = BURST_GPT_TRACE_FORMAT.name;
const REQUIRED = ["Timestamp", "Request tokens", "Response tokens"] as const;

/** Cells of one CSV row (BurstGPT has no quoted commas; quotes around a cell are dropped). */
function cells(line: string): string[] {
  return line.split(",").map((c) => c.trim().replace(/^"(.*)"$/, "$1"));
}

function hasHeader(firstLine: string): boolean {
  const header = cells(firstLine);
  return REQUIRED.every((c) => header.includes(c));
}

export async function loadBurstGpt(path: string, ctx?: LoaderContext): Promise<Dataset> {
  const lines: TraceLine[] = [];
  let columns: number[] | undefined;
  let skipped = 0;
  try {
    for await (const { number, text } of readLines(path, { signal: ctx?.signal })) {
      if (text.trim() === "") continue;
      if (columns === undefined) {
        const header = cells(text);
        const missing = REQUIRED.filter((c) => !header.includes(c));
        if (missing.length > 0) {
          throw new DatasetError(
            path,
            number,
            `the CSV header lacks ${missing.map((m) => JSON.stringify(m)).join(", ")}; expected BurstGPT's ` +
              `"Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"`,
          );
        }
        columns = REQUIRED.map((c) => header.indexOf(c));
        continue;
      }
      const row = cells(text);
      const [ts, isl, osl] = columns.map((i) => Number(row[i]));
      if (!Number.isFinite(ts) || !Number.isInteger(isl) || !Number.isInteger(osl) || ts < 0 || isl < 1) {
        skipped++;
        continue;
      }
      lines.push({
        line: number,
        turn: { texts: [], timestampMs: ts * 1000, ...(osl >= 1 ? { maxTokens: osl } : {}) },
        synth: { length: isl, hashIds: [] },
      });
    }
  } catch (error) {
    throw unreadable(path, error);
  }
  if (lines.length === 0) {
    throw new DatasetError(path, undefined, `has no usable rows${skipped > 0 ? ` (${skipped} malformed)` : ""}`);
  }
  const conversations = await traceConversations(path, lines, ctx, 1, "burst_");
  return { conversations, defaultSampling: "sequential", source: "file", format: BURST_GPT_TRACE };
}

export const burstGptLoader: DatasetLoader = {
  ...BURST_GPT_TRACE_FORMAT,
  canLoad: () => false,
  canLoadText: (firstLine) => hasHeader(firstLine),
  load: loadBurstGpt,
  describe: describeTrace,
};
