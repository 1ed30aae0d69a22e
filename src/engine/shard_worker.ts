/**
 * The Worker transport of the shard protocol (shard_event.ts): events and control cross as structured clones,
 * records in batches, so a busy shard posts a few messages per second per 1k requests, not one per request.
 * The Worker's first message (`host`) says what to run; then host_shard.ts runs it on the Worker's own event loop
 * and connections, with its times moved onto the main thread's clock.
 */
/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
import { spawnWorker } from "../runtime/spawn_worker.ts";
import { type HostedShard, hostShard, type ShardSetup } from "./host_shard.ts";
import type { ShardChannel, ShardControl, ShardEvent, ShardLink } from "./shard_event.ts";

/** What a shard Worker hosts: cloneable, so no setup function, stop signal or callback. */
export type WorkerShard = Omit<HostedShard, "setup" | "stop" | "onError"> & { readonly setup: ShardSetup };

type ToWorker = { readonly type: "host"; readonly shard: WorkerShard } | ShardControl;

/** What both ends of the structured-clone transport post on: a Worker, a Worker's `self`, a MessagePort. */
export interface ClonePort {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent) => void) | null;
}

/** The shard's end over a port: events posted as they are sent (records already come batched). */
export function cloneChannel(port: ClonePort): { channel: ShardChannel; control(c: ShardControl): void } {
  let onControl: ((c: ShardControl) => void) | undefined;
  const early: ShardControl[] = [];
  return {
    channel: {
      send: (e) => port.postMessage(e),
      onControl(handler) {
        onControl = handler;
        for (const c of early.splice(0)) handler(c);
      },
      close: () => Promise.resolve(),
    },
    control(c) {
      if (onControl !== undefined) onControl(c);
      else early.push(c);
    },
  };
}

/**
 * The coordinator's end over a port: the stream ends after `done` or `failed`; `stop(reason)` ends it from
 * outside (a crash); `first` is posted once the handler is in place (a Worker's `host` message).
 */
export function cloneLink(
  port: ClonePort,
  o: { readonly first?: unknown; readonly close?: () => void } = {},
): ShardLink & { stop(reason: string): void } {
  let end!: (reason: string | undefined) => void;
  const ended = new Promise<string | undefined>((r) => end = r);
  let over = false;
  const finish = (reason: string | undefined) => {
    if (over) return;
    over = true;
    o.close?.();
    end(reason);
  };
  return {
    onEvent(handler) {
      port.onmessage = (event: MessageEvent<ShardEvent>) => {
        if (over) return;
        const e = event.data;
        handler(e);
        if (e.type === "done" || e.type === "failed") finish(undefined);
      };
      if (o.first !== undefined) port.postMessage(o.first);
    },
    control(c) {
      if (!over) port.postMessage(c);
    },
    ended,
    abort: () => finish("was terminated"),
    stop: finish,
  };
}

/** The Worker side: waits for `host`, then hosts that shard over postMessage. */
export function startShardWorker(): void {
  const port = self as unknown as ClonePort;
  const { channel, control } = cloneChannel(port);
  port.onmessage = (event: MessageEvent<ToWorker>) => {
    const m = event.data;
    if (m.type === "host") void hostShard(m.shard, channel);
    else control(m);
  };
}

/** The main thread's side: a Worker hosting `shard`. The stream ends after `done` or `failed`, or a crash. */
export function workerLink(shard: WorkerShard): ShardLink {
  const worker = spawnWorker("engine-shard");
  const link = cloneLink(worker as unknown as ClonePort, {
    first: { type: "host", shard } satisfies ToWorker,
    close: () => worker.terminate(),
  });
  worker.onerror = (e: ErrorEvent) => {
    e.preventDefault();
    link.stop(`crashed: ${e.message}`);
  };
  return link;
}
