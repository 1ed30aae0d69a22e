/**
 * `infermeter kube shard`, the command of every shard pod: reads the run's profile configuration from its
 * ConfigMap and hosts shard $JOB_COMPLETION_INDEX of N in this process (run/run_shard_process.ts, the same host
 * loop as every shard), over the Kubernetes transport (records_channel.ts): ready and the shared start through
 * the start ConfigMap, records uploaded in chunks during the run, and the last chunk on the way out — also on
 * SIGTERM, within the pod's grace period. Exits 0 when the shard ran (stopped early or not), 70 when it failed,
 * so a failed shard is a failed index.
 */
import type { Logger } from "../ui/logger.ts";
import { ConfigError } from "../config/config_error.ts";
import { parseProfileArgs } from "../config/parse_profile_args.ts";
import { runShardProcess } from "../run/run_shard_process.ts";
import { KubeClient, kubePaths } from "./kube_client.ts";
import { resolveKubeConfig } from "./kube_config.ts";
import { CONFIG_KEY, names } from "./kube_manifests.ts";
import { kubeShardChannel, UPLOAD_INTERVAL_MS } from "./records_channel.ts";

export async function runShardAgent(
  env: Readonly<Record<string, string | undefined>>,
  logger: Logger,
): Promise<number> {
  const run = env.INFERMETER_KUBE_RUN;
  const ns = env.INFERMETER_KUBE_NAMESPACE;
  const pod = env.INFERMETER_KUBE_POD ?? env.HOSTNAME ?? "shard";
  const index = Number(env.JOB_COMPLETION_INDEX);
  if (!run || !ns || !Number.isInteger(index)) {
    logger.error(
      "kube shard runs in a pod of an infermeter Job (INFERMETER_KUBE_RUN, _NAMESPACE, JOB_COMPLETION_INDEX)",
    );
    return 2;
  }
  const client = new KubeClient(await resolveKubeConfig({ env }));
  const n = names(run);
  const cms = kubePaths.configMaps(ns);
  const stop = new AbortController();
  let stoppedBy = "a signal";
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  const listeners = signals.map((name) => {
    const listener = () => {
      if (!stop.signal.aborted) stoppedBy = name;
      stop.abort();
    };
    Deno.addSignalListener(name, listener);
    return [name, listener] as const;
  });
  const dir = await Deno.makeTempDir({ prefix: "infermeter-shard-" }).catch(() => undefined);
  try {
    const cm = await client.get<{ data?: Record<string, string> }>(`${cms}/${n.config}`);
    const start = await client.get(`${cms}/${n.start}`);
    const of = Number(cm.data?.shards);
    const interval = Number(cm.data?.uploadIntervalMs ?? UPLOAD_INTERVAL_MS);
    // The configuration is read as a file (`-f`), so its relative paths and errors read as the user's YAML would.
    const configFile = dir === undefined ? undefined : `${dir}/${CONFIG_KEY}`;
    if (configFile !== undefined) await Deno.writeTextFile(configFile, cm.data?.[CONFIG_KEY] ?? "");
    let parsed;
    try {
      parsed = await parseProfileArgs(configFile === undefined ? [] : ["-f", configFile], {
        env: { ...env },
        readTextFile: Deno.readTextFileSync,
        isTty: false,
      });
    } catch (err) {
      if (err instanceof ConfigError) {
        logger.error(`shard ${index}: the run's configuration: ${err.message}`);
        return 2;
      }
      throw err;
    }
    const channel = kubeShardChannel({
      api: client,
      run,
      namespace: ns,
      index,
      pod,
      ownerUid: start.metadata?.uid,
      intervalMs: Number.isFinite(interval) && interval > 0 ? interval : UPLOAD_INTERVAL_MS,
      logger,
    });
    logger.info(`shard ${index} of ${of}: preparing; records upload every ${interval / 1000} s`);
    const end = await runShardProcess(parsed, {
      index,
      of,
      startAt: { kind: "control" },
      logger,
      stop: stop.signal,
      stopReason: () => stoppedBy,
      preconnect: true,
      channel,
    });
    logger.info(`shard ${index}: ${end}${stop.signal.aborted ? ` (stopped by ${stoppedBy})` : ""}`);
    return end === "done" ? 0 : 70;
  } finally {
    for (const [name, listener] of listeners) Deno.removeSignalListener(name, listener);
    if (dir !== undefined) await Deno.remove(dir, { recursive: true }).catch(() => {});
    client.close();
  }
}
