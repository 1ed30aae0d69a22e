/**
 * One shard of a profile in a process of its own (`infermeter shard --index K --of N …profile options…`): builds
 * the same run as `profile` would from the same options and seed (run_spec.ts), runs shard K of N on this thread,
 * and streams its events as JSON lines (engine/shard_lines.ts) to stdout or a file, or over the channel given (a
 * Kubernetes pod's, kube/records_channel.ts): the host loop is engine/host_shard.ts, as for Worker shards. Used by
 * `profile --workers-mode processes` (shard_processes.ts), and by anything else that coordinates shards on several
 * machines: the coordinator fixes the seed and the model names, and either passes a start time (`--start-at`) or
 * sends one on stdin once every shard is ready.
 */
import type { ParsedProfile } from "../config/parse_profile_args.ts";
import { resolveAdapter } from "../endpoints/endpoint_registry.ts";
import { hostShard, type ShardSetup, type ShardStartAt } from "../engine/host_shard.ts";
import type { ShardChannel } from "../engine/shard_event.ts";
import { lineChannel } from "../engine/shard_lines.ts";
import { ensureFdLimit } from "../runtime/fd_limit.ts";
import { parseTarget } from "../transport/parse_target.ts";
import { phaseConcurrency } from "../timing/phase_spec.ts";
import { InputError } from "../base/input_error.ts";
import type { Logger } from "../ui/logger.ts";
import { buildRunSpec } from "./run_spec.ts";

export type { ShardStartAt };

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
  /** Stops the run (a signal): records so far are sent and `done` names `stopReason()`. */
  readonly stop: AbortSignal;
  readonly stopReason?: () => string;
  /** Open the shard's connections before it reports ready (shards on several hosts starting together). */
  readonly preconnect?: boolean;
  /** The transport; JSON lines to `recordsOut` or stdout (control on stdin) when absent. */
  readonly channel?: ShardChannel;
}

export async function runShardProcess(parsed: ParsedProfile, o: ShardProcessOptions): Promise<"done" | "failed"> {
  const file = o.channel !== undefined || o.recordsOut === undefined ? undefined : await Deno.open(o.recordsOut, {
    write: true,
    create: true,
    truncate: true,
  });
  const channel = o.channel ??
    lineChannel(file ?? Deno.stdout, o.startAt.kind === "control" ? Deno.stdin.readable : undefined);
  try {
    return await hostShard({
      index: o.index,
      of: o.of,
      clockOriginMs: o.clockOriginMs ?? performance.timeOrigin,
      startAt: o.startAt,
      core: o.core,
      reportProcess: true,
      stop: { signal: o.stop, reason: o.stopReason ?? (() => "a signal") },
      setup: () => shardSetup(parsed, o),
      onNotice: (text) => o.logger.warning(`shard ${o.index}: ${text}`),
      onError: (err) => {
        if (!(err instanceof InputError)) o.logger.debug(err.stack ?? "");
      },
    }, channel);
  } finally {
    file?.close();
  }
}

/** Builds shard K's spec from the profile options, as `profile` would, and sizes its connections. */
async function shardSetup(parsed: ParsedProfile, o: ShardProcessOptions): Promise<ShardSetup> {
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
  const streams = Math.ceil((phaseConcurrency(profiling) ?? 0) / o.of);
  const sockets = streams + 64;
  const fds = ensureFdLimit(sockets);
  if (fds !== undefined && fds.soft < sockets) {
    o.logger.warning(`shard ${o.index}: needs about ${sockets} open files, may open ${fds.soft}.`);
  }
  return {
    spec,
    targets,
    reuse: config.connectionReuseStrategy === "never" ? "never" : "pooled",
    readBufferBytes: sockets > 1000 ? 16 * 1024 : undefined,
    pipelinedReads: sockets <= 1000,
    ...(o.preconnect && streams > 0 ? { preconnect: streams } : {}),
  };
}
