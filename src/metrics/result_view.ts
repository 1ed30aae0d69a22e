/**
 * One view of a finished run that every surface renders — the console, report.html, the dashboard's last frame,
 * `compare` and sweep summaries — so they never compute their own numbers: the headline figures (what a user asks
 * first), verdicts (a threshold met or missed, the schedule held, the client's own load), and every metric as a
 * row with its tier and better direction. Built from a run's summary or from its exported statistics (AIPerf's
 * runs too).
 */
import { type Better, type ConsoleGroup, metricBetter, type MetricTier, metricTier } from "./metric_def.ts";
import { METRIC_REGISTRY } from "./metric_registry.ts";
import type { MetricResult, RunSummary } from "./run_summary.ts";

/** A metric's statistics as a plain record: `avg` alone for single-valued metrics. */
export interface ViewMetric {
  readonly tag: string;
  readonly unit: string;
  readonly stats: Readonly<Record<string, number>>;
  /** Only `avg` is meaningful (aggregate and derived metrics). */
  readonly single: boolean;
  /** The display name, when the source has one (a summary); else the declared header, else the tag. */
  readonly header?: string;
  /** Shown in AIPerf's console tables; else decided from the declaration. */
  readonly inConsole?: boolean;
  /** Display order, when the source has one (a summary); else the declared one. */
  readonly displayOrder?: number;
  /** The console table, when the source says (a summary); else the declared one. */
  readonly group?: ConsoleGroup;
}

export interface ViewRow extends ViewMetric {
  readonly group: ConsoleGroup;
  /** `Time to First Token` (the tag for metrics infermeter does not declare). */
  readonly header: string;
  /** Shown in AIPerf's console tables (its group's table). */
  readonly inConsole: boolean;
  /** `TTFT`: a short name where the metric has one. */
  readonly shortHeader: string;
  readonly tier: MetricTier;
  readonly better: Better;
  readonly displayOrder: number;
}

/** One figure of the headline: a metric's statistic. */
export interface HeadlineFigure {
  readonly tag: string;
  readonly label: string;
  readonly stat: string;
  readonly value: number;
  readonly unit: string;
  readonly better: Better;
}

/** Something the run was judged on: a threshold, the schedule, the client's CPU. */
export interface Verdict {
  readonly label: string;
  readonly ok: boolean;
  /** The figures behind it, in a few words. */
  readonly detail: string;
}

export interface ResultView {
  /** Successful and failed requests of the profiling phase. */
  readonly requests: { readonly ok: number; readonly errors: number };
  readonly headline: readonly HeadlineFigure[];
  readonly verdicts: readonly Verdict[];
  /** Every metric, in the order given (display order). */
  readonly rows: readonly ViewRow[];
}

/** The headline statistics, in order: latencies by their median and tail, throughputs by their value. */
export const HEADLINE_STATS: Readonly<Record<string, readonly string[]>> = {
  time_to_first_token: ["p50", "p99"],
  inter_token_latency: ["p50", "p99"],
  request_latency: ["p50", "p99"],
  output_token_throughput: ["avg"],
  request_throughput: ["avg"],
};

/** The headline's short names (the metrics' own short headers otherwise). */
const HEADLINE_LABELS: Readonly<Record<string, string>> = {
  time_to_first_token: "TTFT",
  inter_token_latency: "ITL",
  request_latency: "Latency",
  output_token_throughput: "Output tok/s",
  request_throughput: "Req/s",
};

/** A headline figure's short name: `TTFT`, `Latency`, `Output tok/s`. */
export function headlineLabel(tag: string): string {
  return HEADLINE_LABELS[tag] ?? METRIC_REGISTRY.get(tag)?.shortHeader ?? tag;
}

/** A summary's metrics as view input. */
export function viewMetricsOf(summary: RunSummary): ViewMetric[] {
  return summary.metrics.map((m): ViewMetric => ({
    tag: m.tag,
    unit: m.unit,
    stats: m.stats !== undefined
      ? { ...m.stats } as Record<string, number>
      : m.value === undefined
      ? {}
      : { avg: m.value },
    single: m.stats === undefined,
    header: m.header,
    inConsole: shownInConsole(m),
    displayOrder: m.displayOrder,
    group: m.consoleGroup,
  }));
}

/** Whether AIPerf's console tables show a metric result (a non-zero-only metric when it is non-zero). */
export function shownInConsole(m: MetricResult): boolean {
  if (m.flags.noConsole || m.flags.jsonOnly || m.consoleGroup === "none") return false;
  if (!m.flags.consoleOnlyIfNonZero) return true;
  return m.stats !== undefined ? m.stats.max !== 0 || m.stats.min !== 0 : m.value !== 0;
}

