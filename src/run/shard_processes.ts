/**
 * Engine shards as child processes (`infermeter shard`), for loads one process cannot hold: every connection is a
 * file descriptor, and a process may open at most its limit (often 20,000 or less, not raisable without privileges).
 * Each child builds the same run from the same options and seed and takes its share; once every child is ready, one
 * start time is sent to all, and every record they stream back is decoded (exact codec) and handed to `onRecord` —
 * the same record bus and accumulators as in-process shards, so the merge is exact.
 */
import type { Phase, RequestRecord } from "../records/request_record.ts";
import type { BenchmarkOutcome } from "../engine/run_benchmark.ts";
import type { TransportActivity } from "../transport/http_client.ts";
import { clientCommand, type SelfCommand } from "../runtime/self_command.ts";
import { processLink } from "../engine/shard_lines.ts";
import { coordinateShards } from "../engine/coordinate_shards.ts";

export interface ShardProcessesOptions {
  readonly count: number;
  /** The profile's arguments; `--random-seed` and (when discovered) `--model` are appended. */
  readonly argv: readonly string[];
  readonly seed: number;
  /** Model names the run discovered, when `--model` was not given. */
  readonly discoveredModels?: readonly string[];
  /** CPUs to pin the children to, one each in turn (Linux); none: the scheduler places them. */
  readonly cores?: readonly number[];
  readonly signal: AbortSignal;
  readonly onRecord: (record: RequestRecord) => void;
  readonly onPhaseStart?: (phase: Phase, at: number) => void;
  readonly onActivity?: (read: () => readonly TransportActivity[]) => void;
  /** How long after the last child is ready they all start. @default 100 */
  readonly startDelayMs?: number;
  readonly command?: SelfCommand;
}

export async function runShardProcesses(o: ShardProcessesOptions): Promise<BenchmarkOutcome> {
  const command = o.command ?? clientCommand;
  const tail = [
    "--random-seed",
    String(o.seed),
    ...(o.discoveredModels ?? []).flatMap((m) => ["--model", m]),
    // One set of start-up notices (tokenizer, dataset) is the parent's; a child says only what goes wrong.
    "--log-level",
    "WARNING",
  ];
  const children = Array.from({ length: o.count }, (_, i) => {
    const args = [
      ...command.args,
      "shard",
      "--index",
      String(i),
      "--of",
      String(o.count),
      "--start-at",
      "stdin",
      "--clock-origin-ms",
      String(performance.timeOrigin),
      ...(o.cores?.length ? ["--core", String(o.cores[i % o.cores.length])] : []),
      ...o.argv,
      ...tail,
    ];
    return new Deno.Command(command.execPath, { args, stdin: "piped", stdout: "piped", stderr: "inherit" }).spawn();
  });
  const merged = await coordinateShards({
    links: children.map((c) => processLink(c)),
    timeOriginMs: performance.timeOrigin,
    signal: o.signal,
    onRecord: o.onRecord,
    onPhaseStart: o.onPhaseStart,
    onActivity: o.onActivity,
    sharedStartDelayMs: o.startDelayMs ?? 100,
    describe: (i) => `engine shard process ${i}`,
  });
  // From the shared start (the earliest shard's) to the last shard's end: the time the CPU figures cover.
  const starts = merged.reports.flatMap((r) => r.startEpochMs === undefined ? [] : [r.startEpochMs]);
  const wallMs = starts.length > 0 ? performance.timeOrigin + performance.now() - Math.min(...starts) : 0;
  const used = merged.reports.reduce((a, r) => a + (r.cpuMs ?? 0), 0);
  return {
    shards: merged.outcomes,
    shardCount: o.count,
    lostShards: merged.lost,
    pinning: merged.pinning,
    // The children report user and system time together.
    cpu: {
      userMs: used,
      systemMs: 0,
      wallMs,
      percentOfCore: wallMs > 0 ? used / wallMs * 100 : 0,
      percentPerShard: wallMs > 0 ? used / wallMs * 100 / o.count : 0,
    },
    processes: merged.reports.map((r, i) => ({
      pid: r.pid ?? children[i].pid,
      peakRssBytes: r.peakRssBytes ?? 0,
      startLatenessMs: r.latenessMs,
    })),
    profilingStartedAt: merged.profilingStartedAt,
    profilingEndedAt: merged.profilingEndedAt,
  };
}
