/**
 * The shape of one metric, declared once as data (design §3 "MetricDef"). Tags, headers, units and formulas
 * follow AIPerf (`reference/aiperf.md` §2); every value is computed directly in its display unit, so a
 * record metric's value is what the per-record JSONL shows and what the statistics run over.
 *
 * Time base: record times are milliseconds on the run clock (see `ProcessedRecord`), so latencies come out
 * in ms without conversion and durations in seconds are `ms / 1000`.
 */
import type { ProcessedRecord } from "../records/request_record.ts";
import type { Stats } from "./stats.ts";

/** Display units, exactly as AIPerf writes them into `unit` fields. */
export type MetricUnit =
  | "ms"
  | "sec"
  | "ns"
  | "tokens"
  | "tokens/sec"
  | "tokens/sec/user"
  | "requests/sec"
  | "requests"
  | "%"
  | "ratio"
  | "count"
  | "KB"
  | "MB"
  | "sessions"
  | "sessions/hour";

/**
 * Which console table shows a metric (AIPerf's `MetricConsoleGroup`): the main `LLM Metrics` table, the
 * `Effective` and `Active` time-weighted tables, the `Usage` table of server-reported counts, the `Spec Decode`
 * section (speculative-decoding acceptance, with its histogram line), or none.
 */
export type ConsoleGroup = "llm" | "effective" | "active" | "usage" | "spec_decode" | "none";

/**
 * Where a metric stands in what a user reads first (the result view): `headline` — the figures of the run's
 * answer (TTFT, ITL, latency, throughputs), `standard` — the main table, `detail` — everything else (time-weighted
 * tables, HTTP trace, usage checks, bookkeeping).
 */
export type MetricTier = "headline" | "standard" | "detail";

/** Which direction is an improvement, for verdicts and comparisons. */
export type Better = "lower" | "higher" | "none";

/**
 * - `record`: one value (or a list of values) per request → a distribution with statistics.
 * - `aggregate`: folded over records (count, sum, min, max) → one value.
 * - `derived`: a formula over other metrics' results after accumulation → one value.
 */
export type MetricKind = "record" | "aggregate" | "derived";

/** A record metric's value for one request: a number, or all values of a list metric. */
export type RecordValue = number | readonly number[];

/** The record metrics computed for one request, keyed by tag, in computation (topological) order. */
export type RecordMetrics = Readonly<Record<string, RecordValue>>;

/** Applicability and presentation flags (AIPerf `MetricFlags`, as booleans). All default to false. */
export interface MetricFlags {
  /** Only meaningful for streamed responses (TTFT, ITL, ...); never published for non-streaming runs. */
  readonly streamingOnly?: boolean;
  /** Only for endpoints that produce tokens. */
  readonly producesTokensOnly?: boolean;
  /** Only for endpoints whose input is tokenized (ISL). */
  readonly tokenizesInputOnly?: boolean;
  /** Only for endpoints that can return reasoning text. */
  readonly supportsReasoningOnly?: boolean;
  /** Only for endpoints that produce videos (AIPerf `PRODUCES_VIDEO_ONLY`). */
  readonly producesVideoOnly?: boolean;
  /** Computed from failed requests only (all other record and aggregate metrics use successful requests). */
  readonly errorOnly?: boolean;
  /** Larger values are better (throughputs); decides the direction of a goodput SLO. */
  readonly largerIsBetter?: boolean;
  /** Never shown in the console table (still exported). */
  readonly noConsole?: boolean;
  /** Shown in the console only when its value (or, for distributions, its maximum) is non-zero. */
  readonly consoleOnlyIfNonZero?: boolean;
  /** With failed requests, also summarized with each failure as an infinite value (`adj_<tag>`, AIPerf's
   * "(error-adjusted)" rows). */
  readonly percentileIncludesFailedRequests?: boolean;
  /** Not written to the per-record JSONL. */
  readonly noIndividualRecords?: boolean;
  /** Only selected when `--goodput` is given. */
  readonly goodputOnly?: boolean;
  /** The record value is a list (inter chunk latency); statistics pool all values of all records. */
  readonly list?: boolean;
  /** Bookkeeping value exported to the JSON summary only (not to CSV or console), like AIPerf's timestamps. */
  readonly jsonOnly?: boolean;
  /** Only for runs whose conversations have several turns (session metrics). */
  readonly multiTurnOnly?: boolean;
  /** A building block of other metrics, never exported or shown (AIPerf `INTERNAL`). */
  readonly internal?: boolean;
  /** Only for endpoints whose requests can carry audio (AIPerf `SUPPORTS_AUDIO_ONLY`). */
  readonly supportsAudioOnly?: boolean;
  /** Compares the server's usage with the client's token counts: not selected with server counts (AIPerf
   * `USAGE_DIFF_ONLY`). */
  readonly usageDiffOnly?: boolean;
  /** Not computed in an accuracy run, where the max tokens is a ceiling rather than a target (AIPerf's
   * `DISABLE_ON_ACCURACY`). */
  readonly disableOnAccuracy?: boolean;
}

