/**
 * A run's sessions as swim lanes (AIPerf's `analyze swim-lane`): one lane per concurrent session slot — a slot is
 * reused once its session has ended — each request a bar from its start to its end, the think time between a
 * session's requests a faint band, a black tick where a new session takes a used slot; under it, the requests in
 * flight and the sessions idle between turns over time, with the slot count, the target concurrency (`-c`), the end
 * of the concurrency ramp and of the benchmark marked.
 *
 * Read from `profile_export.jsonl` (ours or AIPerf's; cancelled requests and records without both times are left
 * out, as AIPerf does) and, when present, the JSON summary (benchmark duration, concurrency ramp). Sessions are the
 * records sharing an `x_correlation_id` (else a `conversation_id`); requests of a session that overlap stack in
 * sub-rows of its slot. Drawn as one ECharts option (only JSON data, no functions), so the PNG (server-side SVG,
 * rasterized) and the interactive HTML page draw the same picture.
 */
import { EventList, type StepFunction } from "../metrics/sweep_line.ts";
import { ReportError } from "./report_error.ts";
import { recordsPathOf, runManifest } from "./run_files.ts";
import type { ChartOption } from "./chart_specs.ts";

/** One request, ms from the first request of the run. */
interface Turn {
  readonly start: number;
  readonly end: number;
  readonly turnIndex: number;
}

/** One session's place in the picture. */
export interface SessionLane {
  readonly id: string;
  readonly slot: number;
  /** Sub-row of each request within the slot (overlapping requests stack). */
  readonly rows: readonly number[];
  readonly turns: readonly Turn[];
  readonly start: number;
  readonly end: number;
}

export interface SwimLaneLayout {
  readonly sessions: readonly SessionLane[];
  readonly slots: number;
  /** Rows per slot (1, or more where a session's requests overlap). */
  readonly slotRows: readonly number[];
  /** First row of each slot. */
  readonly slotOffset: readonly number[];
  readonly totalRows: number;
  /** Last request end, ms. */
  readonly endMs: number;
  /** Requests in flight, and sessions started but between requests, over time (ms). */
  readonly active: StepFunction;
  readonly idle: StepFunction;
}

export interface SwimLaneRun {
  readonly name: string;
  readonly layout: SwimLaneLayout;
  /** Concurrency ramp duration (s), from the summary or `--ramp`. */
  readonly rampS?: number;
  /** Benchmark duration (s), from the summary. */
  readonly benchmarkS?: number;
}

interface RawTurn {
  readonly session: string;
  readonly startNs: number;
  readonly endNs: number;
  readonly turnIndex: number;
}

function readRecords(text: string, path: string): RawTurn[] {
  const out: RawTurn[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let json: { metadata?: Record<string, unknown> };
    try {
      json = JSON.parse(line);
    } catch (e) {
      throw new ReportError(`${path}:${i + 1}: not valid JSON (${e instanceof Error ? e.message : String(e)}).`);
    }
    const meta = json?.metadata;
    if (typeof meta !== "object" || meta === null) {
      throw new ReportError(`${path}:${i + 1}: not a per-request record (no "metadata" object).`);
    }
    if (meta.was_cancelled === true) return;
    const startNs = meta.request_start_ns, endNs = meta.request_end_ns;
    if (typeof startNs !== "number" || typeof endNs !== "number") return;
    const session = meta.x_correlation_id ?? meta.conversation_id;
    out.push({
      session: typeof session === "string" ? session : String(session),
      startNs,
      endNs,
      turnIndex: typeof meta.turn_index === "number" ? meta.turn_index : 0,
    });
  });
  return out;
}

