/**
 * The Worker side of `parallel_records.ts`: reduces the lines of a file that begin in a byte range — to chart data
 * (`run_chart_data.ts`) or to a comparison's samples (`record_samples.ts`) — and posts back the reduction as plain
 * data with the number of lines read.
 */
import { type ChartReductionLimits, reduceRange } from "./run_chart_data.ts";
import { sampleRange, type SamplerOptions } from "./record_samples.ts";
import { LineError } from "./report_error.ts";
import type { RangeResult, RangeTask } from "./parallel_records.ts";

/** The reductions a reading Worker runs. */
export type RecordsJob =
  | { readonly job: "charts"; readonly limits: ChartReductionLimits }
  | { readonly job: "samples"; readonly sampler: SamplerOptions };

export function startRecordsWorker(): void {
  const scope = self as unknown as {
    onmessage: ((e: MessageEvent<RangeTask>) => void) | null;
    postMessage(message: unknown): void;
  };
  scope.onmessage = async (e) => {
    const { path, range } = e.data;
    const job = e.data.options as RecordsJob;
    let result: RangeResult<unknown>;
    try {
      if (job.job === "charts") {
        const { reducer, lines } = await reduceRange(path, job.limits, range);
        result = { ok: true, state: reducer.state(), lines };
      } else {
        const { sampler, lines } = await sampleRange(path, job.sampler, range);
        result = { ok: true, state: sampler.state(), lines };
      }
    } catch (err) {
      result = err instanceof LineError
        ? { ok: false, line: { file: err.file, line: err.line, reason: err.reason }, message: err.message }
        : { ok: false, message: err instanceof Error ? err.message : String(err) };
    }
    scope.postMessage(result);
  };
}
