/**
 * One shard of a profile in a process of its own (`infermeter shard --index K --of N …profile options…`): builds
 * the same run as `profile` would from the same options and seed (run_spec.ts), runs shard K of N on this thread,
 * and streams its records and phase messages as JSON lines (shard_stream.ts) to stdout or a file. Used by
 * `profile --workers-mode processes` (shard_processes.ts), and by anything else that coordinates shards on several
 * machines: the coordinator fixes the seed and the model names, and either passes a start time (`--start-at`) or
 * sends one on stdin once every shard is ready.
 */
import type { ParsedProfile } from "../config/parse_profile_args.ts";
import { resolveAdapter } from "../endpoints/endpoint_registry.ts";
import { CONNECT_TIMEOUT_MS, TargetSet } from "../engine/target_set.ts";
import { runShard, shardClock } from "../engine/run_shard.ts";
import { IoYield } from "../runtime/io_yield.ts";
import { ensureFdLimit } from "../runtime/fd_limit.ts";
import { peakRssBytes } from "../runtime/peak_rss.ts";
import { cpuTimeReader } from "../runtime/cpu_time.ts";
import { pinThreadToCore } from "../runtime/thread_affinity.ts";
import { parseTarget } from "../transport/parse_target.ts";
import { phaseConcurrency } from "../timing/phase_spec.ts";
import { Ticker } from "../timing/ticker.ts";
import { InputError } from "../base/input_error.ts";
import type { Logger } from "../ui/logger.ts";
import { buildRunSpec } from "./run_spec.ts";
import { decodeCoordinatorMessage, encodeShardMessage, type FromShardProcess, readLines } from "./shard_stream.ts";

/** When the shard starts sending. */
export type ShardStartAt =
  /** Wait for `{"t":"start","epochMs":…}` on stdin (the coordinator sends it once every shard is ready). */
  | { readonly kind: "stdin" }
  /** At this wall-clock time (epoch ms), agreed beforehand. */
  | { readonly kind: "epoch"; readonly epochMs: number }
  | { readonly kind: "now" };

export interface ShardProcessOptions {
  readonly index: number;
  readonly of: number;
  readonly startAt: ShardStartAt;
  /** Records file; stdout when absent. */
  readonly recordsOut?: string;
  /** Epoch ms the record times count from (the coordinator's clock origin); this process's own when absent. */
  readonly clockOriginMs?: number;
  /** CPU to pin this thread to (Linux), e.g. given by the coordinator. */
  readonly core?: number;
  readonly logger: Logger;
  /** Cancels the run (signals); records so far are written and the stream ends with `done`. */
  readonly stop: AbortSignal;
}

/** Records per write, and the longest a finished record waits to be written. */
const FLUSH_BYTES = 256 * 1024;
const FLUSH_DELAY_MS = 10;
const ACTIVITY_INTERVAL_MS = 1000;

