/** `profile_export_aiperf.csv`: every metric's statistics, in AIPerf's CSV layout. */
import { renderSummaryCsv } from "../../export/csv_export.ts";
import { type AccuracySummary, accuracySummaryEntries } from "../../export/accuracy_export.ts";
import { ACCURACY_OUTPUT } from "./accuracy_output.ts";
import type { Output } from "./output.ts";

export const SUMMARY_CSV_OUTPUT: Output = {
  name: "csv",
  description: "profile_export_aiperf.csv: every metric's statistics (AIPerf's CSV)",
  enabled: () => true,
  files: (paths) => [{ role: "summary_csv", label: "CSV Export", path: paths.summaryCsv }],
  async finish(ctx, writer) {
    if (ctx.results === undefined) return;
    // An accuracy run's `accuracy.*` rows, empty as AIPerf writes them (the accuracy output finishes first).
    const accuracy = ctx.shared.get(ACCURACY_OUTPUT.name) as AccuracySummary | undefined;
    const rows = (accuracy === undefined ? [] : accuracySummaryEntries(accuracy)).map((e) => ({
      tag: e.tag,
      name: `${e.header} (ratio)`,
    }));
    await writer.write(SUMMARY_CSV_OUTPUT.files(ctx.paths)[0], renderSummaryCsv(ctx.results.summary, rows));
  },
};
