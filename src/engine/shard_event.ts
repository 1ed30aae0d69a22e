/**
 * The one protocol between a hosted engine shard (host_shard.ts) and its coordinator (coordinate_shards.ts),
 * whatever carries it: a Worker (structured clone, shard_worker.ts), a child process (JSON lines,
 * shard_lines.ts), or a Kubernetes pod (gzip chunks in ConfigMaps, kube/records_channel.ts).
 *
 * Shard → coordinator, in this order: `hello`, maybe `pinned`, `ready`, maybe `clock`, `started`, then `phase`, `records` and
 * `activity` as they come, and last `done` or `failed`. Every `*At` time is ms since `hello.timeOriginMs` (epoch
 * ms); the coordinator moves them onto its own clock. Coordinator → shard: `start` (when the shard waits for one)
 * and `cancel` (stop now; what was measured is still sent, then `done`).
 */
import type { Phase, RequestRecord } from "../records/request_record.ts";
import type { TransportActivity } from "../transport/http_client.ts";
import type { ShardOutcome } from "./run_shard.ts";

export type ShardEvent =
  | {
    readonly type: "hello";
    readonly index: number;
    readonly of: number;
    readonly pid: number;
    readonly timeOriginMs: number;
  }
  /** Whether the shard's thread was pinned to its core (only when a core was asked for). */
  | { readonly type: "pinned"; readonly core: number; readonly ok: boolean; readonly reason?: string }
  /**
   * The coordinator's clock minus this shard's (ms), measured by the transport before the start (Kubernetes pods
   * on other hosts), within ± `uncertaintyMs`: the shard's times are moved by it, and its start was corrected by it.
   */
  | { readonly type: "clock"; readonly offsetMs: number; readonly uncertaintyMs: number }
  /** Dataset built, connections' settings made: the shard waits for its start. */
  | { readonly type: "ready" }
  /** When it began (epoch ms) and how late after the agreed start, on its own clock. */
  | { readonly type: "started"; readonly startEpochMs: number; readonly latenessMs: number }
  | { readonly type: "phase"; readonly phase: Phase; readonly at: number }
  /** Finished requests, in completion order (batched: a busy shard sends a few of these per second). */
  | { readonly type: "records"; readonly records: readonly RequestRecord[] }
  /** What the shard's requests are doing, about once a second (for the stall notice and live views). */
  | { readonly type: "activity"; readonly activities: readonly TransportActivity[] }
  | {
    readonly type: "done";
    readonly outcome: ShardOutcome;
    /** Peak RSS and CPU time of the shard's process (only where the shard has a process of its own). */
    readonly peakRssBytes?: number;
    readonly cpuMs?: number;
    /** Set when the shard was stopped by something other than its coordinator (e.g. "SIGTERM"). */
    readonly stoppedBy?: string;
  }
  | { readonly type: "failed"; readonly message: string };

export type ShardControl =
  | { readonly type: "start"; readonly epochMs: number }
  | { readonly type: "cancel" };

/** The shard's end of a transport. */
export interface ShardChannel {
  /** Queues an event; events arrive in the order sent. */
  send(event: ShardEvent): void;
  /** Called with every control message (a control stream that ends after the start is a `cancel`). */
  onControl(handler: (control: ShardControl) => void): void;
  /** Delivers everything sent (the last `done` or `failed` included) and ends the stream. */
  close(): Promise<void>;
}

/** The coordinator's end of one shard's transport. */
export interface ShardLink {
  /** Called with every event, in order; set before the stream starts flowing (links deliver none until then). */
  onEvent(handler: (event: ShardEvent) => void): void;
  control(control: ShardControl): void;
  /** Resolves when no more events will come: with why the stream broke off, or undefined when it ended cleanly. */
  readonly ended: Promise<string | undefined>;
  /** Ends the shard now (terminates the Worker, kills the process); its undelivered events are lost. */
  abort(): void;
}
