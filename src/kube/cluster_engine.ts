/**
 * `kube run`'s engine: applies the run's manifests, holds the shared start (every shard reports ready on the
 * start ConfigMap; once all are ready, or the rest have failed, one start time is written there), then merges the
 * records the shards upload while they run (records_channel.ts) onto the caller's record bus through the one shard
 * coordinator (engine/coordinate_shards.ts), following the Job to its end: an index whose pod ends without its
 * last chunk keeps what it uploaded and makes the run partial.
 */
import type { BenchmarkOptions, BenchmarkOutcome } from "../engine/run_benchmark.ts";
import type { Logger } from "../ui/logger.ts";
import { collectionOf, KubeApiError, type KubeClient, type KubeObject, kubePaths } from "./kube_client.ts";
import {
  kubeManifests,
  type KubeRunSpec,
  names,
  ownedBy,
  READY_ANNOTATION_PREFIX,
  RUN_LABEL,
  START_ANNOTATION,
} from "./kube_manifests.ts";
import { answerClockPings, KubeRecordLinks } from "./records_channel.ts";
import { RunEvents } from "./pod_events.ts";
import { coordinateShards, type LostShard } from "../engine/coordinate_shards.ts";

/** When one shard began (epoch ms, on the coordinator's clock where its offset was measured) and how late. */
export interface ShardStart {
  readonly index: number;
  readonly startEpochMs: number;
  readonly latenessMs: number;
}

/** Parses a Job's `completedIndexes`/`failedIndexes` ("1,3-5,7") into indexes. */
export function parseIndexes(text: string | undefined): number[] {
  if (text === undefined || text.trim() === "") return [];
  const out: number[] = [];
  for (const part of text.split(",")) {
    const [a, b] = part.split("-").map(Number);
    for (let i = a; i <= (b ?? a); i++) out.push(i);
  }
  return out;
}

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
  /** Indexes that ran to their end (all their records merged). */
  readonly merged: readonly number[];
  /** Indexes the Job does not list as completed. */
  readonly notCompleted: readonly number[];
  /** Indexes that did not run to their end: what they uploaded before is merged too. */
  readonly lost: readonly LostShard[];
  readonly problems: readonly string[];
  readonly starts: readonly ShardStart[];
  /** Between the shards' first profiling requests, on the coordinator's clock (offsets applied). */
  readonly startSpreadMs?: number;
  /** Each shard's clock offset to the coordinator (its clock minus the shard's) and its bound, when measured. */
  readonly clocks?: readonly { index: number; offsetMs: number | null; uncertaintyMs: number | null }[];
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
    const jobPath = `${kubePaths.jobs(ns)}/${n.job}`;
    try {
      if (c.apply !== false) await createRun(client, spec, logger);
      logger.info(`Job ${ns}/${n.job}: ${spec.shards} shards (kubectl -n ${ns} get job ${n.job})`);
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
          lost: [],
          problems: [stopped],
          starts: [],
          partial: true,
        });
        return { shards: [], shardCount: spec.shards };
      }
      // Records come home while the shards run; the Job says when an index's pod is over.
      const links = new KubeRecordLinks(client, { run: spec.run, namespace: ns, shards: spec.shards, logger });
      const settled = new Set<number>();
      const settling: Promise<void>[] = [];
      const settleFrom = (job: Job) => {
        const failed = new Set(parseIndexes(job.status?.failedIndexes));
        const over = [...parseIndexes(job.status?.completedIndexes), ...failed];
        for (const i of over) {
          if (settled.has(i) || i < 0 || i >= spec.shards) continue;
          settled.add(i);
          settling.push(links.settle(i, failed.has(i) ? "lost its pod" : "completed without its last records"));
        }
      };
      // Each shard's first profiling request, on this clock once its offset is applied: the start spread.
      const firstRequest = new Map<string, number>();
      const merging = coordinateShards({
        links: links.links,
        timeOriginMs: performance.timeOrigin,
        signal: o.signal,
        onRecord: (r) => {
          if (r.phase === "profiling") {
            const first = firstRequest.get(r.workerId);
            if (first === undefined || r.startAt < first) firstRequest.set(r.workerId, r.startAt);
          }
          o.onRecord(r);
        },
        onPhaseStart: o.onPhaseStart,
        phaseStart: "earliest",
        lossBeforeStart: "partial",
        describe: (i) => `index ${i}`,
      });
      let job: Job;
      try {
        job = await client.waitFor<Job>(kubePaths.jobs(ns), n.job, (j) => {
          settleFrom(j);
          return finished(j) !== undefined;
        });
        settleFrom(job);
        await Promise.all(settling);
        // Indexes the Job never ran to an end (its deadline): their streams end with what was uploaded.
        for (let i = 0; i < spec.shards; i++) {
          if (!settled.has(i)) await links.settle(i, "was ended with the Job");
        }
      } finally {
        links.close();
      }
      const merged = await merging;
      const condition = finished(job)!;
      const completed = parseIndexes(job.status?.completedIndexes);
      logger.info(
        `Job ${n.job}: ${condition.type} (${completed.length}/${spec.shards} indexes completed` +
          (job.status?.failedIndexes ? `, failed: ${job.status.failedIndexes}` : "") + ")",
      );
      const problems = [...links.problems];
      for (const p of problems) logger.error(p);
      const lostIndexes = new Set(merged.lost.map((l) => l.index));
      const whole = Array.from({ length: spec.shards }, (_, i) => i).filter((i) => !lostIndexes.has(i));
      const starts = merged.reports.flatMap((r) =>
        r.startEpochMs === undefined
          ? []
          : [{ index: r.index, startEpochMs: r.startEpochMs, latenessMs: r.latenessMs ?? 0 }]
      );
      const firsts = [...firstRequest.values()];
      const report: ClusterReport = {
        shards: spec.shards,
        merged: whole,
        notCompleted: Array.from({ length: spec.shards }, (_, i) => i).filter((i) => !completed.includes(i)),
        lost: merged.lost,
        problems,
        starts,
        startSpreadMs: firsts.length > 1 ? Math.max(...firsts) - Math.min(...firsts) : undefined,
        clocks: merged.reports.map((r) => ({
          index: r.index,
          offsetMs: r.clockOffsetMs ?? null,
          uncertaintyMs: r.clockUncertaintyMs ?? null,
        })),
        jobCondition: condition.type,
        partial: merged.lost.length > 0 || problems.length > 0,
      };
      onReport(report);
      return {
        shards: merged.outcomes,
        shardCount: spec.shards,
        lostShards: merged.lost,
        profilingStartedAt: merged.profilingStartedAt,
        profilingEndedAt: merged.profilingEndedAt,
      };
    } finally {
      if (!c.keep) await cleanUp(client, spec, logger);
      else logger.info(`--keep: the run's objects stay in namespace ${ns} (label ${RUN_LABEL}=${spec.run})`);
    }
  };
}

