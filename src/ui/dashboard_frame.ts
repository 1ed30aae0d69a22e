/**
 * The live dashboard as text, a pure function of a snapshot: progress, requests in flight, throughput, TTFT / ITL /
 * latency percentiles, errors and the client's own CPU. With `ansi` (a terminal) it is coloured and the caller
 * redraws it in place with {@link redrawPrefix}; without (a pipe, a log file) it has no escape codes at all.
 */
import type { DashboardSnapshot, LivePercentiles } from "./dashboard_snapshot.ts";

export interface DashboardOptions {
  /** Terminal columns. @default 80 */
  readonly width?: number;
  /** Colour and bold through ANSI escapes (terminals only). @default false */
  readonly ansi?: boolean;
  /** Error kinds listed. @default 3 */
  readonly maxErrors?: number;
}

const ESC = "\x1b[";

function clock(sec: number): string {
  const s = Math.max(0, Math.floor(sec));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, "0");
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

function num(x: number, digits = 1): string {
  return x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** The share of the phase done (0–1), by requests when count-bounded, else by time; undefined when unbounded. */
export function progressFraction(s: DashboardSnapshot): number | undefined {
  if (s.totalRequests !== undefined && s.totalRequests > 0) return Math.min(1, s.completed / s.totalRequests);
  if (s.durationSec !== undefined && s.durationSec > 0) return Math.min(1, s.elapsedSec / s.durationSec);
  return undefined;
}

function bar(fraction: number, width: number): string {
  const filled = Math.round(fraction * width);
  return "█".repeat(filled) + "░".repeat(width - filled);
}

function percentilesRow(name: string, p: LivePercentiles | undefined): string {
  const cell = (x: number | undefined) => (x === undefined ? "-" : num(x, 2)).padStart(10);
  return `  ${name.padEnd(16)}${cell(p?.p50)}${cell(p?.p90)}${cell(p?.p99)}`;
}

/** The dashboard's lines, joined with newlines (no trailing newline). */
export function renderDashboard(s: DashboardSnapshot, options: DashboardOptions = {}): string {
  const width = Math.max(40, options.width ?? 80);
  const ansi = options.ansi ?? false;
  const bold = (t: string) => (ansi ? `${ESC}1m${t}${ESC}0m` : t);
  const red = (t: string) => (ansi ? `${ESC}31m${t}${ESC}0m` : t);
  const dim = (t: string) => (ansi ? `${ESC}2m${t}${ESC}0m` : t);
  const lines: string[] = [];

  const fraction = progressFraction(s);
  const of = s.totalRequests !== undefined
    ? `${s.completed}/${s.totalRequests} requests`
    : s.durationSec !== undefined
    ? `${clock(s.elapsedSec)}/${clock(s.durationSec)}`
    : `${s.completed} requests`;
  const head = `${bold(`infermeter · ${s.phase}`)}  ${clock(s.elapsedSec)}  ${of}`;
  lines.push(head);
  if (fraction !== undefined) {
    const pct = ` ${String(Math.floor(fraction * 100)).padStart(3)}%`;
    lines.push(`  ${bar(fraction, Math.min(50, width - 2 - pct.length))}${pct}`);
  }
  const limit = s.concurrency === undefined ? "" : ` of ${s.concurrency}`;
  lines.push(
    `  in flight ${s.inFlight}${limit}   ${num(s.requestsPerSec)} req/s   ${num(s.outputTokensPerSec)} tokens/s`,
  );
  lines.push("");
  lines.push(dim(`  ${"ms".padEnd(16)}${"p50".padStart(10)}${"p90".padStart(10)}${"p99".padStart(10)}`));
  lines.push(percentilesRow("TTFT", s.ttftMs));
  lines.push(percentilesRow("ITL", s.itlMs));
  lines.push(percentilesRow("Request latency", s.latencyMs));
  lines.push("");
  const errorHead = `  errors ${s.errorCount}${
    s.completed > 0 ? ` (${num((s.errorCount / s.completed) * 100)}%)` : ""
  }`;
  lines.push(s.errorCount > 0 ? red(errorHead) : errorHead);
  for (const e of s.errors.slice(0, options.maxErrors ?? 3)) {
    const text = `    ${String(e.count).padStart(5)} × ${e.message}`;
    lines.push(text.length > width ? `${text.slice(0, width - 1)}…` : text);
  }
  const cpu = s.clientCpuPercent === undefined ? "-" : `${s.clientCpuPercent.toFixed(0)}% of one core`;
  lines.push(dim(`  client CPU ${cpu}`));
  return lines.join("\n");
}

/**
 * The escapes that move a terminal's cursor back over the previous frame (`lines` lines) and clear it, so the next
 * frame draws in place; empty for the first frame.
 */
export function redrawPrefix(previousLines: number): string {
  return previousLines <= 0 ? "" : `${ESC}${previousLines}F${ESC}J`;
}

/** One line for a pipe or log file, written every few seconds instead of the frame. */
export function renderDashboardLine(s: DashboardSnapshot): string {
  const fraction = progressFraction(s);
  const pct = fraction === undefined ? "" : ` ${Math.floor(fraction * 100)}%`;
  const ttft = s.ttftMs === undefined ? "" : ` TTFT p50 ${num(s.ttftMs.p50, 2)} ms p99 ${num(s.ttftMs.p99, 2)} ms`;
  const itl = s.itlMs === undefined ? "" : ` ITL p50 ${num(s.itlMs.p50, 2)} ms`;
  const cpu = s.clientCpuPercent === undefined ? "" : ` client CPU ${s.clientCpuPercent.toFixed(0)}%`;
  return `${s.phase} ${clock(s.elapsedSec)}${pct} done ${s.completed} in flight ${s.inFlight} ` +
    `${num(s.requestsPerSec)} req/s ${num(s.outputTokensPerSec)} tokens/s${ttft}${itl} errors ${s.errorCount}${cpu}`;
}
