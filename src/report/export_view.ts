/**
 * The result view of an exported run (ours or AIPerf's): its metric blocks as view metrics in display order, the
 * request counts, and the verdicts its `infermeter` block supports — so report.html, `compare` and sweep reports
 * show the numbers and verdicts the run's console showed.
 */
import { buildResultView, clientVerdicts, type ResultView, type ViewMetric } from "../metrics/result_view.ts";
import { displayOrder } from "./metric_names.ts";
import type { RunExport } from "./run_export.ts";

export function exportView(run: RunExport): ResultView {
  const metrics: ViewMetric[] = [...run.metrics.values()]
    .map((m) => ({ tag: m.tag, unit: m.unit, stats: m.stats, single: Object.keys(m.stats).every((k) => k === "avg") }))
    .sort((a, b) => displayOrder(a.tag) - displayOrder(b.tag));
  const count = (tag: string) => run.metrics.get(tag)?.stats.avg ?? 0;
  const c = run.client;
  return buildResultView(metrics, {
    requests: { ok: count("request_count"), errors: count("error_request_count") },
    verdicts: [
      ...run.thresholds.map((t) => ({ label: t.text, ok: t.ok, detail: t.detail })),
      ...clientVerdicts({
        scheduleHeld: c?.scheduleHeld,
        scheduleWarning: c?.scheduleWarning,
        latenessP99Ms: c?.scheduleLatenessP99Ms,
        cpuPercentOfCore: c?.percentOfCore,
        cpuOverThresholdPercent: c?.overThresholdPercent,
      }),
    ],
  });
}