export async function runShardProcess(parsed: ParsedProfile, o: ShardProcessOptions): Promise<"done" | "failed"> {
  const out = o.recordsOut === undefined ? Deno.stdout : await Deno.open(o.recordsOut, {
    write: true,
    create: true,
    truncate: true,
  });
  const writer = new LineWriter(out);
  const send = (m: FromShardProcess) => writer.push(encodeShardMessage(m));
  const cancel = new AbortController();
  const onStop = () => cancel.abort();
  o.stop.addEventListener("abort", onStop, { once: true });
  try {
    const origin = o.clockOriginMs ?? performance.timeOrigin;
    send({ t: "hello", index: o.index, of: o.of, pid: Deno.pid, timeOriginMs: origin });
    await writer.flush();
    const config = parsed.config;
    if (config.modelNames.length === 0) {
      throw new InputError("a shard needs --model: the coordinator discovers the model and passes it on.");
    }
    if (config.randomSeed === undefined) {
      throw new InputError("a shard needs --random-seed: every shard must build the same dataset and schedule.");
    }
    const adapter = await resolveAdapter(config.endpointType, { extraInputs: config.extraInputs });
    const streaming = config.streaming && adapter.capabilities.supportsStreaming;
    const targets = config.urls.map((u) => parseTarget(u));
    const built = await buildRunSpec({ parsed, config, adapter, streaming, targets, logger: o.logger });
    const spec = { ...built.spec, shardIndex: o.index, shardCount: o.of, workerId: `worker_${o.index}` };
    const profiling = spec.phases[spec.phases.length - 1];
    const sockets = Math.ceil((phaseConcurrency(profiling) ?? 0) / o.of) + 64;
    const fds = ensureFdLimit(sockets);
    if (fds !== undefined && fds.soft < sockets) {
      o.logger.warning(`shard ${o.index}: needs about ${sockets} open files, may open ${fds.soft}.`);
    }
    if (o.core !== undefined) {
      const pinned = pinThreadToCore(o.core);
      if (!pinned.ok) o.logger.info(`shard ${o.index}: not pinned to CPU ${o.core} (${pinned.reason})`);
    }
    const client = new TargetSet(targets, {
      reuse: config.connectionReuseStrategy === "never" ? "never" : "pooled",
      readBufferBytes: sockets > 1000 ? 16 * 1024 : undefined,
      pipelinedReads: sockets <= 1000,
      connectTimeoutMs: Math.min(spec.timeoutMs, CONNECT_TIMEOUT_MS),
    }, spec.explicitEndpoint);
    const offset = performance.timeOrigin - origin;
    const io = new IoYield();
    const timing = shardClock(spec, offset, io.wait);
    send({ t: "ready" });
    await writer.flush();

    const startEpochMs = await startTime(o.startAt, cancel);
    if (cancel.signal.aborted) {
      client.close();
      timing.close();
      io.close();
      send({ t: "done", outcome: {}, peakRssBytes: peakRssBytes() });
      return "done";
    }
    await sleepUntilEpoch(startEpochMs);
    const latenessMs = performance.timeOrigin + performance.now() - startEpochMs;
    send({ t: "started", startEpochMs, latenessMs });
    const readCpu = await cpuTimeReader();
    const cpu0 = readCpu();

    const ticker = new Ticker(FLUSH_DELAY_MS, () => writer.pending > 0 && (void writer.flush(), true));
    const activity = setInterval(() => {
      const activities = client.activity().map((a) => ({
        ...a,
        lastDataAt: a.lastDataAt > 0 ? a.lastDataAt + offset : 0,
      }));
      send({ t: "activity", activities });
    }, ACTIVITY_INTERVAL_MS);
    try {
      const outcome = await runShard(spec, {
        sender: client,
        clock: timing.clock,
        clockOffsetMs: offset,
        signal: cancel.signal,
        yieldToIo: io.wait,
        onPhaseStart: (phase, at) => send({ t: "phase", phase, at }),
        onRecord: (r) => {
          send({ t: "r", r });
          if (writer.pendingBytes >= FLUSH_BYTES) void writer.flush();
          else if (!ticker.running) ticker.start();
        },
      });
      const cpu1 = readCpu();
      send({
        t: "done",
        outcome,
        peakRssBytes: peakRssBytes(),
        cpuMs: cpu1.userMs + cpu1.systemMs - cpu0.userMs - cpu0.systemMs,
      });
    } finally {
      clearInterval(activity);
      ticker.stop();
      timing.close();
      client.close();
      io.close();
    }
    return "done";
  } catch (err) {
    send({ t: "failed", message: (err as Error).message });
    if (!(err instanceof InputError)) o.logger.debug((err as Error).stack ?? "");
    return "failed";
  } finally {
    o.stop.removeEventListener("abort", onStop);
    await writer.flush();
    if (out !== Deno.stdout) (out as Deno.FsFile).close();
  }
}

/** The agreed start (epoch ms); from stdin, waits for the coordinator (stdin closing first cancels). */
async function startTime(at: ShardStartAt, cancel: AbortController): Promise<number> {
  if (at.kind === "epoch") return at.epochMs;
  if (at.kind === "now") return performance.timeOrigin + performance.now();
  let start: number | undefined;
  // Read with next(), not for-await: leaving a for-await loop would cancel stdin for the later reads.
  const lines = readLines(Deno.stdin.readable);
  for (;;) {
    const { value, done } = await lines.next();
    if (done) break;
    const m = decodeCoordinatorMessage(value);
    if (m?.t === "start") start = m.epochMs;
    if (m !== undefined) break;
  }
  if (start === undefined) {
    cancel.abort();
    return 0;
  }
  // Later lines: a cancel, or stdin closing (the coordinator is gone), stops the run.
  (async () => {
    for (;;) {
      const { value, done } = await lines.next();
      if (done || decodeCoordinatorMessage(value)?.t === "cancel") break;
    }
    cancel.abort();
  })().catch(() => cancel.abort());
  return start;
}

/** Coarse timer to 3 ms before, then short polls: every shard starts within a fraction of a millisecond of it. */
async function sleepUntilEpoch(epochMs: number): Promise<void> {
  const left = () => epochMs - (performance.timeOrigin + performance.now());
  if (left() > 3) await new Promise((r) => setTimeout(r, left() - 3));
  while (left() > 0) await new Promise((r) => setTimeout(r, 0));
}

/** Lines queued and written in order, one write in flight at a time (a slow reader never reorders lines). */
class LineWriter {
  readonly #out: { write(p: Uint8Array): Promise<number> };
  readonly #encoder = new TextEncoder();
  #queued: string[] = [];
  #bytes = 0;
  #chain: Promise<void> = Promise.resolve();
  constructor(out: { write(p: Uint8Array): Promise<number> }) {
    this.#out = out;
  }
  get pending(): number {
    return this.#queued.length;
  }
  get pendingBytes(): number {
    return this.#bytes;
  }
  push(line: string): void {
    this.#queued.push(line);
    this.#bytes += line.length;
  }
  flush(): Promise<void> {
    if (this.#queued.length > 0) {
      const bytes = this.#encoder.encode(this.#queued.join(""));
      this.#queued = [];
      this.#bytes = 0;
      this.#chain = this.#chain.then(async () => {
        let off = 0;
        while (off < bytes.length) off += await this.#out.write(bytes.subarray(off));
      });
    }
    return this.#chain;
  }
}
