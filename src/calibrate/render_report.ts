/** The calibration report as a console table with its caveats. */
import type { Stats } from "../metrics/stats.ts";
import { type CalibrationReport, levelCaveats } from "./level_report.ts";

export function renderReport(r: CalibrationReport): string {
  const f = (s: Stats | undefined, k: "p50" | "p99" | "max") => s ? (s[k] as number).toFixed(3) : "-";
  const rows = r.levels.map((l) => [
    String(l.streams),
    Math.round(l.eventsPerSecond).toLocaleString("en-US"),
    f(l.ttftErrorMs, "p50"),
    f(l.ttftErrorMs, "p99"),
    f(l.floorTtftErrorMs, "p50"),
    f(l.floorTtftErrorMs, "p99"),
    f(l.itlErrorMs, "p50"),
    f(l.itlErrorMs, "p99"),
    f(l.requestLatencyErrorMs, "p50"),
    f(l.requestLatencyErrorMs, "p99"),
    f(l.floorLatencyErrorMs, "p50"),
    f(l.floorLatencyErrorMs, "p99"),
    f(l.eventErrorMs, "p50"),
    f(l.eventErrorMs, "p99"),
    f(l.floorEventErrorMs, "p50"),
    f(l.floorEventErrorMs, "p99"),
    f(l.sendLagMs, "p50"),
    f(l.sendLagMs, "p99"),
    f(l.floorSendLagMs, "p50"),
    f(l.floorSendLagMs, "p99"),
    l.clientCpuPercentOfCore !== undefined ? l.clientCpuPercentOfCore.toFixed(0) + "%" : "-",
  ]);
  const header = [
    "streams",
    "events/s",
    "TTFT p50",
    "TTFT p99",
    "floor TTFT p50",
    "floor TTFT p99",
    "ITL p50",
    "ITL p99",
    "latency p50",
    "latency p99",
    "floor latency p50",
    "floor latency p99",
    "event p50",
    "event p99",
    "floor p50",
    "floor p99",
    "send p50",
    "send p99",
    "floor send p50",
    "floor send p99",
    "client CPU",
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i])).join("  ");
  return [
    `infermeter | Calibration: client-added error in ms (server TTFT ${r.ttftMs} ms, ITL ${r.itlMs} ms, ` +
    `${r.tokensPerRequest} tokens, ${r.warmup ? "after a warmup of one request per stream" : "cold start"})`,
    line(header),
    ...rows.map(line),
    "TTFT, latency, event: client arrival − server write of the first, last and every token; floor TTFT, floor",
    "latency, floor: the same for a bare socket client (no HTTP, SSE or JSON work): kernel, runtime and server, which",
    "no client here can beat.",
    "send: server arrival − client start stamp (an upper bound on the start stamp's error: it includes loopback and",
    "the reference server's wake-up, whose share the floor client's send lag shows).",
    ...(r.layout === undefined ? [] : [`layout: ${r.layout}`]),
    ...r.levels.filter((l) => l.engineLayout !== undefined).map((l) =>
      `  ${l.streams} streams: engine ${l.engineLayout}`
    ),
    `clock offset between processes: ${(r.clockOffsetMs * 1000).toFixed(1)} µs ± ${
      (r.clockUncertaintyMs * 1000).toFixed(1)
    } µs`,
    r.cpuDmaLatencyUs === null
      ? "idle cores followed the machine's power settings: where they sleep, waking one is part of every figure, " +
        "the floor's too. --cpu-dma-latency 0 (Linux, root) keeps them awake for the run."
      : r.cpuDmaLatencyUs === 0
      ? "idle cores polled instead of sleeping: /dev/cpu_dma_latency was held at 0 for the run."
      : `idle cores stayed in states that wake within ${r.cpuDmaLatencyUs} µs: /dev/cpu_dma_latency was held ` +
        "for the run.",
    ...levelCaveats(r.levels),
  ].join("\n");
}
