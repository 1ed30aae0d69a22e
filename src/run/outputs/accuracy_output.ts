/**
 * The accuracy of an accuracy run (`--accuracy-benchmark`): `accuracy_export.jsonl` written as answers are graded
 * (its record sink, `sinks/accuracy_sink.ts`), then `accuracy_results.csv` and the "Accuracy Benchmark Results"
 * table on the console and in report.html (`export/accuracy_export.ts`, AIPerf 0.13's shapes).
 */
import {
  accuracyResultsCsv,
  type AccuracySummary,
  accuracyTable,
  summarizeAccuracy,
} from "../../export/accuracy_export.ts";
import { AccuracySink } from "../sinks/accuracy_sink.ts";
import { finishRecordFile, openRecordFile } from "./record_file.ts";
import type { Output } from "./output.ts";

export const ACCURACY_OUTPUT: Output = {
  name: "accuracy",
  description:
    "accuracy_results.csv and accuracy_export.jsonl: per-task and overall accuracy (AIPerf's accuracy files)",
  enabled: (config) => config.accuracyBenchmark !== undefined,
  files: (paths) => [
    { role: "accuracy_jsonl", label: "Accuracy JSONL", path: paths.accuracyJsonl },
    { role: "accuracy_csv", label: "Accuracy CSV", path: paths.accuracyCsv },
  ],
  compactConsole: true,
  sink: (ctx) => {
    const gold = ctx.accuracy;
    if (gold === undefined) throw new TypeError("an accuracy run's dataset carries its gold");
    return openRecordFile(
      ctx.paths.accuracyJsonl,
      ctx,
      (onFailure) => AccuracySink.open(gold, ctx.paths.accuracyJsonl, ctx.timeOriginMs, ctx.logger, onFailure),
    );
  },
  async finish(ctx, writer) {
    const [jsonl, csv] = ACCURACY_OUTPUT.files(ctx.paths);
    await finishRecordFile(jsonl, ctx, writer);
    if (!(ctx.sink instanceof AccuracySink)) return;
    const summary = summarizeAccuracy(ctx.sink.records);
    ctx.shared.set(ACCURACY_OUTPUT.name, summary);
    if (summary.total > 0) await writer.write(csv, accuracyResultsCsv(summary));
  },
  console(ctx, width) {
    const summary = ctx.shared.get(ACCURACY_OUTPUT.name) as AccuracySummary | undefined;
    return summary === undefined ? undefined : accuracyTable(summary, width);
  },
  report(ctx) {
    const summary = ctx.shared.get(ACCURACY_OUTPUT.name) as AccuracySummary | undefined;
    if (summary === undefined || summary.total === 0) return [];
    const pct = (passed: number, total: number) => `${((total === 0 ? 0 : passed / total) * 100).toFixed(2)}%`;
    const rows = [...summary.perTask].map((
      [task, t],
    ) => [task, `${t.passed}`, `${t.total}`, `${t.unparsed}`, pct(t.passed, t.total)]);
    rows.push([
      "OVERALL",
      `${summary.passed}`,
      `${summary.total}`,
      `${summary.unparsed}`,
      pct(summary.passed, summary.total),
    ]);
    return [
      { kind: "heading", text: "Accuracy" },
      {
        kind: "table",
        table: {
          caption: `Graded by ${summary.graderName ?? "the benchmark's grader"}; unparsed answers count as graded.`,
          header: ["Task", "Correct", "Total", "Unparsed", "Accuracy"],
          rows,
        },
      },
    ];
  },
};
