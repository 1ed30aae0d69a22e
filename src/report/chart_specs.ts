/**
 * The charts of one run and of several runs, as Apache ECharts options: plain JSON data, so the same option is
 * rendered to SVG on the server (`render_chart.ts`) and drawn interactively in the HTML report by the browser build.
 *
 * One run: TTFT, ITL and request latency distributions (histogram with the CDF and the export's p50/p90/p99 marked),
 * TTFT and ITL per request against send time, throughput and requests in flight over time, latency against output
 * length. Several runs: each latency's p50 and p99 against the load (concurrency or request rate), throughput
 * against the load, and the throughput–latency curve (output tokens/s per user against output tokens/s in total).
 */
import type { DistributionData, RunChartData, ScatterData } from "./run_chart_data.ts";
import type { RunExport } from "./run_export.ts";

/** An ECharts option: JSON only (no functions), so it can be inlined into a page. */
export type ChartOption = Record<string, unknown>;

/** One chart: a file name stem, a title, and its option. */
export interface ChartSpec {
  /** File name stem (`ttft_distribution`). */
  readonly id: string;
  readonly title: string;
  readonly option: ChartOption;
}

const PERCENTILES = ["p50", "p90", "p99"] as const;
const FONT = "Roboto, 'Helvetica Neue', Arial, sans-serif";

function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function base(title: string, subtitle?: string): ChartOption {
  return {
    animation: false,
    backgroundColor: "#ffffff",
    textStyle: { fontFamily: FONT },
    title: { text: title, subtext: subtitle, left: "center", textStyle: { fontSize: 16 } },
    grid: { left: 70, right: 70, top: subtitle === undefined ? 60 : 75, bottom: 80, containLabel: false },
    tooltip: { trigger: "axis" },
  };
}

function valueAxis(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: "value", name, nameLocation: "middle", nameGap: 30, scale: true, ...extra };
}

/** Histogram (step area, count) + CDF (%, right axis), with the export's percentiles marked. */
function distributionChart(
  id: string,
  title: string,
  unitLabel: string,
  data: DistributionData,
  percentiles: Readonly<Record<string, number | undefined>>,
): ChartSpec {
  const h = data.histogram;
  const steps: [number, number][] = h.counts.map((c, i) => [round(h.edges[i]), c]);
  if (h.counts.length > 0) steps.push([round(h.edges[h.edges.length - 1] + h.width), h.counts[h.counts.length - 1]]);
  const marks = PERCENTILES.filter((p) => percentiles[p] !== undefined).map((p) => ({
    name: p,
    xAxis: round(percentiles[p]!),
    label: { formatter: `${p} ${round(percentiles[p]!, 2)}`, position: "end" },
  }));
  return {
    id,
    title,
    option: {
      ...base(title, `${data.count} requests`),
      legend: { bottom: 4, data: ["requests", "CDF"] },
      xAxis: valueAxis(unitLabel),
      yAxis: [
        valueAxis("requests", { scale: false, minInterval: 1 }),
        valueAxis("CDF (%)", { min: 0, max: 100, scale: false, splitLine: { show: false } }),
      ],
      series: [
        {
          name: "requests",
          type: "line",
          step: "end",
          symbol: "none",
          areaStyle: { opacity: 0.35 },
          data: steps,
          markLine: { symbol: "none", lineStyle: { type: "dashed", color: "#c23531" }, data: marks },
        },
        { name: "CDF", type: "line", yAxisIndex: 1, symbol: "none", smooth: false, data: data.cdf },
      ],
    },
  };
}

function scatterChart(
  id: string,
  title: string,
  xName: string,
  yName: string,
  data: ScatterData,
  roundX: boolean,
): ChartSpec {
  const shown = data.points.map(([x, y]) => [roundX ? round(x) : x, round(y)]);
  return {
    id,
    title,
    option: {
      ...base(title, shown.length < data.total ? `${shown.length} of ${data.total} requests` : undefined),
      tooltip: { trigger: "item" },
      xAxis: valueAxis(xName, { scale: false }),
      yAxis: valueAxis(yName),
      series: [{ type: "scatter", symbolSize: 5, itemStyle: { opacity: 0.6 }, data: shown }],
    },
  };
}

function metricStats(run: RunExport, tag: string): Readonly<Record<string, number | undefined>> {
  return run.metrics.get(tag)?.stats ?? {};
}

/**
 * The charts of one run, from its reduced records (`run_chart_data.ts`); charts whose data the run lacks (TTFT of a
 * non-streamed run) are left out.
 */
