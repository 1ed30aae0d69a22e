/**
 * The Worker side of `parallel_records.ts`: reduces the chart data of the lines of a file that begin in a byte
 * range, and posts back the reduction as plain data with the number of lines read.
 */
import { type ChartReductionLimits, reduceRange } from "./run_chart_data.ts";
import { LineError } from "./report_error.ts";
import type { RangeResult, RangeTask } from "./parallel_records.ts";

export function startRecordsWorker(): void {
  const scope = self as unknown as {
    onmessage: ((e: MessageEvent<RangeTask>) => void) | null;
    postMessage(message: unknown): void;
  };
  scope.onmessage = async (e) => {
    const { path, range, options } = e.data;
    let result: RangeResult<unknown>;
    try {
      const { reducer, lines } = await reduceRange(path, options as ChartReductionLimits, range);
      result = { ok: true, state: reducer.state(), lines };
    } catch (err) {
      result = err instanceof LineError
        ? { ok: false, line: { file: err.file, line: err.line, reason: err.reason }, message: err.message }
        : { ok: false, message: err instanceof Error ? err.message : String(err) };
    }
    scope.postMessage(result);
  };
}
