/**
 * The one host loop of an engine shard that runs away from its coordinator — in a Worker, in a process of its
 * own, or in a Kubernetes pod: says hello, builds what it needs, reports ready, waits for its start (or starts at
 * once), runs its share of the phases (run_shard.ts) and sends its records in batches over the channel it is given
 * (shard_event.ts), then `done` (or `failed`). The transport is the channel's business; this loop is the same
 * for all three.
 */
import { CONNECT_TIMEOUT_MS, TargetSet } from "./target_set.ts";
import { runShard, shardClock, type ShardSpec } from "./run_shard.ts";
import type { ShardChannel, ShardControl } from "./shard_event.ts";
import type { RequestRecord } from "../records/request_record.ts";
import type { Target } from "../transport/http_exchange.ts";
import { IoYield } from "../runtime/io_yield.ts";
import { pinThreadToCore } from "../runtime/thread_affinity.ts";
import { peakRssBytes } from "../runtime/peak_rss.ts";
import { cpuTimeReader } from "../runtime/cpu_time.ts";
import { Ticker } from "../timing/ticker.ts";

/** When a hosted shard starts sending. */
export type ShardStartAt =
  /** When its coordinator sends `start` (once every shard is ready). */
  | { readonly kind: "control" }
  /** At this wall-clock time (epoch ms), agreed beforehand. */
  | { readonly kind: "epoch"; readonly epochMs: number }
  | { readonly kind: "now" };

/** What the shard runs, and how its connections are set up. */
export interface ShardSetup {
  /** With this shard's `shardIndex`, `shardCount` and `workerId`. */
  readonly spec: ShardSpec;
  readonly targets: readonly Target[];
  readonly reuse: "pooled" | "never";
  readonly readBufferBytes?: number;
  readonly pipelinedReads?: boolean;
  /**
   * Connections to open before reporting ready (the streams it will hold): a shard that starts together with
   * shards on other hosts does not spend its first moments connecting. None by default (as `profile`: a request
   * opens its connection).
   */
  readonly preconnect?: number;
}

export interface HostedShard {
  readonly index: number;
  readonly of: number;
  /** Epoch ms the times it sends count from: its coordinator's clock origin where one was given. */
  readonly clockOriginMs: number;
  readonly startAt: ShardStartAt;
  /** CPU to pin this thread to (Linux); reported in a `pinned` event. */
  readonly core?: number;
  /** The setup, or how to build it once `hello` is sent (a process builds its dataset then). */
  readonly setup: ShardSetup | (() => Promise<ShardSetup>);
  /** Report this process's peak RSS and CPU time in `done` (a shard with a process of its own). */
  readonly reportProcess?: boolean;
  /** Stops the shard as a coordinator's `cancel` does, and `done` names `reason()` (e.g. a signal). */
  readonly stop?: { readonly signal: AbortSignal; readonly reason: () => string };
  /** Records per `records` event. @default 256 */
  readonly batchRecords?: number;
  /** The longest a finished record waits to be sent (ms). @default 10 */
  readonly batchDelayMs?: number;
  /** Told what is worth a warning (e.g. connections that could not be opened ahead). */
  readonly onNotice?: (text: string) => void;
  /** Told why a run failed beyond the `failed` event (a stack, for a debug log). */
  readonly onError?: (err: Error) => void;
}

const ACTIVITY_INTERVAL_MS = 1000;