export function singleRunCharts(run: RunExport, data: RunChartData): ChartSpec[] {
  const charts: ChartSpec[] = [];
  const dist = (id: string, title: string, tag: string, d: DistributionData | undefined) => {
    if (d !== undefined) charts.push(distributionChart(id, title, "ms", d, metricStats(run, tag)));
  };
  dist("ttft_distribution", "Time to first token", "time_to_first_token", data.ttft);
  dist("itl_distribution", "Inter-token latency", "inter_token_latency", data.itl);
  dist("latency_distribution", "Request latency", "request_latency", data.latency);

  const overTime = (id: string, title: string, yName: string, d: ScatterData | undefined) => {
    if (d !== undefined) charts.push(scatterChart(id, title, "send time (s)", yName, d, true));
  };
  overTime("ttft_over_time", "Time to first token by send time", "TTFT (ms)", data.ttftOverTime);
  overTime("itl_over_time", "Inter-token latency by send time", "ITL (ms)", data.itlOverTime);

  const ts = data.series;
  if (ts !== undefined) {
    // Each value holds over its interval: a step that ends where the next interval starts, closed at the last end.
    const at = (ys: readonly number[]) => [
      ...ys.map((y, i) => [round(ts.times[i]), round(y)]),
      [round(ts.times[ys.length - 1] + ts.intervalSec), round(ys[ys.length - 1])],
    ];
    charts.push({
      id: "throughput_over_time",
      title: "Throughput and requests in flight",
      option: {
        ...base("Throughput and requests in flight", `per ${ts.intervalSec} s`),
        legend: { bottom: 4, data: ["output tokens/s", "requests/s", "in flight"] },
        xAxis: valueAxis("time since the first request (s)", { scale: false }),
        // Tokens/s is hundreds of times requests/s: requests/s shares the right axis with the requests in flight
        // (comparable counts), never the tokens' axis, where it would be a flat line at zero.
        yAxis: [
          valueAxis("output tokens/s", { scale: false }),
          valueAxis("requests/s · in flight", { scale: false, splitLine: { show: false } }),
        ],
        series: [
          { name: "output tokens/s", type: "line", step: "end", symbol: "none", data: at(ts.outputTokensPerSec) },
          {
            name: "requests/s",
            type: "line",
            yAxisIndex: 1,
            step: "end",
            symbol: "none",
            data: at(ts.requestsPerSec),
          },
          {
            name: "in flight",
            type: "line",
            yAxisIndex: 1,
            step: "end",
            symbol: "none",
            lineStyle: { type: "dashed" },
            data: at(ts.inFlight),
          },
        ],
      },
    });
  }

  if (data.latencyVsLength !== undefined) {
    charts.push(
      scatterChart(
        "latency_vs_output_length",
        "Request latency by output length",
        "output tokens",
        "latency (ms)",
        data.latencyVsLength,
        false,
      ),
    );
  }
  return charts;
}

/** What the runs of a sweep vary: concurrency, request rate, or neither (then runs are placed by their letter). */
export interface SweepAxis {
  readonly name: string;
  /** One per run. */
  readonly values: readonly (number | string)[];
  readonly numeric: boolean;
}

/** Concurrency when every run has a distinct one, else request rate likewise, else the run labels. */
export function sweepAxis(runs: readonly RunExport[], labels: readonly string[]): SweepAxis {
  const distinct = (xs: readonly (number | undefined)[]) =>
    xs.every((x) => x !== undefined) && new Set(xs).size === xs.length;
  const rates = runs.map((r) => r.requestRate);
  if (distinct(rates)) return { name: "request rate (req/s)", values: rates as number[], numeric: true };
  const concurrency = runs.map((r) => r.concurrency);
  if (distinct(concurrency)) return { name: "concurrency", values: concurrency as number[], numeric: true };
  return { name: "run", values: labels, numeric: false };
}

/** A service-level objective drawn on the sweep charts: a statistic of a metric and its limit. */
export interface SloLine {
  readonly tag: string;
  readonly stat: string;
  readonly threshold: number;
  /** `p95 TTFT < 200 ms`. */
  readonly label: string;
}

/** How an SLO line is drawn: a dashed red series, so the axes always reach it. */
const SLO_STYLE = { type: "line", symbol: "none", lineStyle: { type: "dashed", color: "#c23531", width: 2 } };

/**
 * Latency percentiles and throughput against the load, and the throughput–latency curve. With `slos`, each one's
 * statistic is drawn against the load with its limit as a dashed line, and output throughput is drawn against the
 * first latency SLO's statistic with that limit as a vertical line.
 */
