/**
 * One metric's per-request values from a run's `profile_export.jsonl` (ours or AIPerf's): the profiling phase's
 * successful requests that carry the metric, in file order. Searches take confidence intervals and pool repeated
 * runs from them; `--convergence-mode distribution` compares runs by them.
 */
import { recordsPathOf } from "./run_files.ts";
import { scanRecords } from "./record_stream.ts";

/**
 * The values of each tag in `tags` (a tag no request carries gets an empty list), or undefined when the run wrote no
 * per-request file (`--export-level summary`).
 * @throws {ReportError} naming the file and line of a line that is not a record.
 */
export async function readMetricValues(
  dir: string,
  tags: readonly string[],
): Promise<Map<string, number[]> | undefined> {
  const file = await recordsPathOf(dir);
  const values = new Map<string, number[]>(tags.map((t) => [t, []]));
  const lists = tags.map((t) => values.get(t)!);
  try {
    // Streamed, a line at a time: a run of any length (record_stream.ts).
    await scanRecords(file, { metrics: tags }, (r) => {
      if (r.failed) return;
      r.values.forEach((v, i) => {
        if (v !== undefined) lists[i].push(v);
      });
    });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
  return values;
}