/** Greedy packing: each item takes the first row whose last item ended by its start. */
function pack(items: readonly { start: number; end: number }[]): { rows: number[]; count: number } {
  const order = items.map((_, i) => i).sort((a, b) => items[a].start - items[b].start || a - b);
  const ends: number[] = [];
  const rows = new Array<number>(items.length);
  for (const i of order) {
    let row = ends.findIndex((end) => items[i].start >= end);
    if (row === -1) {
      row = ends.length;
      ends.push(items[i].end);
    } else ends[row] = items[i].end;
    rows[i] = row;
  }
  return { rows, count: ends.length };
}

/** The layout of records (their times ns since the epoch, as exported). */
export function layoutSwimLanes(records: readonly RawTurn[]): SwimLaneLayout {
  if (records.length === 0) throw new ReportError("no valid records to draw");
  // Differences of ns epoch stamps taken as doubles stay exact to well under a microsecond.
  const t0 = Math.min(...records.map((r) => r.startNs));
  const bySession = new Map<string, Turn[]>();
  for (const r of records) {
    const turn = { start: (r.startNs - t0) / 1e6, end: (r.endNs - t0) / 1e6, turnIndex: r.turnIndex };
    const list = bySession.get(r.session);
    if (list === undefined) bySession.set(r.session, [turn]);
    else list.push(turn);
  }
  const spans = [...bySession].map(([id, turns]) => {
    turns.sort((a, b) => a.turnIndex - b.turnIndex);
    return {
      id,
      turns,
      start: Math.min(...turns.map((t) => t.start)),
      end: Math.max(...turns.map((t) => t.end)),
    };
  });
  const slotOf = pack(spans);
  const sessions = spans.map((s, i): SessionLane => {
    const rows = pack(s.turns).rows;
    return { ...s, slot: slotOf.rows[i], rows };
  });
  const slotRows = new Array<number>(slotOf.count).fill(1);
  for (const s of sessions) slotRows[s.slot] = Math.max(slotRows[s.slot], Math.max(...s.rows) + 1);
  const slotOffset = slotRows.map((_, i) => slotRows.slice(0, i).reduce((a, b) => a + b, 0));
  const active = new EventList();
  const idle = new EventList();
  for (const s of sessions) {
    idle.interval(s.start, s.end, 1);
    for (const t of s.turns) {
      active.interval(t.start, t.end, 1);
      idle.interval(t.start, t.end, -1);
    }
  }
  const idleCurve = idle.build();
  return {
    sessions,
    slots: slotOf.count,
    slotRows,
    slotOffset,
    totalRows: slotRows.reduce((a, b) => a + b, 0),
    endMs: Math.max(...sessions.map((s) => s.end)),
    active: active.build(),
    // A session's requests may overlap: idle never goes below 0 (AIPerf clamps it too).
    idle: { times: idleCurve.times, values: idleCurve.values.map((v) => Math.max(0, v)) },
  };
}

/** The benchmark duration and concurrency ramp (s) the JSON summary records, when it does. */
function benchConfig(summary: Record<string, unknown> | undefined): { rampS?: number; benchmarkS?: number } {
  if (summary === undefined) return {};
  const input = (summary.input_config ?? {}) as Record<string, unknown>;
  const loadgen = (input.loadgen ?? {}) as Record<string, unknown>;
  let ramp: unknown;
  for (const phase of Array.isArray(input.phases) ? input.phases : []) {
    if (phase?.exclude_from_results) continue;
    ramp = phase?.concurrency_ramp?.duration;
    if (ramp !== undefined) break;
  }
  ramp ??= loadgen.concurrency_ramp_duration;
  const bench = summary.benchmark_duration ?? loadgen.benchmark_duration;
  const benchValue = typeof bench === "object" && bench !== null ? (bench as { avg?: unknown }).avg : bench;
  return {
    ...(typeof ramp === "number" ? { rampS: ramp } : {}),
    ...(typeof benchValue === "number" ? { benchmarkS: benchValue } : {}),
  };
}

async function readJsonIfAny(path: string): Promise<Record<string, unknown> | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(path));
  } catch {
    return undefined;
  }
}

