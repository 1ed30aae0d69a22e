/**
 * The console text a profile run prints and saves: the headline block (the answer first), AIPerf's metric tables,
 * the error summary, the outputs' sections (server metrics, GPUs) and the footer — all from one result view.
 */
import type { ResultView } from "../metrics/result_view.ts";
import { type ClientOverhead, renderErrorSummary, renderFooter, renderMetricsTables } from "../export/console_table.ts";
import { renderHeadline } from "../export/headline_block.ts";
import type { RunSummary } from "../metrics/run_summary.ts";
import { describeUnwritten, type UnwrittenFile } from "./unwritten_file.ts";

export interface ConsoleParts {
  readonly view: ResultView;
  readonly summary: Pick<RunSummary, "errors" | "benchmarkDurationSec">;
  /** The endpoint's table title (`LLM Metrics`, `Embeddings Metrics`). */
  readonly metricsTitle: string;
  /** What ran, in a few words, for the headline. */
  readonly what: string;
  readonly cliCommand: string;
  readonly cancelled: boolean;
  readonly exports: readonly { label: string; path: string }[];
  readonly client?: ClientOverhead;
  /** The outputs' own sections (server metrics, GPU telemetry tables), and whether compact mode shows each. */
  readonly sections: readonly { readonly text: string; readonly compact: boolean }[];
  readonly width: number;
  readonly unwritten: readonly UnwrittenFile[];
}

/**
 * What the console shows (`--console`): `compact` — the headline, AIPerf's main metrics table, the errors and the
 * footer (what a first run needs); `full` — the headline and every table (time-weighted, usage, server metrics, GPUs);
 * `aiperf` — exactly AIPerf's tables and footer, no headline.
 */
export type ConsoleMode = "compact" | "full" | "aiperf";

export function renderConsole(p: ConsoleParts, mode: ConsoleMode = "full"): string {
  const headline = mode === "aiperf"
    ? ""
    : renderHeadline(p.view, { what: p.what, durationSec: p.summary.benchmarkDurationSec, cancelled: p.cancelled });
  const rows = mode === "compact" ? p.view.rows.filter((r) => r.group === "llm") : p.view.rows;
  // AIPerf prints the Error Summary before the metric tables.
  const parts = [
    headline,
    renderErrorSummary(p.summary, { maxWidth: p.width }),
    renderMetricsTables(rows, { metricsTitle: p.metricsTitle, maxWidth: p.width }),
  ];
  parts.push(...p.sections.filter((s) => mode !== "compact" || s.compact).map((s) => s.text));
  parts.push(
    renderFooter({
      cliCommand: p.cliCommand,
      benchmarkDurationSec: p.summary.benchmarkDurationSec,
      cancelled: p.cancelled,
      exports: p.exports,
      client: p.client,
    }) + p.unwritten.map((u) => `\n${notWrittenLine(u)}`).join(""),
  );
  return parts.filter((part) => part !== "").join("\n\n");
}

export function notWrittenLine(file: UnwrittenFile): string {
  return `NOT WRITTEN ${file.label}: ${describeUnwritten(file)}`;
}
