/**
 * `kube run`'s engine: applies the run's manifests, holds the shared start (every shard reports ready on the
 * start ConfigMap; once all are ready, or the rest have failed, one start time is written there), follows the Job
 * to its end, brings every completed index's records home (records_channel.ts), refuses indexes that are missing
 * or duplicated against the Job's `completedIndexes`, and replays the rest onto the caller's record bus.
 */
import type { BenchmarkOptions, BenchmarkOutcome } from "../engine/run_benchmark.ts";
import type { Logger } from "../ui/logger.ts";
import { collectionOf, KubeApiError, type KubeClient, type KubeObject, kubePaths } from "./kube_client.ts";
import {
  kubeManifests,
  type KubeRunSpec,
  names,
  READY_ANNOTATION_PREFIX,
  ROLE_LABEL,
  RUN_LABEL,
  START_ANNOTATION,
} from "./kube_manifests.ts";
import { assembleStreams, INDEX_LABEL, parseIndexes, planMerge, RecordsChannelError } from "./records_channel.ts";
import { replayShardStreams, type ShardStart } from "./replay_shard_streams.ts";

/** What holding the shared start needs. */
export interface SharedStartOptions {
  readonly client: KubeClient;
  readonly spec: Pick<KubeRunSpec, "run" | "namespace" | "shards">;
  readonly logger: Logger;
  /** How long shards may take to get ready. */
  readonly readyTimeoutMs: number;
  /** The start is written this far ahead of the moment the last shard got ready (every shard must see it first). */
  readonly startDelayMs: number;
}

export interface ClusterRunOptions extends SharedStartOptions {
  readonly spec: KubeRunSpec;
  /** Leave the objects in the cluster afterwards. */
  readonly keep: boolean;
  /** Create the run's objects first (`kube run`); false when they were applied already (`kube collect`). */
  readonly apply?: boolean;
}

/** What happened on the cluster, beside the records. */
export interface ClusterReport {
  readonly shards: number;
  readonly merged: readonly number[];
  readonly notCompleted: readonly number[];
  readonly problems: readonly string[];
  readonly starts: readonly ShardStart[];
  readonly startSpreadMs?: number;
  readonly jobCondition?: string;
  readonly partial: boolean;
}