export function multiRunCharts(
  runs: readonly RunExport[],
  labels: readonly string[],
  options: { readonly slos?: readonly SloLine[] } = {},
): ChartSpec[] {
  const slos = options.slos ?? [];
  const axis = sweepAxis(runs, labels);
  const order = runs.map((_, i) => i);
  if (axis.numeric) order.sort((a, b) => (axis.values[a] as number) - (axis.values[b] as number));
  const xAxis = axis.numeric
    ? valueAxis(axis.name, { scale: false })
    : { type: "category", name: axis.name, data: order.map((i) => axis.values[i]) };
  const point = (
    i: number,
    y: number | undefined,
  ) => (axis.numeric ? [axis.values[i], y === undefined ? null : round(y)] : y === undefined ? null : round(y));
  /** The SLO as a horizontal series across the load axis. */
  const sloSeries = (slo: SloLine) => ({
    ...SLO_STYLE,
    name: slo.label,
    data: axis.numeric
      ? [[Math.min(...(axis.values as number[])), slo.threshold], [
        Math.max(...(axis.values as number[])),
        slo.threshold,
      ]]
      : order.map(() => slo.threshold),
  });
  const charts: ChartSpec[] = [];
  const drawn = new Set<string>();
  const byLoad = (id: string, title: string, tag: string, unit: string) => {
    if (!runs.some((r) => r.metrics.has(tag))) return;
    const own = slos.filter((s) => s.tag === tag);
    const stats = [...new Set([...(unit === "ms" ? ["p50", "p99"] : []), ...own.map((s) => s.stat)])];
    if (stats.length === 0) stats.push("avg");
    const value = (i: number, stat: string) => runs[i].metrics.get(tag)?.stats[stat];
    charts.push({
      id,
      title,
      option: {
        ...base(title),
        legend: { bottom: 4, data: [...stats, ...own.map((s) => s.label)] },
        xAxis,
        yAxis: valueAxis(unit, { scale: false }),
        series: [
          ...stats.map((stat) => ({
            name: stat,
            type: "line",
            symbolSize: 8,
            data: order.map((i) => point(i, value(i, stat))),
          })),
          ...own.map(sloSeries),
        ],
      },
    });
    drawn.add(tag);
  };
  byLoad("sweep_ttft", `Time to first token by ${axis.name}`, "time_to_first_token", "ms");
  byLoad("sweep_itl", `Inter-token latency by ${axis.name}`, "inter_token_latency", "ms");
  byLoad("sweep_latency", `Request latency by ${axis.name}`, "request_latency", "ms");
  for (const slo of slos) {
    if (drawn.has(slo.tag)) continue;
    const unit = runs.find((r) => r.metrics.has(slo.tag))?.metrics.get(slo.tag)?.unit ?? "";
    byLoad(`sweep_${slo.tag}`, `${slo.tag} by ${axis.name}`, slo.tag, unit);
  }

  const tps = (i: number) => runs[i].metrics.get("output_token_throughput")?.stats.avg;
  if (order.some((i) => tps(i) !== undefined)) {
    charts.push({
      id: "sweep_throughput",
      title: `Output token throughput by ${axis.name}`,
      option: {
        ...base(`Output token throughput by ${axis.name}`),
        xAxis,
        yAxis: valueAxis("output tokens/s", { scale: false }),
        series: [{ name: "output tokens/s", type: "line", symbolSize: 8, data: order.map((i) => point(i, tps(i))) }],
      },
    });
  }

  const curve = order.flatMap((i) => {
    const perUser = runs[i].metrics.get("output_token_throughput_per_user")?.stats.avg;
    const total = tps(i);
    return perUser === undefined || total === undefined
      ? []
      : [{ value: [round(perUser), round(total)], name: `${axis.numeric ? `${axis.name} ` : ""}${axis.values[i]}` }];
  });
  if (curve.length > 0) {
    charts.push({
      id: "throughput_latency_curve",
      title: "Throughput vs per-user speed",
      option: {
        ...base("Throughput vs per-user speed", "each point is one run; up and right is better"),
        tooltip: { trigger: "item" },
        xAxis: valueAxis("output tokens/s per user", { scale: true }),
        yAxis: valueAxis("output tokens/s (total)", { scale: false }),
        series: [{
          type: "line",
          symbolSize: 9,
          data: curve,
          label: { show: true, formatter: "{b}", position: "top" },
        }],
      },
    });
  }
  const latencySlo = slos.find((s) => runs.some((r) => r.metrics.get(s.tag)?.unit === "ms"));
  if (latencySlo !== undefined) {
    const pts = order.flatMap((i) => {
      const x = runs[i].metrics.get(latencySlo.tag)?.stats[latencySlo.stat];
      const y = tps(i);
      return x === undefined || y === undefined
        ? []
        : [{ value: [round(x), round(y)], name: `${axis.numeric ? `${axis.name} ` : ""}${axis.values[i]}` }];
    });
    if (pts.length > 0) {
      const top = Math.max(...pts.map((p) => p.value[1]));
      const name = latencySlo.label.replace(/ [<>≤≥].*$/, "");
      const title = `Output token throughput by ${name}`;
      charts.push({
        id: "throughput_vs_slo",
        title,
        option: {
          ...base(title, "each point is one run; the dashed line is the SLO"),
          tooltip: { trigger: "item" },
          legend: { bottom: 4, data: [latencySlo.label] },
          xAxis: valueAxis(`${name} (ms)`, { scale: false }),
          yAxis: valueAxis("output tokens/s", { scale: false }),
          series: [
            {
              type: "line",
              symbolSize: 9,
              data: pts,
              label: { show: true, formatter: "{b}", position: "top" },
            },
            {
              ...SLO_STYLE,
              name: latencySlo.label,
              data: [[latencySlo.threshold, 0], [latencySlo.threshold, round(top)]],
            },
          ],
        },
      });
    }
  }
  return charts;
}
