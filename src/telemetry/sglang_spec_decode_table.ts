/**
 * `Server Metrics: Speculative Decoding`, as AIPerf 0.13 prints it against SGLang: its `sglang:spec_accept_rate` (as
 * a percentage, one decimal) and `sglang:spec_accept_length` (two decimals) gauges over the run — mean, min, max, p50,
 * p90 — one row per series of the benchmarked model (`model_name`, any case) on the leader ranks (`pp_rank`/`tp_rank`
 * 0 or absent: other ranks repeat the same scheduler state). Shown only when speculation ran: some accept-length
 * series (else accept-rate series) reached a value above 0, since SGLang reports 0.0 before it starts. With several
 * series, a row names what tells it apart (the endpoint, the model, labels whose values differ), else `series=N`.
 */
import { renderBoxTable } from "../export/box_table.ts";
import { formatGrouped } from "../export/number_format.ts";
import type { MetricSummary, SeriesSummary } from "./server_metrics_summary.ts";

const ACCEPT_RATE = "sglang:spec_accept_rate";
const ACCEPT_LENGTH = "sglang:spec_accept_length";
const LEADER_RANKS = ["pp_rank", "tp_rank"];
const SHOWN: readonly { name: string; label: string; scale: number; digits: number }[] = [
  { name: ACCEPT_RATE, label: "Accept Rate (%)", scale: 100, digits: 1 },
  { name: ACCEPT_LENGTH, label: "Accept Length", scale: 1, digits: 2 },
];
const STATS = ["avg", "min", "max", "p50", "p90"] as const;

/** `host:port/path` of a scrape URL, without its scheme and a trailing `/metrics` (AIPerf's display). */
export function endpointDisplay(url: string): string {
  try {
    const u = new URL(url);
    const path = u.pathname.endsWith("/metrics") ? u.pathname.slice(0, -"/metrics".length) : u.pathname;
    return u.host + (path === "/" ? "" : path);
  } catch {
    return url;
  }
}

function seriesOf(metrics: readonly MetricSummary[], name: string, models: ReadonlySet<string>): SeriesSummary[] {
  const out: SeriesSummary[] = [];
  for (const m of metrics) {
    if (m.name !== name || m.type !== "gauge") continue;
    for (const s of m.series) {
      const model = s.labels?.model_name;
      if (model === undefined || !models.has(model.toLowerCase())) continue;
      if (LEADER_RANKS.some((k) => (s.labels?.[k] ?? "0") !== "0")) continue;
      out.push(s);
    }
  }
  return out;
}

function distinct(series: readonly SeriesSummary[], label: string): boolean {
  return new Set(series.flatMap((s) => s.labels?.[label] === undefined ? [] : [s.labels[label]])).size > 1;
}

function rowLabel(base: string, s: SeriesSummary, index: number, all: readonly SeriesSummary[]): string {
  if (all.length === 1) return base;
  const parts: string[] = [];
  if (new Set(all.map((x) => endpointDisplay(x.endpointUrl))).size > 1) {
    parts.push(`endpoint=${endpointDisplay(s.endpointUrl)}`);
  }
  if (distinct(all, "model_name")) parts.push(`model_name=${s.labels!.model_name}`);
  for (const [k, v] of Object.entries(s.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (k === "model_name" || LEADER_RANKS.includes(k) || !distinct(all, k)) continue;
    parts.push(`${k}=${v}`);
  }
  return `${base} (${parts.length > 0 ? parts.join(", ") : `series=${index}`})`;
}

/** The table, or undefined when SGLang reported no speculative decoding for `modelNames`. */
export function renderSglangSpecDecodeTable(
  metrics: readonly MetricSummary[],
  modelNames: readonly string[],
  maxWidth = 140,
): string | undefined {
  const models = new Set(modelNames.map((m) => m.toLowerCase()));
  const active = (list: SeriesSummary[]) => list.some((s) => Number.isFinite(s.stats.max) && s.stats.max > 0);
  const lengths = seriesOf(metrics, ACCEPT_LENGTH, models);
  if (!(lengths.length > 0 ? active(lengths) : active(seriesOf(metrics, ACCEPT_RATE, models)))) return undefined;
  const rows: string[][] = [];
  for (const shown of SHOWN) {
    const all = seriesOf(metrics, shown.name, models);
    all.forEach((s, i) => {
      const values = STATS.map((k) => s.stats[k] * shown.scale);
      if (!values.every(Number.isFinite)) return;
      rows.push([rowLabel(shown.label, s, i + 1, all), ...values.map((v) => formatGrouped(v, shown.digits))]);
    });
  }
  if (rows.length === 0) return undefined;
  return renderBoxTable(
    [
      { header: "Metric", justify: "left", wrap: true },
      ...["mean", "min", "max", "p50", "p90"].map((header) => ({ header, justify: "right" as const })),
    ],
    rows,
    { title: "infermeter | Server Metrics: Speculative Decoding", maxWidth },
  );
}