interface Job extends KubeObject {
  status?: {
    completedIndexes?: string;
    failedIndexes?: string;
    succeeded?: number;
    failed?: number;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

const finished = (job: Job) =>
  job.status?.conditions?.find((c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True");

export function clusterEngine(c: ClusterRunOptions, onReport: (r: ClusterReport) => void) {
  return async (o: BenchmarkOptions): Promise<BenchmarkOutcome> => {
    const { client, spec, logger } = c;
    const ns = spec.namespace;
    const n = names(spec.run);
    for (const m of c.apply === false ? [] : kubeManifests(spec)) {
      await client.create(collectionOf(m.kind, ns), m);
      logger.debug(`created ${m.kind} ${ns}/${m.metadata.name}`);
    }
    logger.info(`Job ${ns}/${n.job}: ${spec.shards} shards (kubectl -n ${ns} get job ${n.job})`);
    const jobPath = `${kubePaths.jobs(ns)}/${n.job}`;
    try {
      const stopped = await sharedStart(c, o.signal);
      if (stopped !== undefined) {
        // No start was written, so no shard sent anything: there is nothing to merge.
        await client.delete(jobPath);
        logger.error(`partial run: no shard started (${stopped}); nothing was sent.`);
        const none = Array.from({ length: spec.shards }, (_, i) => i);
        onReport({
          shards: spec.shards,
          merged: [],
          notCompleted: none,
          problems: [stopped],
          starts: [],
          partial: true,
        });
        return { shards: [] };
      }
      const job = await client.waitFor<Job>(kubePaths.jobs(ns), n.job, (j) => finished(j) !== undefined);
      const condition = finished(job)!;
      const completed = job.status?.completedIndexes ?? "";
      logger.info(
        `Job ${n.job}: ${condition.type} (${parseIndexes(completed).length}/${spec.shards} indexes completed` +
          (job.status?.failedIndexes ? `, failed: ${job.status.failedIndexes}` : "") + ")",
      );
      const chunks = await client.get<{ items: KubeObject[] }>(
        `${kubePaths.configMaps(ns)}?labelSelector=${
          encodeURIComponent(`${RUN_LABEL}=${spec.run},${ROLE_LABEL}=records`)
        }`,
      );
      const problems: string[] = [];
      const streams = new Map<number, Uint8Array>();
      // Each index on its own: a torn or duplicated upload refuses that index, not the run.
      const byIndex = Map.groupBy(chunks.items, (i) => i.metadata?.labels?.[INDEX_LABEL] ?? "");
      for (const [index, items] of byIndex) {
        try {
          for (const [k, v] of await assembleStreams(items)) streams.set(k, v);
        } catch (err) {
          if (!(err instanceof RecordsChannelError)) throw err;
          problems.push(err.message);
          logger.error(`records of index ${index}: ${err.message}`);
        }
      }
      const plan = planMerge(spec.shards, completed, streams.keys());
      problems.push(...plan.problems);
      for (const p of plan.problems) logger.error(p);
      const chosen = new Map(plan.merge.map((i) => [i, streams.get(i)!]));
      const replay = await replayShardStreams(chosen, {
        timeOriginMs: performance.timeOrigin,
        onRecord: o.onRecord,
        onPhaseStart: o.onPhaseStart,
      });
      for (const [index, why] of replay.failures) problems.push(`index ${index}: ${why}`);
      const startEpochs = replay.starts.map((s) => s.startEpochMs + s.latenessMs);
      const report: ClusterReport = {
        shards: spec.shards,
        merged: plan.merge,
        notCompleted: plan.notCompleted,
        problems,
        starts: replay.starts,
        startSpreadMs: startEpochs.length > 1 ? Math.max(...startEpochs) - Math.min(...startEpochs) : undefined,
        jobCondition: condition.type,
        partial: plan.merge.length < spec.shards || problems.length > 0,
      };
      if (report.partial) {
        logger.error(
          `partial run: merged ${plan.merge.length} of ${spec.shards} shards` +
            (plan.notCompleted.length ? `; indexes ${plan.notCompleted.join(", ")} did not complete` : "") +
            ". The results cover only the merged shards' load.",
        );
      }
      onReport(report);
      return replay;
    } finally {
      if (!c.keep) await cleanUp(client, spec, logger);
      else logger.info(`--keep: the run's objects stay in namespace ${ns} (label ${RUN_LABEL}=${spec.run})`);
    }
  };
}

/**
 * Waits for every shard to be ready (or failed), then writes the start; why not, when stopped instead. A start
 * already written (`kube start` before `kube collect`) stands.
 */
export async function sharedStart(c: SharedStartOptions, signal: AbortSignal): Promise<string | undefined> {
  const { client, spec, logger } = c;
  const ns = spec.namespace;
  const n = names(spec.run);
  const startPath = `${kubePaths.configMaps(ns)}/${n.start}`;
  const deadline = Date.now() + c.readyTimeoutMs;
  let shown = -1;
  while (!signal.aborted) {
    const cm = await client.get(startPath);
    const written = cm.metadata?.annotations?.[START_ANNOTATION];
    if (written !== undefined) {
      logger.info(`shared start already written: ${new Date(Number(written)).toISOString()}`);
      return undefined;
    }
    const ready = Object.keys(cm.metadata?.annotations ?? {}).filter((k) => k.startsWith(READY_ANNOTATION_PREFIX));
    const job = await client.get<Job>(`${kubePaths.jobs(ns)}/${n.job}`);
    const failed = parseIndexes(job.status?.failedIndexes).length;
    if (ready.length !== shown) {
      logger.info(`shards ready: ${ready.length}/${spec.shards}` + (failed ? ` (${failed} failed)` : ""));
      shown = ready.length;
    }
    if (ready.length > 0 && ready.length + failed >= spec.shards) {
      const startAt = Date.now() + c.startDelayMs;
      await client.mergePatch(startPath, { metadata: { annotations: { [START_ANNOTATION]: String(startAt) } } });
      logger.info(`shared start at ${new Date(startAt).toISOString()}`);
      return undefined;
    }
    // Every index failed before getting ready: the Job is over and reports why.
    if (finished(job) !== undefined) return undefined;
    if (Date.now() > deadline) {
      return `only ${ready.length} of ${spec.shards} shards got ready in ${
        c.readyTimeoutMs / 1000
      } s (--ready-timeout)`;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return "interrupted before the shared start";
}

async function cleanUp(client: KubeClient, spec: KubeRunSpec, logger: Logger): Promise<void> {
  const ns = spec.namespace;
  const n = names(spec.run);
  const selector = encodeURIComponent(`${RUN_LABEL}=${spec.run}`);
  try {
    await client.delete(`${kubePaths.jobs(ns)}/${n.job}`);
    await client.request("DELETE", `${kubePaths.configMaps(ns)}?labelSelector=${selector}`);
    await client.delete(`${kubePaths.roleBindings(ns)}/${n.account}`);
    await client.delete(`${kubePaths.roles(ns)}/${n.account}`);
    await client.delete(`${kubePaths.serviceAccounts(ns)}/${n.account}`);
    logger.debug(`removed the run's objects from namespace ${ns}`);
  } catch (err) {
    const why = err instanceof KubeApiError ? err.message : String(err);
    logger.warning(
      `cleanup incomplete (${why}); remove with: kubectl -n ${ns} delete job,cm,sa,role,rolebinding -l ${RUN_LABEL}=${spec.run}`,
    );
  }
}
