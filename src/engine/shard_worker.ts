/**
 * Worker side of a multi-shard run: runs one engine shard on its own event loop and connections, and posts
 * its records to the main thread in batches (see shard_protocol.ts).
 */
/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
import type { RequestRecord } from "../records/request_record.ts";
import { TargetSet } from "./target_set.ts";
import { SystemClock } from "../timing/clock.ts";
import { runShard } from "./run_shard.ts";
import { IoYield } from "../runtime/io_yield.ts";
import type { FromShard, ShardStart, ToShard } from "./shard_protocol.ts";

/** Records per message, and the longest a finished record waits to be posted. */
const BATCH_RECORDS = 256;
const BATCH_DELAY_MS = 10;

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
  const offset = performance.timeOrigin - start.mainTimeOrigin;
  const client = new TargetSet(start.targets, {
    reuse: start.reuse,
    readBufferBytes: start.readBufferBytes,
    pipelinedReads: start.pipelinedReads,
    connectTimeoutMs: start.spec.timeoutMs,
  }, start.spec.explicitEndpoint);
  const io = new IoYield();
  let batch: RequestRecord[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (batch.length === 0) return;
    post({ type: "records", records: batch });
    batch = [];
  };
  try {
    const outcome = await runShard(start.spec, {
      sender: client,
      clock: new SystemClock(offset, io.wait),
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
        else if (timer === undefined) timer = setTimeout(flush, BATCH_DELAY_MS);
      },
    });
    flush();
    post({ type: "done", outcome });
  } finally {
    client.close();
    io.close();
  }
}
