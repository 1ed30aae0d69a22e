/**
 * Engine shards as child processes (`infermeter shard`), for loads one process cannot hold: every connection is a
 * file descriptor, and a process may open at most its limit (often 20,000 or less, not raisable without privileges).
 * Each child builds the same run from the same options and seed and takes its share; once every child is ready, one
 * start time is sent to all, and every record they stream back is decoded (exact codec) and handed to `onRecord` —
 * the same record bus and accumulators as in-process shards, so the merge is exact.
 */
import type { Phase, RequestRecord } from "../records/request_record.ts";
import type { BenchmarkOutcome, ShardProcessInfo } from "../engine/run_benchmark.ts";
import type { ShardOutcome } from "../engine/run_shard.ts";
import type { TransportActivity } from "../transport/http_client.ts";
import { clientCommand, type SelfCommand } from "../runtime/self_command.ts";
import { decodeShardMessage, encodeShardMessage, readLines, type ToShardProcess } from "./shard_stream.ts";

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
  const writers = children.map((c) => c.stdin.getWriter());
  const encoder = new TextEncoder();
  const tell = (i: number, m: ToShardProcess) =>
    writers[i].write(encoder.encode(encodeShardMessage(m))).catch(() => {});
  const activities: (readonly TransportActivity[])[] = children.map(() => []);
  o.onActivity?.(() => activities.flat());

  let ready = 0;
  let allReady!: () => void;
  const readyAll = new Promise<void>((r) => allReady = r);
  const started = new Set<Phase>();
  const infos: ShardProcessInfo[] = children.map((c) => ({ pid: c.pid, peakRssBytes: 0 }));
  const cpuMs: number[] = children.map(() => 0);
  const onAbort = () => children.forEach((_, i) => tell(i, { t: "cancel" }));
  o.signal.addEventListener("abort", onAbort, { once: true });

  const readChild = async (i: number): Promise<ShardOutcome> => {
    let outcome: ShardOutcome | undefined;
    let failure: string | undefined;
    let n = 0;
    for await (const line of readLines(children[i].stdout)) {
      n++;
      if (line.length === 0) continue;
      const m = decodeShardMessage(line, n);
      switch (m.t) {
        case "hello":
          if (m.timeOriginMs !== performance.timeOrigin) {
            throw new Error(`engine shard process ${i} counts time from another origin (${m.timeOriginMs})`);
          }
          break;
        case "ready":
          if (++ready === o.count) allReady();
          break;
        case "started":
          infos[i] = { ...infos[i], startLatenessMs: m.latenessMs };
          break;
        case "phase":
          if (!started.has(m.phase)) {
            started.add(m.phase);
            o.onPhaseStart?.(m.phase, m.at);
          }
          break;
        case "r":
          o.onRecord(m.r);
          break;
        case "activity":
          activities[i] = m.activities;
          break;
        case "done":
          outcome = m.outcome;
          infos[i] = { ...infos[i], peakRssBytes: m.peakRssBytes };
          cpuMs[i] = m.cpuMs ?? 0;
          break;
        case "failed":
          failure = m.message;
          break;
      }
    }
    const status = await children[i].status;
    if (failure !== undefined) throw new Error(`engine shard process ${i} failed: ${failure}`);
    if (outcome === undefined) {
      throw new Error(`engine shard process ${i} exited (code ${status.code}) before it finished`);
    }
    return outcome;
  };

  const reading = children.map((_, i) => readChild(i));
  // A child that fails before it is ready must not leave the others waiting for a start.
  const failedEarly = Promise.race(reading.map((p) => p.then(() => new Promise<never>(() => {}))));
  try {
    await Promise.race([readyAll, failedEarly]);
    if (!o.signal.aborted) {
      const epochMs = performance.timeOrigin + performance.now() + (o.startDelayMs ?? 100);
      await Promise.all(children.map((_, i) => tell(i, { t: "start", epochMs })));
    }
    const wallStart = performance.now();
    const outcomes = await Promise.all(reading);
    const wallMs = performance.now() - wallStart;
    const profiling = outcomes.map((s) => s.profiling).filter((p) => p !== undefined);
    const used = cpuMs.reduce((a, b) => a + b, 0);
    return {
      shards: outcomes,
      // The children report user and system time together.
      cpu: {
        userMs: used,
        systemMs: 0,
        wallMs,
        percentOfCore: wallMs > 0 ? used / wallMs * 100 : 0,
        percentPerShard: wallMs > 0 ? used / wallMs * 100 / o.count : 0,
      },
      processes: infos,
      profilingStartedAt: profiling.length ? Math.min(...profiling.map((p) => p.startedAt)) : undefined,
      profilingEndedAt: profiling.length ? Math.max(...profiling.map((p) => p.endedAt)) : undefined,
    };
  } catch (err) {
    for (const c of children) {
      try {
        c.kill("SIGTERM");
      } catch { /* already gone */ }
    }
    await Promise.allSettled(reading);
    throw err;
  } finally {
    o.signal.removeEventListener("abort", onAbort);
    await Promise.all(writers.map((w) => w.close().catch(() => {})));
  }
}
