/** `profile_export_aiperf.json`: statistics, configuration and run identity, in AIPerf 0.13's schema. */
import { renderSummaryJson } from "../../export/json_export.ts";
import { type AccuracySummary, accuracySummaryEntries } from "../../export/accuracy_export.ts";
import { ACCURACY_OUTPUT } from "./accuracy_output.ts";
import type { Output } from "./output.ts";
import { pooledSpecDecodeHistogram } from "./spec_decode_output.ts";

export const SUMMARY_JSON_OUTPUT: Output = {
  name: "json",
  description: "profile_export_aiperf.json: statistics, configuration and run identity (AIPerf's JSON)",
  enabled: () => true,
  files: (paths) => [{ role: "summary_json", label: "JSON Export", path: paths.summaryJson }],
  async finish(ctx, writer) {
    if (ctx.results === undefined) return;
    // An accuracy run's `accuracy.*` entries, as AIPerf adds them (the accuracy output finishes first).
    const accuracy = ctx.shared.get(ACCURACY_OUTPUT.name) as AccuracySummary | undefined;
    const entries = Object.fromEntries(
      (accuracy === undefined ? [] : accuracySummaryEntries(accuracy)).map((
        e,
      ) => [e.tag, { unit: "ratio", count: e.count, sum: e.sum }]),
    );
    await writer.write(
      SUMMARY_JSON_OUTPUT.files(ctx.paths)[0],
      renderSummaryJson(
        ctx.results.summary,
        { ...ctx.results.info, pooledSpecDecodeHistogram: pooledSpecDecodeHistogram(ctx) },
        entries,
      ),
    );
  },
};
