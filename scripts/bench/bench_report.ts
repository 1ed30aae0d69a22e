/**
 * The printed side of `deno task bench`: one table per scenario (every figure with its ratio against ours,
 * measured in the same run) and the verdict against the product's targets.
 */
import type { ClientResult, ScenarioResult } from "./bench_types.ts";

/** The product's throughput and accuracy targets, on one client core. */
export const TARGETS = {
  eventsPerSec: 300_000,
  requestsPerSec: 10_000,
  timesAiperf: 3,
} as const;

/** serve-sim above this share of its core is (close to) the bottleneck of the measurement. */
export const SERVER_BOUND_PERCENT = 90;

/** Other processes above this share of the client's or the server's core make a measurement suspect. */
export const NOISY_PERCENT = 10;

/** "noisy: …" when processes outside the bench took a share of the measured cores. */
export function noiseNote(c: ClientResult): string | undefined {
  const parts: string[] = [];
  if ((c.otherOnClientCorePercent ?? 0) >= NOISY_PERCENT) {
    parts.push(`${Math.round(c.otherOnClientCorePercent!)}% of the client core`);
  }
  if ((c.otherOnServerCorePercent ?? 0) >= NOISY_PERCENT) {
    parts.push(`${Math.round(c.otherOnServerCorePercent!)}% of the server core`);
  }
  return parts.length === 0 ? undefined : `NOISY: other processes took ${parts.join(" and ")}`;
}

