/** Small hand-written summary exports for the report tests, and the paths of the real-run fixtures. */
import { parseRunExport, type RunExport } from "../../src/report/run_export.ts";

/** Real runs against serve-sim (`scripts/gen/report_fixtures.ts`): a concurrency sweep and a faster server. */
export const FIXTURE_RUNS: string = new URL("../fixtures/runs/", import.meta.url).pathname;

/** A summary export with TTFT statistics and an output throughput, as `profile_export_aiperf.json` has them. */
export function runWith(
  ttft: Record<string, number>,
  throughput: number,
  extra: Record<string, unknown> = {},
): RunExport {
  return parseRunExport(
    JSON.stringify({
      infermeter_version: "0.1.0",
      time_to_first_token: { unit: "ms", ...ttft },
      output_token_throughput: { unit: "tokens/sec", avg: throughput },
      input_config: { loadgen: { concurrency: 4 }, endpoint: { model_names: ["m"] } },
      ...extra,
    }),
    "/runs/x/profile_export_aiperf.json",
  );
}
