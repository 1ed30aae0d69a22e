/** What `calibrate` measures per stream level, and the caveats a level's figures need. */
import type { Stats } from "../metrics/stats.ts";
import { CPU_WARN_PERCENT } from "../runtime/cpu_time.ts";

export interface LevelReport {
  readonly streams: number;
  readonly requests: number;
  readonly events: number;
  readonly eventsPerSecond: number;
  /** Client-added error of each statistic, in ms. */
  readonly ttftErrorMs: Stats | undefined;
  readonly itlErrorMs: Stats | undefined;
  readonly requestLatencyErrorMs: Stats | undefined;
  /** Server arrival − client start stamp of each request. */
  readonly sendLagMs: Stats | undefined;
  readonly eventErrorMs: Stats | undefined;
  /** The same send lag and event error for a bare socket client at this concurrency: what no client here can beat. */
  readonly floorSendLagMs: Stats | undefined;
  readonly floorEventErrorMs: Stats | undefined;
  /** The floor client's error on the first token of each response: what the TTFT error compares with. */
  readonly floorTtftErrorMs: Stats | undefined;
  /** The floor client's error on the last token of each response: what the request-latency error compares with. */
  readonly floorLatencyErrorMs: Stats | undefined;
  readonly clientCpuPercentOfCore?: number;
  /** The profile run's engine shards and where they ran (its JSON export's infermeter.engine_layout). */
  readonly engineLayout?: string;
  /** The profile run's own verdict: an engine thread above `CPU_WARN_PERCENT` of a core, where timestamps lag. */
  readonly clientCpuOverThreshold?: boolean;
  /**
   * Events/s the server's schedule gives at this concurrency: streams × tokens ÷ (TTFT + (tokens − 1) × ITL).
   * Well below it, the reference server (or the client) could not keep up, and the level ran lighter than asked.
   */
  readonly scheduledEventsPerSecond: number;
  /** Requests the profile run reported as failed (should be 0). */
  readonly errors: number;
}

export interface CalibrationReport {
  readonly ttftMs: number;
  readonly itlMs: number;
  readonly tokensPerRequest: number;
  readonly durationSec: number;
  /** Server clock minus client clock, ms, and the half round trip bounding its uncertainty. */
  readonly clockOffsetMs: number;
  readonly clockUncertaintyMs: number;
  readonly pinned: boolean;
  /** Where the reference server processes and the client ran. */
  readonly layout?: string;
  /** The CPU wake-up latency limit held through the levels, µs; null when the machine's own setting applied. */
  readonly cpuDmaLatencyUs: number | null;
  /** Whether each level started with one warmup request per stream. */
  readonly warmup: boolean;
  readonly levels: readonly LevelReport[];
}

/** Events/s a closed loop of `streams` gets from the server's schedule (request round trips left out). */
export function scheduledEventsPerSecond(
  opts: { readonly ttft: number; readonly itl: number; readonly tokens: number },
  streams: number,
): number {
  return streams * opts.tokens / ((opts.ttft + (opts.tokens - 1) * opts.itl) / 1000);
}

/** A level's load below this share of its schedule is reported as not held. */
export const SCHEDULE_HELD_SHARE = 0.9;

/** Notes on levels whose figures need a caveat: the client over its CPU threshold, the schedule not held. */
export function levelCaveats(levels: readonly LevelReport[]): string[] {
  const notes: string[] = [];
  for (const l of levels) {
    if (l.clientCpuOverThreshold) {
      notes.push(
        `warning: at ${l.streams} streams the client's engine went over ~${CPU_WARN_PERCENT}% of a core per thread ` +
          `(${l.clientCpuPercentOfCore?.toFixed(0)}% in all), where its timestamps start to lag: that level ` +
          "measures an overloaded client (add --workers, or lower the load).",
      );
    }
    if (l.eventsPerSecond < SCHEDULE_HELD_SHARE * l.scheduledEventsPerSecond) {
      notes.push(
        `warning: at ${l.streams} streams ${Math.round(l.eventsPerSecond).toLocaleString("en-US")} events/s ` +
          `arrived where the schedule gives ${Math.round(l.scheduledEventsPerSecond).toLocaleString("en-US")}: ` +
          "the reference server or the client could not keep up, so the level ran lighter than asked (errors are " +
          "still measured against the server's actual write times).",
      );
    }
  }
  return notes;
}