function int(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

function ratio(value: number | undefined, ours: number | undefined): string {
  if (value === undefined || ours === undefined || ours === 0) return "";
  const r = value / ours;
  return ` (${r >= 10 ? r.toFixed(0) : r >= 1 ? r.toFixed(1) : r.toFixed(2)}×)`;
}

function cell(value: number | undefined, ours: number | undefined, isOurs: boolean, digits = 0): string {
  if (value === undefined) return "-";
  const text = digits === 0 ? int(value) : value.toFixed(digits);
  return isOurs ? text : text + ratio(value, ours);
}

/** The scenario's headline figure for a client: events/s or requests/s. */
export function primaryRate(kind: ScenarioResult["scenario"]["kind"], r: ClientResult | undefined): number | undefined {
  if (r?.status !== "ok") return undefined;
  return kind === "events" ? r.eventsPerSec : r.requestsPerSec;
}

export function renderScenarioTable(result: ScenarioResult): string {
  const s = result.scenario;
  const ours = result.clients.find((c) => c.client === "ours" && c.status === "ok");
  const perEvent = s.kind === "events";
  const header = [
    "client",
    "req/s",
    "events/s",
    perEvent ? "CPU µs/event" : "CPU µs/req",
    "peak RSS MB",
    "client CPU",
    "server CPU",
    "notes",
  ];
  const rows = result.clients.map((c) => {
    if (c.status !== "ok") return [c.client, "-", "-", "-", "-", "-", "-", `${c.status}: ${firstLine(c.message)}`];
    const isOurs = c.client === "ours";
    const cpu = perEvent ? c.cpuUsPerEvent : c.cpuUsPerRequest;
    const oursCpu = perEvent ? ours?.cpuUsPerEvent : ours?.cpuUsPerRequest;
    const notes: string[] = [];
    if (c.errors) notes.push(`${c.errors} errors`);
    if ((c.serverCpuPercent ?? 0) >= SERVER_BOUND_PERCENT) notes.push("server-bound");
    const noise = noiseNote(c);
    if (noise) notes.push(noise);
    if (c.client === "aiperf" && c.processes) notes.push(`${c.processes} processes`);
    if (c.client === "wrk") notes.push("no SSE parsing");
    if (c.message && c.errors === 0) notes.push(firstLine(c.message));
    return [
      c.client,
      cell(c.requestsPerSec, ours?.requestsPerSec, isOurs),
      cell(c.eventsPerSec, ours?.eventsPerSec, isOurs),
      cell(cpu, oursCpu, isOurs, 2),
      cell(c.peakRssMb, ours?.peakRssMb, isOurs),
      c.windowCpuSec === undefined || !c.windowSec ? "-" : `${Math.round(100 * c.windowCpuSec / c.windowSec)}%`,
      c.serverCpuPercent === undefined ? "-" : `${Math.round(c.serverCpuPercent)}%`,
      notes.join("; "),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join("  ").trimEnd();
  const shape = result.response && s.streaming
    ? `; ${result.response.contentEvents} content events (${result.response.sseEvents} SSE events) per response`
    : "";
  return [
    `== ${s.id}: ${s.title}${shape}`,
    line(header),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map(line),
  ].join("\n");
}

function firstLine(text: string | undefined): string {
  return (text ?? "").split("\n")[0].slice(0, 100);
}

export interface VerdictLine {
  readonly target: string;
  readonly value?: number;
  readonly pass?: boolean;
  readonly detail: string;
}

/** Judges ours against the targets: best events scenario, best 1-token requests scenario, min ratio to AIPerf. */
export function verdict(results: readonly ScenarioResult[]): VerdictLine[] {
  const lines: VerdictLine[] = [];
  const best = (kind: "events" | "requests") => {
    let top: { id: string; rate: number; server?: number } | undefined;
    for (const r of results) {
      if (r.scenario.kind !== kind) continue;
      const ours = r.clients.find((c) => c.client === "ours");
      const rate = primaryRate(kind, ours);
      if (rate !== undefined && (top === undefined || rate > top.rate)) {
        top = { id: r.scenario.id, rate, server: ours?.serverCpuPercent };
      }
    }
    return top;
  };
  const judge = (kind: "events" | "requests", target: number, label: string) => {
    const top = best(kind);
    if (!top) {
      lines.push({ target: label, detail: "not measured (no such scenario ran, or ours failed)" });
      return;
    }
    const pass = top.rate >= target;
    const bound = (top.server ?? 0) >= SERVER_BOUND_PERCENT
      ? `; serve-sim used ${Math.round(top.server!)}% of its core (server-bound)`
      : "";
    // The CPU cost per unit does not depend on how busy the machine or the server was: 1e6 / µs is the rate one
    // fully used client core would sustain.
    const cost = cheapest(results, kind);
    const capacity = cost === undefined
      ? ""
      : `; CPU ${cost.toFixed(2)} µs/${kind === "events" ? "event" : "request"} ⇒ ~${int(1e6 / cost)}/s per core`;
    lines.push({
      target: label,
      value: top.rate,
      pass,
      detail: `ours ${int(top.rate)} in ${top.id} → ${pass ? "PASS" : "FAIL"} (${
        (top.rate / target).toFixed(2)
      }× target${bound}${capacity})`,
    });
  };
  judge("events", TARGETS.eventsPerSec, `parsed SSE events/s ≥ ${int(TARGETS.eventsPerSec)}`);
  judge("requests", TARGETS.requestsPerSec, `requests/s (1-token) ≥ ${int(TARGETS.requestsPerSec)}`);

  const ratios: string[] = [];
  let min: number | undefined;
  let minCpu: number | undefined;
  for (const r of results) {
    const kind = r.scenario.kind;
    const oursResult = r.clients.find((c) => c.client === "ours");
    const aiResult = r.clients.find((c) => c.client === "aiperf");
    const ours = primaryRate(kind, oursResult);
    const ai = primaryRate(kind, aiResult);
    if (ours === undefined || ai === undefined || ai === 0) continue;
    const x = ours / ai;
    min = min === undefined ? x : Math.min(min, x);
    ratios.push(`${r.scenario.id} ${x.toFixed(1)}×`);
    const oc = unitCpu(kind, oursResult);
    const ac = unitCpu(kind, aiResult);
    if (oc !== undefined && ac !== undefined && oc > 0) minCpu = Math.min(minCpu ?? Infinity, ac / oc);
  }
  const aiLabel = `≥ ${TARGETS.timesAiperf}× AIPerf (same scenario, same run)`;
  if (min === undefined) lines.push({ target: aiLabel, detail: "not measured (AIPerf skipped or failed)" });
  else {
    const pass = min >= TARGETS.timesAiperf;
    lines.push({
      target: aiLabel,
      value: min,
      pass,
      detail: `${ratios.join(", ")} → ${pass ? "PASS" : "FAIL"} (min ${min.toFixed(1)}×` +
        (minCpu === undefined ? ")" : `; AIPerf spends ≥ ${minCpu.toFixed(0)}× ours in CPU per event/request)`),
    });
  }
  const noisy = results.flatMap((r) =>
    r.clients.filter((c) => c.status === "ok" && noiseNote(c) !== undefined).map((c) => `${r.scenario.id}/${c.client}`)
  );
  if (noisy.length > 0) {
    lines.push({
      target: "quiet machine",
      pass: false,
      detail: `other processes used ≥ ${NOISY_PERCENT}% of a measured core in ${noisy.join(", ")}: ` +
        "rerun on an idle machine before trusting these figures",
    });
  }
  return lines;
}

function unitCpu(kind: ScenarioResult["scenario"]["kind"], r: ClientResult | undefined): number | undefined {
  if (r?.status !== "ok") return undefined;
  return kind === "events" ? r.cpuUsPerEvent : r.cpuUsPerRequest;
}

/** Ours' lowest CPU µs per event (or request) over the scenarios of `kind`. */
function cheapest(results: readonly ScenarioResult[], kind: "events" | "requests"): number | undefined {
  let low: number | undefined;
  for (const r of results) {
    if (r.scenario.kind !== kind) continue;
    const c = unitCpu(kind, r.clients.find((x) => x.client === "ours"));
    if (c !== undefined && c > 0) low = Math.min(low ?? Infinity, c);
  }
  return low;
}

export function renderVerdict(lines: readonly VerdictLine[]): string {
  const w = Math.max(...lines.map((l) => l.target.length));
  return ["Verdict (one client core):", ...lines.map((l) => `  ${l.target.padEnd(w)}  ${l.detail}`)].join("\n");
}