export interface ResultViewOptions {
  readonly requests: { readonly ok: number; readonly errors: number };
  /** Verdicts decided elsewhere (thresholds, the schedule, the client's CPU), in order. */
  readonly verdicts?: readonly Verdict[];
}

export function buildResultView(metrics: readonly ViewMetric[], o: ResultViewOptions): ResultView {
  // A summary's metrics are in display order already; an export's come sorted by its reader.
  const rows = metrics.map(viewRow);
  const byTag = new Map(rows.map((r) => [r.tag, r]));
  const headline: HeadlineFigure[] = [];
  for (const [tag, stats] of Object.entries(HEADLINE_STATS)) {
    const row = byTag.get(tag);
    if (row === undefined) continue;
    for (const stat of stats) {
      const value = row.stats[stat];
      if (value === undefined || !Number.isFinite(value)) continue;
      headline.push({ tag, label: headlineLabel(tag), stat, value, unit: row.unit, better: row.better });
    }
  }
  return { requests: o.requests, headline, verdicts: o.verdicts ?? [], rows };
}

function viewRow(m: ViewMetric): ViewRow {
  const def = METRIC_REGISTRY.get(m.tag);
  if (def === undefined) {
    return {
      ...m,
      header: m.header ?? m.tag,
      inConsole: m.inConsole ?? false,
      shortHeader: m.tag,
      tier: "detail",
      better: m.unit === "ms" || m.unit === "%" ? "lower" : "none",
      group: m.group ?? "none",
      displayOrder: m.displayOrder ?? Number.MAX_SAFE_INTEGER,
    };
  }
  const group = m.group ?? def.consoleGroup ?? (def.flags.noConsole ? "none" : "llm");
  return {
    ...m,
    header: m.header ?? def.header,
    inConsole: m.inConsole ?? (group !== "none" && !def.flags.noConsole && !def.flags.jsonOnly),
    shortHeader: def.shortHeader ?? def.header,
    tier: metricTier({ ...def, consoleGroup: group }),
    better: metricBetter(def),
    group,
    displayOrder: m.displayOrder ?? def.displayOrder,
  };
}

/** The rows of one tier, in display order. */
export function rowsOfTier(view: ResultView, tier: MetricTier): readonly ViewRow[] {
  return view.rows.filter((r) => r.tier === tier);
}

/** What the client's own facts say about a run, as recorded in its `infermeter` block. */
export interface ClientVerdictFacts {
  /** Open-loop runs: whether the schedule was held, and why not. */
  readonly scheduleHeld?: boolean;
  readonly scheduleWarning?: string;
  readonly latenessP99Ms?: number;
  /** The client's CPU, % of one core, and the per-thread threshold it went over (when it did). */
  readonly cpuPercentOfCore?: number;
  readonly cpuOverThresholdPercent?: number;
}

/** The verdicts on the client itself: was the schedule held, did its own CPU stay low enough to trust timings. */
export function clientVerdicts(f: ClientVerdictFacts): Verdict[] {
  const out: Verdict[] = [];
  if (f.scheduleHeld !== undefined) {
    const lateness = f.latenessP99Ms === undefined ? "" : ` (lateness p99 ${f.latenessP99Ms.toFixed(2)} ms)`;
    out.push({
      label: "schedule held",
      ok: f.scheduleHeld,
      detail: f.scheduleHeld ? `sends kept to the schedule${lateness}` : f.scheduleWarning ?? "sends fell behind",
    });
  }
  if (f.cpuPercentOfCore !== undefined) {
    const over = f.cpuOverThresholdPercent;
    out.push({
      label: "client CPU",
      ok: over === undefined,
      detail: `${f.cpuPercentOfCore.toFixed(0)}% of one core` +
        (over === undefined ? "" : `, over ${over}% per engine thread: timestamps may lag`),
    });
  }
  return out;
}

/**
 * A streaming run whose server answered some requests with one body (or one event carrying the whole answer): how
 * many, since they are left out of TTFT, ITL and the other streaming metrics. None when every response streamed.
 */
export function streamingVerdict(view: Pick<ResultView, "rows" | "requests">): Verdict | undefined {
  const streamed = view.rows.find((r) => r.tag === "streamed_request_count")?.stats.avg;
  if (streamed === undefined || streamed >= view.requests.ok) return undefined;
  const not = view.requests.ok - streamed;
  return {
    label: "streaming",
    ok: false,
    detail: `${not} of ${view.requests.ok} responses did not stream (one body or one event); TTFT, ITL and the other ` +
      "streaming metrics leave them out",
  };
}
