/**
 * Messages between the main thread and an engine-shard Worker (structured clone). Records cross in batches so
 * a busy shard posts a few messages per second per 1k requests, not one per request.
 */
import type { Phase, RequestRecord } from "../records/request_record.ts";
import type { Target } from "../transport/http_exchange.ts";
import type { TransportActivity } from "../transport/http_client.ts";
import type { ShardOutcome, ShardSpec } from "./run_shard.ts";

export interface ShardStart {
  readonly type: "start";
  readonly spec: ShardSpec;
  readonly targets: readonly Target[];
  readonly reuse: "pooled" | "never";
  readonly readBufferBytes?: number;
  readonly pipelinedReads?: boolean;
  /** `performance.timeOrigin` of the main thread: the worker converts its times onto the run clock. */
  readonly mainTimeOrigin: number;
  /** CPU the shard pins its own thread to (Linux, through FFI); none: the scheduler places it. */
  readonly core?: number;
}

export type ToShard = ShardStart | { readonly type: "cancel" };

export type FromShard =
  | { readonly type: "phase"; readonly phase: Phase; readonly at: number }
  | { readonly type: "records"; readonly records: readonly RequestRecord[] }
  /** What the shard's requests are doing, about once a second, times on the run clock (for the stall notice). */
  | { readonly type: "activity"; readonly activities: readonly TransportActivity[] }
  /** Whether the thread was pinned to its core (sent first, only when a core was asked for). */
  | { readonly type: "pinned"; readonly core: number; readonly ok: boolean; readonly reason?: string }
  | { readonly type: "done"; readonly outcome: ShardOutcome }
  | { readonly type: "failed"; readonly message: string };