/**
 * The swim lanes of the run in `dir`.
 * @throws {ReportError} when the directory has no per-request records, or none that can be drawn.
 */
export async function readSwimLaneRun(dir: string, rampS?: number): Promise<SwimLaneRun> {
  const path = await recordsPathOf(dir);
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    throw new ReportError(`${path} not found`);
  }
  const records = readRecords(text, path);
  if (records.length === 0) throw new ReportError(`no valid records in ${path}`);
  const manifest = await runManifest(dir);
  const summaryFile = manifest?.files.find((f) => f.role === "summary_json")?.path ?? "profile_export_aiperf.json";
  const bench = benchConfig(await readJsonIfAny(`${dir.replace(/\/+$/, "")}/${summaryFile}`));
  const name = dir.replace(/\/+$/, "").split("/").pop() ?? dir;
  return {
    name,
    layout: layoutSwimLanes(records),
    ...bench,
    ...(rampS === undefined ? {} : { rampS }),
  };
}

/** Matplotlib's tab20, the palette AIPerf colours sessions with. */
const TAB20 = [
  "#1f77b4",
  "#aec7e8",
  "#ff7f0e",
  "#ffbb78",
  "#2ca02c",
  "#98df8a",
  "#d62728",
  "#ff9896",
  "#9467bd",
  "#c5b0d5",
  "#8c564b",
  "#c49c94",
  "#e377c2",
  "#f7b6d2",
  "#7f7f7f",
  "#c7c7c7",
  "#bcbd22",
  "#dbdb8d",
  "#17becf",
  "#9edae5",
]; // deno-fmt-ignore

/** Pixel size of the picture for a layout. */
export function swimLaneSize(layout: SwimLaneLayout): { width: number; height: number; lanesHeight: number } {
  const rowPx = Math.max(6, Math.min(30, 1400 / layout.totalRows));
  const lanesHeight = Math.max(260, Math.round(layout.totalRows * rowPx));
  return { width: 1800, height: lanesHeight + 380, lanesHeight };
}

type Point = [number, number] | null;

function seconds(ms: number): number {
  return Math.round(ms) / 1000;
}

/** Segments `[x0, y] → [x1, y]` as one line series' data, broken by nulls. */
function segments(list: readonly { x0: number; x1: number; y: number }[]): Point[] {
  const data: Point[] = [];
  for (const s of list) data.push([seconds(s.x0), s.y], [seconds(s.x1), s.y], null);
  return data;
}

function steps(f: StepFunction): [number, number][] {
  return Array.from(f.times, (t, i) => [seconds(t), f.values[i]] as [number, number]);
}

