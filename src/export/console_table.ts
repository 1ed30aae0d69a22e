/**
 * The end-of-run console output as AIPerf 0.13 prints it: one table per console group that has rows, in its
 * order — `<metrics title>: Effective`, `… : Active`, `… : Usage`, then the main `<metrics title>` — titled
 * `infermeter | …`, the error summary table when requests failed, and the footer lines.
 *
 * Metrics tables: right-aligned `Header (unit)` names, columns avg, min, max, p99, p90, p50, std, rows in
 * display order. Numbers are Python's `f"{x:,.2f}"` (thousands separators, two decimals) like AIPerf's Rich
 * table; single-valued metrics show their value under `avg` and `N/A` elsewhere, as does a missing value.
 */
import type { ConsoleGroup } from "../metrics/metric_def.ts";
import type { MetricResult, RunSummary } from "../metrics/run_summary.ts";
import type { StatKey } from "../metrics/stats.ts";
import { buildResultView, shownInConsole, viewMetricsOf, type ViewRow } from "../metrics/result_view.ts";
import { type BoxColumn, renderBoxTable } from "./box_table.ts";
import { formatCount, formatFixed, formatGrouped } from "./number_format.ts";

export interface ConsoleTableOptions {
  /** The endpoint's `capabilities.metricsTitle`. @default "LLM Metrics" */
  readonly metricsTitle?: string;
  /** Statistic columns after `Metric`. @default ["avg", "min", "max", "p99", "p90", "p50", "std"] */
  readonly columns?: readonly StatKey[];
  /** Widest the table may be; only metric names (and error messages) wrap. @default 140 */
  readonly maxWidth?: number;
}

/** The product name in table titles. */
export const CONSOLE_TITLE_PREFIX = "infermeter";

const DEFAULT_COLUMNS: readonly StatKey[] = ["avg", "min", "max", "p99", "p90", "p50", "std"];

/** Which statistics a table narrower than its columns leaves out first (avg never). */
const DROP_ORDER: Partial<Record<StatKey, number>> = { std: 1, min: 2, max: 3, p90: 4, p50: 5, p99: 6 };

/** The console groups with a table, in AIPerf's print order, and each table's title suffix. */
const GROUP_TABLES: readonly { group: ConsoleGroup; suffix: string }[] = [
  { group: "effective", suffix: ": Effective" },
  { group: "active", suffix: ": Active" },
  { group: "usage", suffix: ": Usage" },
  { group: "llm", suffix: "" },
];

/** Whether a metric belongs in a console table. */
export const showInConsole: (m: MetricResult) => boolean = shownInConsole;

/** A statistic the metric does not have is `N/A`, and so is an infinite one (error-adjusted rows), as AIPerf. */
function cell(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? "N/A" : formatGrouped(x, 2);
}

/** `Header (unit)` as AIPerf's console shows it: the unit always, on its own line after a header longer than
 * 30 characters. */
export function consoleMetricName(m: { readonly header: string; readonly unit: string }): string {
  return `${m.header}${m.header.length > 30 ? "\n" : " "}(${m.unit})`;
}

/** Every console table that has rows, in AIPerf's order, separated by a newline; "" when none has. */
export function renderMetricsTable(summary: RunSummary, options: ConsoleTableOptions = {}): string {
  return renderMetricsTables(buildResultView(viewMetricsOf(summary), { requests: { ok: 0, errors: 0 } }).rows, options);
}

/** AIPerf's console tables from a result view's rows: one per console group that has rows, in AIPerf's order. */
export function renderMetricsTables(rows: readonly ViewRow[], options: ConsoleTableOptions = {}): string {
  const title = options.metricsTitle ?? "LLM Metrics";
  return GROUP_TABLES
    .map(({ group, suffix }) =>
      renderGroupTable(rows.filter((r) => r.inConsole && r.group === group), {
        ...options,
        metricsTitle: title + suffix,
      })
    )
    .filter((t) => t !== "")
    .join("\n");
}

