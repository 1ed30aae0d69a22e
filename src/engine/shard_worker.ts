/**
 * Worker side of a multi-shard run: runs one engine shard on its own event loop and connections, and posts
 * its records to the main thread in batches (see shard_protocol.ts).
 */
/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
import type { RequestRecord } from "../records/request_record.ts";
import { CONNECT_TIMEOUT_MS, TargetSet } from "./target_set.ts";
import { runShard, shardClock } from "./run_shard.ts";
import { IoYield } from "../runtime/io_yield.ts";
import { Ticker } from "../timing/ticker.ts";
import { pinThreadToCore } from "../runtime/thread_affinity.ts";
import type { FromShard, ShardStart, ToShard } from "./shard_protocol.ts";

/** Records per message, and the longest a finished record waits to be posted. */
const BATCH_RECORDS = 256;
const BATCH_DELAY_MS = 10;
const ACTIVITY_INTERVAL_MS = 1000;

export function startShardWorker(): void {
  const cancel = new AbortController();
  const post = (m: FromShard) => self.postMessage(m);
  self.onmessage = (event: MessageEvent<ToShard>) => {
    const msg = event.data;
    if (msg.type === "cancel") cancel.abort();
    else if (msg.type === "start") {
      run(msg, cancel.signal, post).catch((err) => post({ type: "failed", message: (err as Error).message }));
    }
  };
}

async function run(start: ShardStart, signal: AbortSignal, post: (m: FromShard) => void): Promise<void> {
  if (start.core !== undefined) {
    const pinned = pinThreadToCore(start.core);
    post({ type: "pinned", core: start.core, ok: pinned.ok, reason: pinned.ok ? undefined : pinned.reason });
  }
  const offset = performance.timeOrigin - start.mainTimeOrigin;
  const client = new TargetSet(start.targets, {
    reuse: start.reuse,
    readBufferBytes: start.readBufferBytes,
    pipelinedReads: start.pipelinedReads,
    connectTimeoutMs: Math.min(start.spec.timeoutMs, CONNECT_TIMEOUT_MS),
    maxResponseBytes: start.spec.maxResponseBytes,
  }, start.spec.explicitEndpoint);
  const io = new IoYield();
  const timing = shardClock(start.spec, offset, io.wait);
  let batch: RequestRecord[] = [];
  const flush = () => {
    if (batch.length === 0) return;
    post({ type: "records", records: batch });
    batch = [];
  };
  // Posts what has come every BATCH_DELAY_MS: one running interval rather than a timer armed per batch (see Ticker).
  const ticker = new Ticker(BATCH_DELAY_MS, () => {
    const had = batch.length > 0;
    flush();
    return had;
  });
  const activity = setInterval(() => {
    const activities = client.activity().map((a) => ({
      ...a,
      lastDataAt: a.lastDataAt > 0 ? a.lastDataAt + offset : 0,
    }));
    post({ type: "activity", activities });
  }, ACTIVITY_INTERVAL_MS);
  try {
    const outcome = await runShard(start.spec, {
      sender: client,
      clock: timing.clock,
      clockOffsetMs: offset,
      signal,
      yieldToIo: io.wait,
      onPhaseStart: (phase, at) => {
        flush();
        post({ type: "phase", phase, at });
      },
      onRecord: (record) => {
        batch.push(record);
        if (batch.length >= BATCH_RECORDS) flush();
        else if (!ticker.running) ticker.start();
      },
    });
    flush();
    post({ type: "done", outcome });
  } finally {
    clearInterval(activity);
    ticker.stop();
    timing.close();
    client.close();
    io.close();
  }
}
