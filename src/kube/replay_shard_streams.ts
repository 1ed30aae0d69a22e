/**
 * Shards' record streams (shard_stream.ts lines) replayed onto this process's record bus, as if its own engine had
 * produced them: every `*At` time moves from the shard's clock origin (its `hello`) to this process's, phases start
 * at the earliest shard's start, and the outcome is the union of the shards'. The metrics are then computed once
 * over the union of raw records by the usual sinks — never by averaging per-shard percentiles.
 */
import { decodeShardMessage, readLines } from "../run/shard_stream.ts";
import type { Phase, RequestRecord } from "../records/request_record.ts";
import type { ShardOutcome } from "../engine/run_shard.ts";
import type { BenchmarkOutcome } from "../engine/run_benchmark.ts";

export interface ShardStart {
  readonly index: number;
  readonly startEpochMs: number;
  /** How late after the agreed start the shard began, on its own clock. */
  readonly latenessMs: number;
}

export interface ReplayResult extends BenchmarkOutcome {
  readonly starts: readonly ShardStart[];
  /** Shards whose stream ended without `done` (with why), by index. */
  readonly failures: ReadonlyMap<number, string>;
  readonly records: number;
}

/** A record with every time moved by `shiftMs`. */
export function shiftRecord(r: RequestRecord, shiftMs: number): RequestRecord {
  if (shiftMs === 0) return r;
  const out: Record<string, unknown> = { ...r };
  for (const [key, value] of Object.entries(r)) {
    if (key.endsWith("At") && typeof value === "number") out[key] = value + shiftMs;
  }
  out.responseTimes = r.responseTimes.map((t) => t + shiftMs);
  return out as unknown as RequestRecord;
}

export async function replayShardStreams(
  streams: ReadonlyMap<number, Uint8Array>,
  o: {
    readonly timeOriginMs: number;
    readonly onRecord: (r: RequestRecord) => void;
    readonly onPhaseStart?: (phase: Phase, at: number) => void;
  },
): Promise<ReplayResult> {
  const starts: ShardStart[] = [];
  const failures = new Map<number, string>();
  const shards: ShardOutcome[] = [];
  const phaseStarts = new Map<Phase, number>();
  const records: RequestRecord[] = [];
  for (const [index, bytes] of [...streams].sort((a, b) => a[0] - b[0])) {
    let shift: number | undefined;
    let done = false;
    let lineNo = 0;
    for await (const line of readLines(new Blob([bytes as BlobPart]).stream())) {
      lineNo++;
      if (line.trim() === "") continue;
      const m = decodeShardMessage(line, lineNo);
      if (m.t === "hello") {
        if (m.index !== index) throw new Error(`records of index ${index} say they are index ${m.index}`);
        shift = m.timeOriginMs - o.timeOriginMs;
        continue;
      }
      if (shift === undefined) throw new Error(`index ${index}: stream does not begin with hello`);
      switch (m.t) {
        case "started":
          starts.push({ index, startEpochMs: m.startEpochMs, latenessMs: m.latenessMs });
          break;
        case "phase": {
          const at = m.at + shift;
          const seen = phaseStarts.get(m.phase);
          if (seen === undefined || at < seen) phaseStarts.set(m.phase, at);
          break;
        }
        case "r":
          records.push(shiftRecord(m.r, shift));
          break;
        case "done":
          done = true;
          shards.push(shiftOutcome(m.outcome, shift));
          break;
        case "failed":
          failures.set(index, m.message);
          break;
      }
    }
    if (!done && !failures.has(index)) failures.set(index, "its record stream ended early");
  }
  for (const [phase, at] of [...phaseStarts].sort((a, b) => a[1] - b[1])) o.onPhaseStart?.(phase, at);
  // In completion order across shards, as one process would have delivered them.
  records.sort((a, b) => a.endAt - b.endAt);
  for (const r of records) o.onRecord(r);
  const profiling = shards.map((s) => s.profiling).filter((p) => p !== undefined);
  return {
    shards,
    starts,
    failures,
    records: records.length,
    profilingStartedAt: profiling.length ? Math.min(...profiling.map((p) => p.startedAt)) : undefined,
    profilingEndedAt: profiling.length ? Math.max(...profiling.map((p) => p.endedAt)) : undefined,
  };
}

function shiftOutcome(outcome: ShardOutcome, shift: number): ShardOutcome {
  const out: Record<string, unknown> = {};
  for (const [phase, p] of Object.entries(outcome)) {
    if (p !== undefined) out[phase] = { ...p, startedAt: p.startedAt + shift, endedAt: p.endedAt + shift };
  }
  return out as ShardOutcome;
}
