/**
 * A run's per-request values for the noise of a comparison: every scalar metric of every profiling record of its
 * per-request JSONL (found by its manifest, else by AIPerf's name; ours and AIPerf 0.13's), one column per metric,
 * and the completions that throughputs count. Failed requests are records without values, as the exported
 * statistics leave them out; list metrics (inter-chunk gaps) are not columns: their exported statistics are over
 * every gap, not one value per request.
 */
import type { RecordColumns } from "../metrics/bootstrap_stats.ts";
import { metricValue, parseRecordLines, readRecordsText } from "./run_records.ts";

export interface RecordSamples extends RecordColumns {
  /** The file the records came from. */
  readonly path: string;
  /** Successful requests: their end (ms since the first record's start) and lengths, for throughputs. */
  readonly completions: {
    readonly endsMs: Float64Array;
    readonly inputTokens: Float64Array;
    readonly outputTokens: Float64Array;
  };
}

/** The samples of a per-request JSONL file's text. */
export function parseRecordSamples(text: string, path: string): RecordSamples {
  const lines = parseRecordLines(text, path);
  const n = lines.length;
  const columns = new Map<string, Float64Array>();
  let origin = Infinity;
  for (const line of lines) origin = Math.min(origin, line.startNs);
  const ends: number[] = [];
  const isl: number[] = [];
  const osl: number[] = [];
  lines.forEach((line, i) => {
    if (line.failed) return;
    for (const tag of Object.keys(line.metrics)) {
      const v = metricValue(line.metrics, tag);
      if (typeof v !== "number" || !Number.isFinite(v)) continue;
      let column = columns.get(tag);
      if (column === undefined) columns.set(tag, column = new Float64Array(n).fill(NaN));
      column[i] = v;
    }
    ends.push((line.endNs - origin) / 1e6);
    isl.push(numberOr0(metricValue(line.metrics, "input_sequence_length")));
    osl.push(numberOr0(metricValue(line.metrics, "output_sequence_length")));
  });
  return {
    path,
    size: n,
    columns,
    completions: {
      endsMs: Float64Array.from(ends),
      inputTokens: Float64Array.from(isl),
      outputTokens: Float64Array.from(osl),
    },
  };
}

function numberOr0(x: unknown): number {
  return typeof x === "number" && Number.isFinite(x) ? x : 0;
}

/**
 * The samples of the run in `dir`, or undefined when it has no per-request file (AIPerf's summary only,
 * `--export-level summary`).
 * @throws {ReportError} for a file that exists but cannot be read or parsed.
 */
export async function readRecordSamples(dir: string): Promise<RecordSamples | undefined> {
  const found = await readRecordsText(dir);
  return found === undefined ? undefined : parseRecordSamples(found.text, found.file);
}