/** Runs the shard to its end; "failed" when it sent `failed`. The channel is closed (flushed) when this returns. */
export async function hostShard(shard: HostedShard, channel: ShardChannel): Promise<"done" | "failed"> {
  const cancel = new AbortController();
  let stoppedBy: string | undefined;
  let gotStart!: (epochMs: number | undefined) => void;
  const start = new Promise<number | undefined>((resolve) => gotStart = resolve);
  channel.onControl((c: ShardControl) => {
    if (c.type === "start") gotStart(c.epochMs);
    else {
      cancel.abort();
      gotStart(undefined);
    }
  });
  const onStop = () => {
    stoppedBy ??= shard.stop!.reason();
    cancel.abort();
    gotStart(undefined);
  };
  shard.stop?.signal.addEventListener("abort", onStop, { once: true });
  const cleanup: (() => void)[] = [];
  try {
    channel.send({
      type: "hello",
      index: shard.index,
      of: shard.of,
      pid: Deno.pid,
      timeOriginMs: shard.clockOriginMs,
    });
    if (shard.core !== undefined) {
      const pinned = pinThreadToCore(shard.core);
      channel.send({
        type: "pinned",
        core: shard.core,
        ok: pinned.ok,
        ...(pinned.ok ? {} : { reason: pinned.reason }),
      });
    }
    const setup = typeof shard.setup === "function" ? await shard.setup() : shard.setup;
    const spec = setup.spec;
    // Times on this thread's clock plus the offset are times on the coordinator's clock.
    const offset = performance.timeOrigin - shard.clockOriginMs;
    // Connection setup is bounded by the request timeout, as in AIPerf, and by CONNECT_TIMEOUT_MS.
    const client = new TargetSet(setup.targets, {
      reuse: setup.reuse,
      readBufferBytes: setup.readBufferBytes,
      pipelinedReads: setup.pipelinedReads,
      connectTimeoutMs: Math.min(spec.timeoutMs, CONNECT_TIMEOUT_MS),
      maxResponseBytes: spec.maxResponseBytes,
    }, spec.explicitEndpoint);
    cleanup.push(() => client.close());
    const io = new IoYield();
    cleanup.push(() => io.close());
    const timing = shardClock(spec, offset, io.wait);
    cleanup.push(() => timing.close());
    if (setup.preconnect) {
      const warm = await client.prewarm(setup.preconnect);
      if (warm.error !== undefined) {
        shard.onNotice?.(`opened ${warm.opened} of ${setup.preconnect} connections ahead: ${warm.error}`);
      }
    }
    channel.send({ type: "ready" });

    const at = shard.startAt;
    const startEpochMs = at.kind === "control"
      ? await start
      : at.kind === "epoch"
      ? at.epochMs
      : performance.timeOrigin + performance.now();
    if (cancel.signal.aborted || startEpochMs === undefined) {
      channel.send({ type: "done", outcome: {}, ...processFacts(shard, undefined), ...stopped(stoppedBy) });
      return "done";
    }
    if (at.kind !== "now") await sleepUntilEpoch(startEpochMs);
    channel.send({
      type: "started",
      startEpochMs,
      latenessMs: performance.timeOrigin + performance.now() - startEpochMs,
    });
    const readCpu = shard.reportProcess ? await cpuTimeReader() : undefined;
    const cpu0 = readCpu?.();

    const batchRecords = shard.batchRecords ?? 256;
    let batch: RequestRecord[] = [];
    const flush = () => {
      if (batch.length === 0) return;
      channel.send({ type: "records", records: batch });
      batch = [];
    };
    // Sends what has come every batchDelayMs: one running interval rather than a timer armed per batch (Ticker).
    const ticker = new Ticker(shard.batchDelayMs ?? 10, () => {
      const had = batch.length > 0;
      flush();
      return had;
    });
    cleanup.push(() => ticker.stop());
    const activity = setInterval(() => {
      const activities = client.activity().map((a) => ({
        ...a,
        lastDataAt: a.lastDataAt > 0 ? a.lastDataAt + offset : 0,
      }));
      channel.send({ type: "activity", activities });
    }, ACTIVITY_INTERVAL_MS);
    cleanup.push(() => clearInterval(activity));
    const outcome = await runShard(spec, {
      sender: client,
      clock: timing.clock,
      clockOffsetMs: offset,
      signal: cancel.signal,
      yieldToIo: io.wait,
      onPhaseStart: (phase, at) => {
        flush();
        channel.send({ type: "phase", phase, at });
      },
      onRecord: (record) => {
        batch.push(record);
        if (batch.length >= batchRecords) flush();
        else if (!ticker.running) ticker.start();
      },
    });
    flush();
    channel.send({
      type: "done",
      outcome,
      ...processFacts(shard, readCpu && cpu0 && { readCpu, cpu0 }),
      ...stopped(stoppedBy),
    });
    return "done";
  } catch (err) {
    channel.send({ type: "failed", message: (err as Error).message });
    shard.onError?.(err as Error);
    return "failed";
  } finally {
    shard.stop?.signal.removeEventListener("abort", onStop);
    for (const c of cleanup.reverse()) c();
    await channel.close();
  }
}

function stopped(by: string | undefined): { stoppedBy?: string } {
  return by === undefined ? {} : { stoppedBy: by };
}

function processFacts(
  shard: HostedShard,
  cpu: { readCpu: () => { userMs: number; systemMs: number }; cpu0: { userMs: number; systemMs: number } } | undefined,
): { peakRssBytes?: number; cpuMs?: number } {
  if (!shard.reportProcess) return {};
  if (cpu === undefined) return { peakRssBytes: peakRssBytes() };
  const cpu1 = cpu.readCpu();
  return {
    peakRssBytes: peakRssBytes(),
    cpuMs: cpu1.userMs + cpu1.systemMs - cpu.cpu0.userMs - cpu.cpu0.systemMs,
  };
}

/** Coarse timer to 3 ms before, then short polls: every shard starts within a fraction of a millisecond of it. */
async function sleepUntilEpoch(epochMs: number): Promise<void> {
  const left = () => epochMs - (performance.timeOrigin + performance.now());
  if (left() > 3) await new Promise((r) => setTimeout(r, left() - 3));
  while (left() > 0) await new Promise((r) => setTimeout(r, 0));
}
