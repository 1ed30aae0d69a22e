/** The console text a profile run prints and saves: the metric tables, errors, telemetry tables and the footer. */
import type { EndpointAdapter } from "../endpoints/endpoint_adapter.ts";
import type { RunSummary } from "../metrics/run_summary.ts";
import { type ClientOverhead, renderErrorSummary, renderFooter, renderMetricsTable } from "../export/console_table.ts";
import { describeUnwritten, type UnwrittenFile } from "./unwritten_file.ts";

export function renderConsole(
  summary: RunSummary,
  adapter: EndpointAdapter,
  cliCommand: string,
  cancelled: boolean,
  exportsList: { label: string; path: string }[],
  client: ClientOverhead | undefined,
  telemetryTables: readonly string[],
  width: number,
  unwritten: readonly UnwrittenFile[],
): string {
  // AIPerf prints the Error Summary before the metric tables.
  const errors = renderErrorSummary(summary, { maxWidth: width });
  const parts = errors ? [errors] : [];
  parts.push(renderMetricsTable(summary, { metricsTitle: adapter.capabilities.metricsTitle, maxWidth: width }));
  parts.push(...telemetryTables);
  parts.push(
    renderFooter({
      cliCommand,
      benchmarkDurationSec: summary.benchmarkDurationSec,
      cancelled,
      exports: exportsList,
      client,
    }) + unwritten.map((u) => `\n${notWrittenLine(u)}`).join(""),
  );
  return parts.join("\n\n");
}

export function notWrittenLine(file: UnwrittenFile): string {
  return `NOT WRITTEN ${file.label}: ${describeUnwritten(file)}`;
}
