/**
 * `report.html`: the run's self-contained report, drawn from the exports just written and the console text. The
 * report's modules load when it is drawn, not with the profile command (start-up: section 4 of docs/performance.md).
 */
import { errorReason } from "../unwritten_file.ts";
import type { Output } from "./output.ts";

export const REPORT_OUTPUT: Output = {
  name: "report_html",
  description: "report.html: the run's tables, charts, errors and console output in one self-contained page",
  enabled: () => true,
  files: (paths) => [{ role: "report_html", label: "HTML Report", path: `${paths.dir}/report.html` }],
  showsConsole: true,
  async finish(ctx, writer) {
    const file = REPORT_OUTPUT.files(ctx.paths)[0];
    const json = ctx.written.find((f) => f.role === "summary_json");
    if (ctx.results === undefined) return; // nothing was sent: no page to draw
    // Stopped before measuring (a failed warm-up): no measured request, no page; the console says why.
    if (
      ctx.results.summary.successCount + ctx.results.summary.errorCount === 0 &&
      ctx.results.summary.metrics.length === 0
    ) {
      return;
    }
    if (json === undefined) {
      writer.failed({ label: file.label, path: file.path, reason: "the JSON export it is drawn from was not written" });
      return;
    }
    const records = ctx.written.find((f) => f.role === "records_jsonl");
    let html: string;
    try {
      const { renderRunReport } = await import("../../report/run_report.ts");
      ({ html } = await renderRunReport(ctx.paths.dir, {
        jsonPath: json.path,
        recordsPath: records?.path ?? null,
        consoleText: ctx.consoleText,
        // The other outputs' sections (peers' metrics, the server's timing split), after the errors.
        extraSections: ctx.outputs.flatMap((o) => o.report?.(ctx) ?? []),
        // Every file of the run: those written so far, this page, and the ones written after it.
        files: [
          ...ctx.written,
          ...ctx.outputs.slice(ctx.outputs.indexOf(REPORT_OUTPUT)).flatMap((o) => o.files(ctx.paths)),
        ].filter((f) => f.role !== "other"),
      }));
    } catch (err) {
      writer.failed({ label: file.label, path: file.path, reason: `it could not be drawn: ${errorReason(err)}` });
      return;
    }
    await writer.write(file, html);
  },
};
