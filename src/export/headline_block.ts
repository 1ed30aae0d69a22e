/**
 * The answer first: a short block (at most 12 lines) that opens the console output — how many requests succeeded,
 * the headline figures (TTFT, ITL and latency p50/p99, output and request throughput) and a ✓ or ✗ per verdict —
 * rendered from the result view, so it shows exactly the numbers of the tables below it.
 */
import type { HeadlineFigure, ResultView } from "../metrics/result_view.ts";
import { formatGrouped } from "./number_format.ts";

export interface HeadlineOptions {
  /** What ran, in a few words (`chat · m · concurrency 4`). */
  readonly what?: string;
  readonly durationSec?: number;
  readonly cancelled?: boolean;
  /** Colour ✓ and ✗ (a terminal). @default false */
  readonly ansi?: boolean;
}

const LABEL_WIDTH = 11;

/** Units as people write them in a line of figures. */
const UNITS: Readonly<Record<string, string>> = { "tokens/sec": "tok/s", "requests/sec": "req/s" };

function figure(f: HeadlineFigure): string {
  const digits = Math.abs(f.value) >= 1000 ? 0 : Math.abs(f.value) >= 100 ? 1 : 2;
  const text = `${f.stat === "avg" ? "" : `${f.stat} `}${formatGrouped(f.value, digits)} ${UNITS[f.unit] ?? f.unit}`;
  return text.padEnd(18);
}

/** The headline block's lines (no trailing newline). */
export function renderHeadline(view: ResultView, o: HeadlineOptions = {}): string {
  const { ok, errors } = view.requests;
  const total = ok + errors;
  const share = errors > 0 && total > 0 ? ` (${formatGrouped((100 * errors) / total, 1)} %)` : "";
  const duration = o.durationSec === undefined ? "" : ` in ${formatGrouped(o.durationSec, 2)} s`;
  const lines = [
    `infermeter | ${ok} ok, ${errors} failed${share}${duration}${o.cancelled ? " (cancelled early)" : ""}` +
    (o.what === undefined ? "" : ` · ${o.what}`),
  ];
  const byTag = new Map<string, HeadlineFigure[]>();
  for (const f of view.headline) byTag.set(f.tag, [...(byTag.get(f.tag) ?? []), f]);
  const throughput: string[] = [];
  for (const [tag, figures] of byTag) {
    if (tag === "output_token_throughput" || tag === "request_throughput") {
      throughput.push(...figures.map(figure));
      continue;
    }
    lines.push(`  ${figures[0].label.padEnd(LABEL_WIDTH)} ${figures.map(figure).join("").trimEnd()}`);
  }
  if (throughput.length > 0) lines.push(`  ${"Throughput".padEnd(LABEL_WIDTH)} ${throughput.join("").trimEnd()}`);
  const mark = (ok: boolean) => ok ? (o.ansi ? "\x1b[32m✓\x1b[0m" : "✓") : (o.ansi ? "\x1b[31m✗\x1b[0m" : "✗");
  const room = 12 - lines.length;
  const verdicts = view.verdicts.length > room ? view.verdicts.filter((v) => !v.ok) : view.verdicts;
  for (const v of verdicts.slice(0, room)) lines.push(`  ${mark(v.ok)} ${v.label}: ${v.detail}`);
  return lines.join("\n");
}