/**
 * Creates the run's objects. A suspended Job goes first, every other object is created owned by it (one deletion,
 * or the Job's TTL after it finished, removes them all, also when this process is gone), and then the Job is
 * resumed: no pod starts before its service account, role and configuration exist.
 */
export async function createRun(client: KubeClient, spec: KubeRunSpec, logger: Logger): Promise<void> {
  const ns = spec.namespace;
  const manifests = kubeManifests(spec);
  const job = manifests.find((m) => m.kind === "Job")!;
  const rest = manifests.filter((m) => m !== job);
  if (!spec.suspended) {
    for (const m of [...rest, job]) {
      await client.create(collectionOf(m.kind, ns), m);
      logger.debug(`created ${m.kind} ${ns}/${m.metadata.name}`);
    }
    return;
  }
  const created = await client.create<KubeObject>(collectionOf("Job", ns), job);
  logger.debug(`created Job ${ns}/${job.metadata.name} (suspended)`);
  for (const m of ownedBy(rest, { name: job.metadata.name, uid: created.metadata!.uid! })) {
    await client.create(collectionOf(m.kind, ns), m);
    logger.debug(`created ${m.kind} ${ns}/${m.metadata.name}`);
  }
  await client.mergePatch(`${kubePaths.jobs(ns)}/${job.metadata.name}`, { spec: { suspend: false } });
}

/**
 * Waits for every shard to be ready (or failed), then writes the start; why not, when stopped instead. A start
 * already written (`kube start` before `kube collect`) stands.
 */