/** One metrics table over the given rows, or "" when there are none. */
export function renderGroupTable(shown: readonly ViewRow[], options: ConsoleTableOptions): string {
  const stats = options.columns ?? DEFAULT_COLUMNS;
  if (shown.length === 0) return "";
  const columns: BoxColumn[] = [
    { header: "Metric", justify: "right", wrap: true },
    ...stats.map((key): BoxColumn => ({ header: key, justify: "right", dropOrder: DROP_ORDER[key] })),
  ];
  const rows = shown.map((m) => [
    consoleMetricName(m),
    ...stats.map((key) => !m.single ? cell(m.stats[key]) : key === "avg" ? cell(m.stats.avg) : "N/A"),
  ]);
  return renderBoxTable(columns, rows, {
    title: `${CONSOLE_TITLE_PREFIX} | ${options.metricsTitle ?? "LLM Metrics"}`,
    maxWidth: options.maxWidth ?? 140,
  });
}

/** The `Error Summary` table (Code | Type | Message | Count), or "" when nothing failed. */
export function renderErrorSummary(
  summary: Pick<RunSummary, "errors">,
  options: Pick<ConsoleTableOptions, "maxWidth"> = {},
): string {
  if (summary.errors.length === 0) return "";
  const columns: BoxColumn[] = [
    { header: "Code", justify: "right" },
    { header: "Type", justify: "right" },
    { header: "Message", justify: "left", wrap: true },
    { header: "Count", justify: "right" },
  ];
  const rows = summary.errors.map(({ error, count }) => [
    error.code === undefined ? "N/A" : String(error.code),
    error.type === "" ? "N/A" : error.type,
    error.message,
    formatCount(count),
  ]);
  return renderBoxTable(columns, rows, {
    title: `${CONSOLE_TITLE_PREFIX} | Error Summary`,
    maxWidth: options.maxWidth ?? 140,
  });
}

/** One `<label>: <path>` footer line, e.g. `{ label: "CSV Export", path }`. */
export interface FooterExport {
  readonly label: string;
  readonly path: string;
}

export interface FooterInfo {
  /** The redacted command line. */
  readonly cliCommand?: string;
  readonly benchmarkDurationSec?: number;
  /** The run was interrupted: the duration line says `(cancelled early)`. @default false */
  readonly cancelled?: boolean;
  /** In print order, e.g. CSV Export, JSON Export, JSONL Export. */
  readonly exports?: readonly FooterExport[];
  /** The client's own cost, so it is never hidden: not part of AIPerf's footer, printed after the duration. */
  readonly client?: ClientOverhead;
}

export interface ClientOverhead {
  /** CPU of the whole process over the profiling phase, % of one core. */
  readonly percentOfCore: number;
  readonly engineThreads: number;
  /** The threshold (% of a core) an engine thread went over, when one did (judged on runs of ≥ 1 s). */
  readonly overThresholdPercent?: number;
  /** How late open-loop sends left against their schedule, ms (open loop only). */
  readonly scheduleLatenessP50Ms?: number;
  readonly scheduleLatenessP99Ms?: number;
}

/** `Client CPU: 26% of one core (1 engine thread); schedule lateness p50 0.010 ms, p99 0.736 ms`. */
export function renderClientOverhead(c: ClientOverhead): string {
  const threads = `${c.engineThreads} engine thread${c.engineThreads === 1 ? "" : "s"}`;
  const lateness = c.scheduleLatenessP50Ms === undefined
    ? ""
    : `; schedule lateness p50 ${formatFixed(c.scheduleLatenessP50Ms, 3)} ms, p99 ${
      formatFixed(c.scheduleLatenessP99Ms ?? NaN, 3)
    } ms`;
  const over = c.overThresholdPercent === undefined
    ? ""
    : ` (over ${c.overThresholdPercent}% per engine thread: timestamps may lag)`;
  return `Client CPU: ${c.percentOfCore.toFixed(0)}% of one core (${threads})${over}${lateness}`;
}

/** The footer lines: command, duration (`X.XX sec`), the client's own CPU, export paths. */
export function renderFooter(info: FooterInfo): string {
  const lines: string[] = [];
  if (info.cliCommand !== undefined) lines.push(`CLI Command: ${info.cliCommand}`);
  if (info.benchmarkDurationSec !== undefined) {
    lines.push(
      `Benchmark Duration: ${formatFixed(info.benchmarkDurationSec, 2)} sec${
        info.cancelled ? " (cancelled early)" : ""
      }`,
    );
  } else if (info.cancelled) lines.push("Benchmark Duration: N/A (cancelled early)");
  if (info.client !== undefined) lines.push(renderClientOverhead(info.client));
  for (const e of info.exports ?? []) lines.push(`${e.label}: ${e.path}`);
  return lines.join("\n");
}
