/**
 * One metric's per-request values from a run's `profile_export.jsonl` (ours or AIPerf's): the profiling phase's
 * successful requests that carry the metric, in file order. Searches take confidence intervals and pool repeated
 * runs from them; `--convergence-mode distribution` compares runs by them.
 */
import { recordsPathOf } from "./run_files.ts";
import { ReportError } from "./report_error.ts";

/**
 * The values of each tag in `tags` (a tag no request carries gets an empty list), or undefined when the run wrote no
 * per-request file (`--export-level summary`).
 * @throws {ReportError} naming the file and line of a line that is not JSON.
 */
export async function readMetricValues(
  dir: string,
  tags: readonly string[],
): Promise<Map<string, number[]> | undefined> {
  const file = await recordsPathOf(dir);
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw new ReportError(`${file}: cannot read it (${e instanceof Error ? e.message : String(e)}).`);
  }
  const values = new Map<string, number[]>(tags.map((t) => [t, []]));
  let lineNo = 0;
  for (const line of text.split("\n")) {
    lineNo++;
    if (line.trim() === "") continue;
    let json: { metadata?: { benchmark_phase?: unknown }; metrics?: Record<string, unknown>; error?: unknown };
    try {
      json = JSON.parse(line);
    } catch (e) {
      throw new ReportError(`${file}:${lineNo}: not valid JSON (${e instanceof Error ? e.message : String(e)}).`);
    }
    const phase = json?.metadata?.benchmark_phase;
    if ((phase !== undefined && phase !== "profiling") || (json.error !== undefined && json.error !== null)) continue;
    for (const tag of tags) {
      const m = json.metrics?.[tag];
      const v = typeof m === "object" && m !== null ? (m as { value?: unknown }).value : undefined;
      if (typeof v === "number" && Number.isFinite(v)) values.get(tag)!.push(v);
    }
  }
  return values;
}