export async function sharedStart(c: SharedStartOptions, signal: AbortSignal): Promise<string | undefined> {
  const { client, spec, logger } = c;
  const ns = spec.namespace;
  const n = names(spec.run);
  const cms = kubePaths.configMaps(ns);
  const startPath = `${cms}/${n.start}`;
  const deadline = Date.now() + c.readyTimeoutMs;
  let shown = -1;
  const events = new RunEvents(client, ns, spec.run, logger);
  let eventsAt = 0;
  let jobAt = 0;
  let failed = 0;
  let over = false;
  let cm = await client.get(startPath);
  while (!signal.aborted) {
    // Clock pings are answered as soon as they are seen: how long that takes bounds each shard's measurement.
    await answerClockPings(client, startPath, cm);
    const written = cm.metadata?.annotations?.[START_ANNOTATION];
    if (written !== undefined) {
      logger.info(`shared start already written: ${new Date(Number(written)).toISOString()}`);
      return undefined;
    }
    const ready = Object.keys(cm.metadata?.annotations ?? {}).filter((k) => k.startsWith(READY_ANNOTATION_PREFIX));
    if (Date.now() - jobAt >= 1000 || ready.length + failed >= spec.shards) {
      jobAt = Date.now();
      const job = await client.get<Job>(`${kubePaths.jobs(ns)}/${n.job}`);
      failed = parseIndexes(job.status?.failedIndexes).length;
      over = finished(job) !== undefined;
    }
    if (Date.now() - eventsAt >= 2000) {
      eventsAt = Date.now();
      await events.poll();
    }
    if (ready.length !== shown) {
      logger.info(`shards ready: ${ready.length}/${spec.shards}` + (failed ? ` (${failed} failed)` : ""));
      shown = ready.length;
    }
    if (ready.length > 0 && ready.length + failed >= spec.shards) {
      const startAt = performance.timeOrigin + performance.now() + c.startDelayMs;
      await client.mergePatch(startPath, { metadata: { annotations: { [START_ANNOTATION]: String(startAt) } } });
      logger.info(`shared start at ${new Date(startAt).toISOString()}`);
      return undefined;
    }
    // Every index failed before getting ready: the Job is over and reports why.
    if (over) return undefined;
    if (Date.now() > deadline) {
      return `only ${ready.length} of ${spec.shards} shards got ready in ${
        c.readyTimeoutMs / 1000
      } s (--ready-timeout)`;
    }
    cm = await nextVersion(client, cms, n.start, cm, signal);
  }
  return "interrupted before the shared start";
}

/** The object's next version from a watch, or the current one after at most a second without a change. */
async function nextVersion(
  client: KubeClient,
  collection: string,
  name: string,
  current: KubeObject,
  signal: AbortSignal,
): Promise<KubeObject> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    for await (
      const event of client.watch(collection, {
        resourceVersion: current.metadata?.resourceVersion,
        query: `fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`,
        signal: stop.signal,
        timeoutSeconds: 1,
      })
    ) {
      if (event.type === "MODIFIED" || event.type === "ADDED") return event.object;
      if (event.type === "ERROR") break;
    }
  } catch (err) {
    if (!(err instanceof KubeApiError) && !signal.aborted) throw err;
  } finally {
    stop.abort();
    signal.removeEventListener("abort", onAbort);
  }
  return signal.aborted ? current : await client.get(`${collection}/${name}`);
}

async function cleanUp(client: KubeClient, spec: KubeRunSpec, logger: Logger): Promise<void> {
  const ns = spec.namespace;
  const n = names(spec.run);
  const selector = encodeURIComponent(`${RUN_LABEL}=${spec.run}`);
  try {
    await client.delete(`${kubePaths.jobs(ns)}/${n.job}`);
    await client.request("DELETE", `${kubePaths.configMaps(ns)}?labelSelector=${selector}`);
    if (spec.serviceAccount === undefined) {
      await client.delete(`${kubePaths.roleBindings(ns)}/${n.account}`);
      await client.delete(`${kubePaths.roles(ns)}/${n.account}`);
      await client.delete(`${kubePaths.serviceAccounts(ns)}/${n.account}`);
    }
    logger.debug(`removed the run's objects from namespace ${ns}`);
  } catch (err) {
    const why = err instanceof KubeApiError ? err.message : String(err);
    logger.warning(
      `cleanup incomplete (${why}); remove with: kubectl -n ${ns} delete job,cm,sa,role,rolebinding -l ${RUN_LABEL}=${spec.run}`,
    );
  }
}
