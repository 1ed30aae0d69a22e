/**
 * `profile_export_aiperf_timeslices.json` / `.csv` (`--slice-duration`, AIPerf's layout):
 * - JSON: `{"timeslices": [{"start_ns", "end_ns", "is_complete", <tag>: <metric block>, …}, …], "input_config"}`,
 *   slices in time order (position is the index), metric blocks as in the summary JSON;
 * - CSV (tidy): `Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value`, one row per slice, metric (by tag order) and
 *   statistic that has a value (aggregate metrics as `avg`).
 */
import type { RunSummary } from "../metrics/run_summary.ts";
import { STAT_KEYS } from "../metrics/confidence_aggregate.ts";
import { epochNsDigits } from "./epoch_ns.ts";
import { type JsonObject, metricJson } from "./json_export.ts";

export interface TimesliceData {
  /** Run-clock ms. */
  readonly startAt: number;
  readonly endAt: number;
  readonly isComplete: boolean;
  readonly summary: RunSummary;
}

/** The JSON document as text (epoch ns written as integers). */
export function renderTimeslicesJson(
  slices: readonly TimesliceData[],
  timeOriginMs: number,
  inputConfig: JsonObject,
): string {
  const NS = "\u0000ns:";
  const doc = {
    timeslices: slices.map((s) => {
      const out: Record<string, unknown> = {
        start_ns: NS + epochNsDigits(timeOriginMs, s.startAt),
        end_ns: NS + epochNsDigits(timeOriginMs, s.endAt),
        is_complete: s.isComplete,
      };
      for (const m of s.summary.metrics) out[m.tag] = metricJson(m);
      return out;
    }),
    input_config: inputConfig,
  };
  // Epoch nanoseconds exceed 2^53: written as bare integer digits, not through a float.
  return JSON.stringify(doc, null, 2).replace(/"\\u0000ns:(\d+)"/g, "$1");
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The tidy CSV text. */
export function renderTimeslicesCsv(slices: readonly TimesliceData[], timeOriginMs: number): string {
  const lines = ["Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value"];
  slices.forEach((s, i) => {
    const start = epochNsDigits(timeOriginMs, s.startAt);
    const end = epochNsDigits(timeOriginMs, s.endAt);
    for (const m of [...s.summary.metrics].sort((a, b) => a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0)) {
      for (const stat of STAT_KEYS) {
        const value = m.stats !== undefined ? m.stats[stat] : stat === "avg" ? m.value : undefined;
        if (value === undefined || !Number.isFinite(value)) continue;
        lines.push([String(i), start, end, csvField(m.header), csvField(m.unit), stat, String(value)].join(","));
      }
    }
  });
  return lines.join("\r\n") + "\r\n";
}