/** The picture as one ECharts option: lanes on top, concurrency below, one time axis. */
export function swimLaneOption(run: SwimLaneRun, targetConcurrency?: number): ChartOption {
  const l = run.layout;
  const { lanesHeight } = swimLaneSize(l);
  const rowPx = lanesHeight / l.totalRows;
  const barPx = Math.max(2, rowPx * 0.7);
  const endS = Math.max(seconds(l.endMs) * 1.01, 1);
  const center = (slot: number) => l.slotOffset[slot] + (l.slotRows[slot] - 1) / 2;
  // Slot backgrounds where no session runs.
  const gaps: { x0: number; x1: number; y: number }[] = [];
  for (let slot = 0; slot < l.slots; slot++) {
    const spans = l.sessions.filter((s) => s.slot === slot).map((s) => [s.start, s.end]).sort((a, b) => a[0] - b[0]);
    let at = 0;
    for (const [s, e] of spans) {
      if (s > at) gaps.push({ x0: at, x1: s, y: center(slot) });
      at = Math.max(at, e);
    }
    if (at < l.endMs) gaps.push({ x0: at, x1: l.endMs, y: center(slot) });
  }
  const bars = TAB20.map(() => [] as { x0: number; x1: number; y: number }[]);
  const idle = TAB20.map(() => [] as { x0: number; x1: number; y: number }[]);
  const reuse: { x0: number; x1: number; y: number }[] = [];
  const seenSlot = new Set<number>();
  const ordered = [...l.sessions].sort((a, b) => a.start - b.start);
  ordered.forEach((s, i) => {
    const color = i % TAB20.length;
    s.turns.forEach((t, k) => bars[color].push({ x0: t.start, x1: t.end, y: l.slotOffset[s.slot] + s.rows[k] }));
    const merged = [...s.turns].sort((a, b) => a.start - b.start).reduce<[number, number][]>((m, t) => {
      const last = m[m.length - 1];
      if (last !== undefined && t.start <= last[1]) last[1] = Math.max(last[1], t.end);
      else m.push([t.start, t.end]);
      return m;
    }, []);
    for (let k = 1; k < merged.length; k++) {
      idle[color].push({ x0: merged[k - 1][1], x1: merged[k][0], y: center(s.slot) });
    }
    if (seenSlot.has(s.slot)) reuse.push({ x0: s.start, x1: s.start, y: s.slot });
    seenSlot.add(s.slot);
  });
  const line = (name: string, data: Point[], color: string, width: number, opacity = 1, z = 2) => ({
    name,
    type: "line",
    xAxisIndex: 0,
    yAxisIndex: 0,
    data,
    showSymbol: false,
    connectNulls: false,
    silent: true,
    animation: false,
    z,
    lineStyle: { color, width, opacity, cap: "butt" },
    itemStyle: { color },
  });
  const vertical: Point[] = [];
  for (const r of reuse) {
    const top = l.slotOffset[r.y] - 0.35;
    const bottom = l.slotOffset[r.y] + l.slotRows[r.y] - 1 + 0.35;
    vertical.push([seconds(r.x0), top], [seconds(r.x0), bottom], null);
  }
  const marks: Record<string, unknown>[] = [];
  if (run.rampS !== undefined) {
    marks.push({
      xAxis: run.rampS,
      name: `Ramp done (${run.rampS.toFixed(0)}s)`,
      lineStyle: { color: "orange", type: "dashed", width: 1.5 },
    });
  }
  if (run.benchmarkS !== undefined) {
    marks.push({
      xAxis: run.benchmarkS,
      name: `Benchmark end (${run.benchmarkS.toFixed(0)}s)`,
      lineStyle: { color: "red", type: "dashed", width: 1.5 },
    });
  }
  const peak = l.active.values.reduce((m, v) => Math.max(m, v), 0);
  const levels: Record<string, unknown>[] = [
    { yAxis: l.slots, name: `Slot count (${l.slots})`, lineStyle: { color: "red", type: "dotted" } },
  ];
  if (targetConcurrency !== undefined) {
    levels.push({
      yAxis: targetConcurrency,
      name: `Target concurrency (${targetConcurrency})`,
      lineStyle: { color: "green", type: "dashed", width: 1.2 },
    });
  }
  const stride = l.slots <= 30 ? 1 : l.slots <= 60 ? 2 : 5;
  const tickRows = Array.from({ length: l.slots }, (_, s) => s).filter((s) => s % stride === 0).map(center);
  const { height } = swimLaneSize(l);
  const top = 70;
  return {
    animation: false,
    backgroundColor: "#ffffff",
    textStyle: { fontFamily: "Roboto, 'Helvetica Neue', Arial, sans-serif" },
    title: {
      text: `${run.name}  —  ${l.sessions.length} sessions across ${l.slots} slots`,
      left: "center",
      textStyle: { fontSize: 15, fontWeight: "bold" },
    },
    legend: [
      { top: 30, data: ["Active request", "Inter-turn delay", "New session in slot"], selectedMode: false },
      { bottom: 10, data: [`Active requests (peak ${peak})`, "Idle sessions (between turns)"], selectedMode: false },
    ],
    grid: [
      { left: 70, right: 40, top, height: lanesHeight },
      { left: 70, right: 40, top: top + lanesHeight + 60, height: height - lanesHeight - top - 170 },
    ],
    xAxis: [
      {
        type: "value",
        gridIndex: 0,
        min: 0,
        max: endS,
        axisLabel: { show: false },
        axisLine: { onZero: false },
        splitLine: { show: true },
      },
      {
        type: "value",
        gridIndex: 1,
        min: 0,
        max: endS,
        name: "Time (seconds)",
        nameLocation: "middle",
        nameGap: 28,
        axisLabel: { showMaxLabel: false },
      },
    ],
    yAxis: [
      {
        type: "value",
        gridIndex: 0,
        min: -0.5,
        max: l.totalRows - 0.5,
        inverse: true,
        name: "Session Slot",
        nameLocation: "middle",
        nameGap: 45,
        splitLine: { show: false },
        axisLabel: { customValues: tickRows, formatter: "{value}" },
        axisTick: { customValues: tickRows },
      },
      {
        type: "value",
        gridIndex: 1,
        min: 0,
        max: Math.ceil(Math.max(peak, l.slots, targetConcurrency ?? 0, 1) * 1.15),
        name: "Sessions",
        nameLocation: "middle",
        nameGap: 45,
      },
    ],
    dataZoom: [{ type: "inside", xAxisIndex: [0, 1], filterMode: "none" }],
    series: [
      line("Free slot", segments(gaps), "#f0f0f0", barPx, 1, 1),
      ...idle.map((d, c) => line("Inter-turn delay", segments(d), TAB20[c], barPx, 0.25)),
      ...bars.map((d, c) => line("Active request", segments(d), TAB20[c], barPx, 1, 3)),
      {
        ...line("New session in slot", vertical, "#000000", 1.5, 1, 4),
        ...(marks.length === 0 ? {} : { markLine: { symbol: "none", label: { show: false }, data: marks } }),
      },
      {
        name: `Active requests (peak ${peak})`,
        type: "line",
        xAxisIndex: 1,
        yAxisIndex: 1,
        step: "end",
        showSymbol: false,
        data: steps(l.active),
        lineStyle: { color: "#2196F3", width: 0.8 },
        areaStyle: { color: "#2196F3", opacity: 0.3 },
        itemStyle: { color: "#2196F3" },
        markLine: {
          symbol: "none",
          label: { formatter: "{b}", position: "insideEndTop" },
          data: [...levels, ...marks],
        },
      },
      {
        name: "Idle sessions (between turns)",
        type: "line",
        xAxisIndex: 1,
        yAxisIndex: 1,
        step: "end",
        showSymbol: false,
        data: steps(l.idle),
        lineStyle: { color: "#999999", width: 0.8, opacity: 0.8 },
        itemStyle: { color: "#999999" },
      },
    ],
  };
}

/** A self-contained page drawing the picture with ECharts' browser build (zoom with the wheel; no network). */
export function swimLaneHtml(run: SwimLaneRun, echartsScript: string, targetConcurrency?: number): string {
  const { height } = swimLaneSize(run.layout);
  const option = JSON.stringify(swimLaneOption(run, targetConcurrency)).replace(/</g, "\\u003c");
  const title = `Swim lanes — ${run.name}`.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<title>${title}</title>
<style>body { margin: 0; background: #fff; } #chart { width: 100%; height: ${height}px; }</style>
</head>
<body>
<div id="chart" role="img" aria-label="${title}"></div>
<script type="application/json" id="option">${option}</script>
<script>${echartsScript.replace(/<\/script/gi, "<\\/script")}</script>
<script>
var chart = echarts.init(document.getElementById("chart"), null, { renderer: "canvas" });
chart.setOption(JSON.parse(document.getElementById("option").textContent));
window.addEventListener("resize", function () { chart.resize(); });
document.body.setAttribute("data-chart-drawn", "1");
</script>
</body>
</html>
`;
}
