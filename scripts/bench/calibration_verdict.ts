/**
 * The timing-accuracy half of the bench verdict: `infermeter calibrate`'s report judged against the product's
 * targets (client-added error of TTFT, ITL and request latency: ≤ 1 ms p50 and ≤ 10 ms p99 at 256 streams,
 * ≤ 0.1 ms p50 at 16 streams), so one `deno task bench` answers every throughput and accuracy target at once.
 *
 * A level fails when it did not hold its schedule (fewer than 90 % of the scheduled events/s arrived), since it
 * then measured a lighter load than the target is stated for.
 *
 * Errors are signed (ITL's is the difference of two mean gaps, and a clock offset within its uncertainty is
 * left in), so a median is judged by its magnitude and a tail by the larger of |p1| and |p99|.
 */
import { type CalibrationReport, type LevelReport, SCHEDULE_HELD_SHARE } from "../../src/calibrate/level_report.ts";
import type { Stats } from "../../src/metrics/stats.ts";
import type { VerdictLine } from "./bench_report.ts";

interface AccuracyTarget {
  readonly streams: number;
  readonly tail: "p50" | "p99";
  readonly maxMs: number;
}

export const ACCURACY_TARGETS: readonly AccuracyTarget[] = [
  { streams: 256, tail: "p50", maxMs: 1 },
  { streams: 256, tail: "p99", maxMs: 10 },
  { streams: 16, tail: "p50", maxMs: 0.1 },
];

const STATS: readonly { readonly name: string; readonly of: (l: LevelReport) => Stats | undefined }[] = [
  { name: "TTFT", of: (l) => l.ttftErrorMs },
  { name: "ITL", of: (l) => l.itlErrorMs },
  { name: "latency", of: (l) => l.requestLatencyErrorMs },
];

/** |p50|, or max(|p1|, |p99|): how far from zero the middle or the tail of a signed error reaches. */
export function errorMagnitude(s: Stats, tail: "p50" | "p99"): number {
  return tail === "p50" ? Math.abs(s.p50) : Math.max(Math.abs(s.p1), Math.abs(s.p99));
}

export function calibrationVerdict(report: CalibrationReport): VerdictLine[] {
  return ACCURACY_TARGETS.map((t) => {
    const target = `${t.streams} streams: error ${t.tail} ≤ ${t.maxMs} ms`;
    const level = report.levels.find((l) => l.streams === t.streams);
    if (!level) return { target, detail: "not measured (calibrate ran no such level)" };
    const parts: string[] = [];
    let worst = 0;
    let missing = false;
    for (const s of STATS) {
      const stats = s.of(level);
      if (!stats || stats.count === 0) {
        missing = true;
        parts.push(`${s.name} -`);
        continue;
      }
      const v = errorMagnitude(stats, t.tail);
      worst = Math.max(worst, v);
      parts.push(`${s.name} ${v.toFixed(3)}`);
    }
    const errors = level.errors > 0 ? `; ${level.errors} failed requests` : "";
    // A level that ran lighter than its schedule did not measure the load the target is stated for.
    const held = !(level.eventsPerSecond < SCHEDULE_HELD_SHARE * level.scheduledEventsPerSecond);
    const schedule = held
      ? ""
      : `; below the ${Math.round(level.scheduledEventsPerSecond).toLocaleString("en-US")} events/s scheduled`;
    const pass = !missing && level.errors === 0 && held && worst <= t.maxMs;
    return {
      target,
      value: worst,
      pass,
      detail: `${parts.join(", ")} ms → ${pass ? "PASS" : "FAIL"} (${
        Math.round(level.eventsPerSecond).toLocaleString("en-US")
      } events/s over ${report.durationSec} s${schedule}${errors})`,
    };
  });
}

/** The report when `calibrate --json` printed one (an object with levels), else undefined. */
export function asCalibrationReport(output: unknown): CalibrationReport | undefined {
  if (typeof output !== "object" || output === null) return undefined;
  const levels = (output as { levels?: unknown }).levels;
  return Array.isArray(levels) ? output as CalibrationReport : undefined;
}
