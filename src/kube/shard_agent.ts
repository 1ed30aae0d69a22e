/**
 * `infermeter kube shard`, the command of every shard pod: reads the run's configuration from its ConfigMap, runs
 * `infermeter shard --index $JOB_COMPLETION_INDEX --of N --start-at stdin -f <config>` as a child process, reports
 * ready on the start ConfigMap when the child is ready, hands it the start time once the coordinator has written
 * it, and, when the child is done, uploads the child's whole record stream (records_channel.ts). Exits with the
 * child's status, so a failed shard is a failed index.
 */
import type { Logger } from "../ui/logger.ts";
import { clientCommand } from "../runtime/self_command.ts";
import { readLines } from "../run/shard_stream.ts";
import { KubeClient, kubePaths } from "./kube_client.ts";
import { resolveKubeConfig } from "./kube_config.ts";
import { CONFIG_KEY, names, READY_ANNOTATION_PREFIX, START_ANNOTATION } from "./kube_manifests.ts";
import { gzip, recordChunkObjects } from "./records_channel.ts";

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
  const startPath = `${kubePaths.configMaps(ns)}/${n.start}`;
  try {
    const cm = await client.get<{ data?: Record<string, string> }>(`${kubePaths.configMaps(ns)}/${n.config}`);
    const of = Number(cm.data?.shards);
    const dir = await Deno.makeTempDir({ prefix: "infermeter-shard-" });
    const configFile = `${dir}/${CONFIG_KEY}`;
    await Deno.writeTextFile(configFile, cm.data?.[CONFIG_KEY] ?? "");
    const child = new Deno.Command(clientCommand.execPath, {
      args: [
        ...clientCommand.args,
        "shard",
        "--index",
        String(index),
        "--of",
        String(of),
        "--start-at",
        "stdin",
        "-f",
        configFile,
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const stdin = child.stdin.getWriter();
    const chunks: Uint8Array[] = [];
    const [forLines, forStore] = child.stdout.tee();
    const stored = (async () => {
      for await (const c of forStore) chunks.push(c);
    })();
    const abort = new AbortController();
    for await (const line of readLines(forLines)) {
      if (line !== '{"t":"ready"}') continue;
      await client.mergePatch(startPath, {
        metadata: { annotations: { [`${READY_ANNOTATION_PREFIX}${index}`]: pod } },
      });
      logger.info(`shard ${index}: ready; waiting for the shared start`);
      const withStart = await client.waitFor(
        kubePaths.configMaps(ns),
        n.start,
        (o) => o.metadata?.annotations?.[START_ANNOTATION] !== undefined,
        abort.signal,
      );
      const startAt = Number(withStart.metadata!.annotations![START_ANNOTATION]);
      await stdin.write(new TextEncoder().encode(JSON.stringify({ t: "start", epochMs: startAt }) + "\n"));
      logger.info(`shard ${index}: starts at ${new Date(startAt).toISOString()}`);
    }
    await stored;
    const status = await child.status;
    await stdin.close().catch(() => {});
    const stream = new Uint8Array(chunks.reduce((s, c) => s + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      stream.set(c, at);
      at += c.length;
    }
    const owner = await client.get(startPath);
    const objects = await recordChunkObjects({
      run,
      namespace: ns,
      index,
      pod,
      gzipped: await gzip(stream),
      owner: { name: n.start, uid: owner.metadata!.uid! },
    });
    for (const o of objects) await client.create(kubePaths.configMaps(ns), o);
    logger.info(`shard ${index}: ${stream.length} bytes of records in ${objects.length} ConfigMap(s)`);
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    return status.code;
  } finally {
    client.close();
  }
}