interface MetricDefBase {
  /** Stable id used in exports and `--goodput`. */
  readonly tag: string;
  /** Display name. */
  readonly header: string;
  /** Compact name for narrow displays (live dashboard). */
  readonly shortHeader?: string;
  readonly unit: MetricUnit;
  /** Unit shown in the console table when it differs from `unit` (e.g. `req/s`). */
  readonly consoleUnit?: string;
  /** Tags whose values this metric needs; if one is not selected for a run, neither is this metric. */
  readonly requires: readonly string[];
  /** Tags read when present (ordering only): the metric still applies when they are not selected. */
  readonly reads?: readonly string[];
  readonly flags: MetricFlags;
  /** Console and summary ordering, ascending (AIPerf's `display_order` where it has one). */
  readonly displayOrder: number;
  /** The console table it belongs to. @default "llm" (unless `noConsole`, which means "none") */
  readonly consoleGroup?: ConsoleGroup;
  /** @default derived by `metricTier`: "detail" outside the main table, else "standard" */
  readonly tier?: MetricTier;
  /** @default derived by `metricBetter`: "higher" with `largerIsBetter`, "lower" for times and error shares */
  readonly better?: Better;
}

/** Computed per request from the record and the values of metrics it requires (already computed). */
export interface RecordMetricDef extends MetricDefBase {
  readonly kind: "record";
  /** Pure; returns undefined when the metric does not apply to this record. */
  compute(record: ProcessedRecord, values: RecordMetrics): RecordValue | undefined;
}

/** How an aggregate folds the per-record contributions. */
export type AggregateFold = "count" | "sum" | "min" | "max";

/** What an aggregate may read besides the record. */
export interface AggregateContext {
  /** True when the record's values satisfy every goodput SLO; undefined when no SLO applies. */
  readonly isGood?: (values: RecordMetrics) => boolean;
}

/** What converting an aggregate's raw value to its display unit may read. */
export interface DisplayContext {
  /** Epoch ms at run-clock 0 (`RunClock.timeOriginMs`). */
  readonly timeOriginMs: number;
}

/** Folded over records; the raw value lives on the run clock / in natural units until displayed. */
export interface AggregateMetricDef extends MetricDefBase {
  readonly kind: "aggregate";
  readonly fold: AggregateFold;
  /** Pure; the record's contribution, or undefined to skip the record (`count` counts defined ones). */
  compute(record: ProcessedRecord, values: RecordMetrics, ctx: AggregateContext): number | undefined;
  /** Raw → display unit (e.g. run-clock ms → wall-clock epoch ns). Identity when absent. */
  toDisplay?(raw: number, ctx: DisplayContext): number;
}

/** Read access to accumulated results for derived metrics. */
export interface DerivedInputs {
  /** Raw value of an aggregate or derived metric (timestamps on the run clock), undefined when absent. */
  value(tag: string): number | undefined;
  /** Sum of a record metric's values, undefined when it has no values. */
  sum(tag: string): number | undefined;
  /** Number of values of a record metric (0 when absent). */
  count(tag: string): number;
  /**
   * Seconds every throughput divides by: the profiling phase's window (phase start → last response) when
   * the run knows it, as AIPerf 0.13 does; otherwise `benchmark_duration`.
   */
  observationSec(): number | undefined;
  /** The statistics of a record metric's values, undefined when it has none. */
  stats(tag: string): Stats | undefined;
}

/** A formula over other results, evaluated once after accumulation. */
export interface DerivedMetricDef extends MetricDefBase {
  readonly kind: "derived";
  /** Pure; returns undefined when an input is missing or the formula is undefined (division by zero). */
  compute(inputs: DerivedInputs): number | undefined;
}

export type MetricDef = RecordMetricDef | AggregateMetricDef | DerivedMetricDef;

/** The capabilities of a run that decide which metrics apply. */
export interface MetricSelection {
  readonly streaming: boolean;
  readonly producesTokens: boolean;
  readonly tokenizesInput: boolean;
  readonly supportsReasoning: boolean;
  /** The endpoint's answers are generated videos. @default false */
  readonly producesVideos?: boolean;
  /** `--goodput` was given. */
  readonly goodput: boolean;
  /** Some conversation of the run has more than one turn. @default false */
  readonly multiTurn?: boolean;
  /** The endpoint's requests can carry audio. @default false */
  readonly supportsAudio?: boolean;
  /** `--use-server-token-count`: token counts come from the server's usage. @default false */
  readonly serverTokenCounts?: boolean;
  /** An accuracy benchmark runs (`--accuracy-benchmark`). @default false */
  readonly accuracy?: boolean;
}

/** A metric's tier: declared, else "detail" for what the main console table does not show, else "standard". */
export function metricTier(def: Pick<MetricDefBase, "tier" | "flags" | "consoleGroup">): MetricTier {
  if (def.tier !== undefined) return def.tier;
  const f = def.flags;
  if (f.internal || f.noConsole || f.jsonOnly || f.errorOnly) return "detail";
  return def.consoleGroup === undefined || def.consoleGroup === "llm" ? "standard" : "detail";
}

/** A metric's better direction: declared, else from `largerIsBetter` (token counts excepted) and its unit. */
export function metricBetter(def: Pick<MetricDefBase, "better" | "flags" | "unit" | "tag">): Better {
  if (def.better !== undefined) return def.better;
  if (def.flags.largerIsBetter) return def.unit === "tokens" ? "none" : "higher";
  if (def.unit === "ms" || def.unit === "ns" || def.unit === "%" || def.tag === "error_request_count") return "lower";
  return "none";
}
