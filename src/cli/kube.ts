/**
 * `infermeter kube generate|run|start|collect|shard`: parses the kube options (kube_command.ts) and the profile options, and maps
 * the outcome to an exit code. The work is in src/kube/ (manifests, client, cluster engine, shard agent) and
 * src/run/ (the profile run the merged records go through).
 */
import { ConfigError } from "../config/config_error.ts";
import { parseCommandArgs } from "../config/parse_command_args.ts";
import { isHelpRequest } from "../config/read_cli_args.ts";
import { renderHelp } from "../config/render_help.ts";
import { type ParsedProfile, parseProfileArgs } from "../config/parse_profile_args.ts";
import { Logger, STDERR_SINK } from "../ui/logger.ts";
import { InputError } from "../base/input_error.ts";
import { joinPath } from "../runtime/file_path.ts";
import { runProfileRun } from "../run/profile_run.ts";
import { KUBE_COMMAND, KUBE_OPTIONS } from "./kube_command.ts";
import { EXIT } from "./exit_codes.ts";
import { PROFILE_EXIT } from "./profile_exit.ts";
import { KubeConfigError, resolveKubeConfig } from "../kube/kube_config.ts";
import { KubeApiError, KubeClient, kubePaths } from "../kube/kube_client.ts";
import {
  CONFIG_KEY,
  defaultShardResources,
  kubeManifests,
  type KubeRunSpec,
  manifestsYaml,
  names as runNames,
  newRunName,
  parseToleration,
  type Toleration,
  validateRunSpec,
} from "../kube/kube_manifests.ts";
import { shardConfigYaml } from "../kube/shard_config.ts";
import { clusterEngine, type ClusterReport, sharedStart } from "../kube/cluster_engine.ts";
import { runShardAgent } from "../kube/shard_agent.ts";
import { kubePreflight } from "../kube/kube_preflight.ts";
import { describeLostShards } from "../engine/coordinate_shards.ts";
import { VERSION } from "../base/version.ts";

/** Splits the words into the kube options' and the profile's. */
export function splitKubeArgs(args: readonly string[]): { kube: string[]; profile: string[] } {
  const arity = new Map<string, boolean>();
  for (const o of KUBE_OPTIONS) for (const f of o.flags) arity.set(f, o.type !== "bool");
  for (const o of KUBE_OPTIONS) if (o.type === "bool") arity.set(`--no-${o.flags[0].slice(2)}`, false);
  const kube: string[] = [];
  const profile: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const flag = args[i].split("=", 1)[0];
    const takes = arity.get(flag);
    if (takes === undefined) profile.push(args[i]);
    else {
      kube.push(args[i]);
      if (takes && !args[i].includes("=") && i + 1 < args.length) kube.push(args[++i]);
    }
  }
  return { kube, profile };
}

export async function runKube(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || isHelpRequest(args) || !["generate", "run", "start", "collect", "shard"].includes(sub)) {
    console.log(renderHelp(KUBE_COMMAND));
    return sub === undefined || isHelpRequest(args) ? EXIT.OK : EXIT.USAGE;
  }
  if (sub === "shard") {
    const logger = new Logger("INFO", STDERR_SINK);
    return await runShardAgent(Deno.env.toObject(), logger);
  }
  const isTty = Deno.stderr.isTerminal();
  if (sub === "start" || sub === "collect") return await runAttached(sub, rest, isTty);
  let parsed: ParsedProfile;
  let spec: KubeRunSpec;
  let options;
  try {
    const split = splitKubeArgs(rest);
    const kube = parseCommandArgs(KUBE_COMMAND, split.kube);
    options = kube.values;
    const profileArgs = [...split.profile];
    // Every shard must build the same dataset and schedule: one seed for all, drawn here when not given.
    if (!profileArgs.some((a) => a === "--random-seed" || a.startsWith("--random-seed="))) {
      profileArgs.push("--random-seed", String(crypto.getRandomValues(new Uint32Array(1))[0] % 1_000_000_000));
    }
    parsed = await parseProfileArgs(profileArgs, {
      env: Deno.env.toObject(),
      readTextFile: Deno.readTextFileSync,
      isTty,
    });
    if (parsed.config.modelNames.length === 0) {
      throw new ConfigError(["kube needs --model: the shards, not this process, reach the server."]);
    }
    if (parsed.config.apiKey !== undefined && options.apiKeySecret === undefined) {
      throw new ConfigError([
        "--api-key would have to be written into a manifest; store it in a Secret and give --api-key-secret " +
        "<secret>[:<key>] instead.",
      ]);
    }
    let namespace = options.namespace;
    if (namespace === undefined && sub === "run") {
      namespace = (await resolveKubeConfig({ kubeconfig: options.kubeconfig, context: options.context })).namespace;
    }
    spec = await runSpecOf(parsed, options, namespace ?? "default", sub === "run");
    const problems = validateRunSpec(spec);
    if (problems.length > 0) throw new ConfigError(problems);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof InputError || err instanceof KubeConfigError) {
      console.error(`error: ${err.message}`);
      return EXIT.USAGE;
    }
    throw err;
  }
  if (sub === "generate") {
    // A comment kubectl ignores: what starts the applied shards (they wait for a start only a coordinator writes).
    console.log(
      `# infermeter run ${spec.run}: after applying, start and collect it with\n` +
        `#   infermeter kube collect --run-name ${spec.run} -n ${spec.namespace}`,
    );
    console.log((await manifestsYaml(kubeManifests(spec))).trimEnd());
    return EXIT.OK;
  }
  return await coordinate(parsed, spec, options, { apply: true, isTty });
}

type KubeValues = ReturnType<typeof parseCommandArgs<typeof KUBE_OPTIONS>>["values"];

/** The run's objects as the options describe them. */
async function runSpecOf(
  parsed: ParsedProfile,
  options: KubeValues,
  namespace: string,
  coordinated: boolean,
): Promise<KubeRunSpec> {
  const config = parsed.config;
  const [secretName, secretKey] = (options.apiKeySecret ?? "").split(":");
  const nodeSelector: Record<string, string> = {};
  for (const pair of options.nodeSelector ?? []) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new ConfigError([`--node-selector ${pair}: give key=value`]);
    nodeSelector[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  let tolerations: Toleration[];
  try {
    tolerations = (options.tolerations ?? []).map(parseToleration);
  } catch (err) {
    throw new ConfigError([(err as Error).message]);
  }
  let affinity: Record<string, unknown> | undefined;
  if (options.affinityFile !== undefined) {
    let text: string;
    try {
      text = await Deno.readTextFile(options.affinityFile);
    } catch (err) {
      throw new ConfigError([`--affinity-file ${options.affinityFile}: ${(err as Error).message}`]);
    }
    const yaml = await import("js-yaml");
    const v = yaml.load(text) as Record<string, unknown> | null;
    const object = v !== null && typeof v === "object" && "affinity" in v ? v.affinity : v;
    const keys = ["nodeAffinity", "podAffinity", "podAntiAffinity"];
    if (object === null || typeof object !== "object" || Array.isArray(object)) {
      throw new ConfigError([`--affinity-file ${options.affinityFile}: not an affinity object`]);
    }
    const unknown = Object.keys(object).filter((k) => !keys.includes(k));
    if (unknown.length > 0) {
      throw new ConfigError([
        `--affinity-file ${options.affinityFile}: unknown key ${unknown.join(", ")} (an affinity has ${
          keys.join(", ")
        })`,
      ]);
    }
    affinity = object as Record<string, unknown>;
  }
  const streams = Math.ceil((config.concurrency ?? 64) / options.shards);
  const sized = defaultShardResources(streams);
  return {
    run: options.runName ?? newRunName(),
    namespace,
    shards: options.shards,
    image: options.image,
    imagePullPolicy: options.imagePullPolicy,
    command: options.shardCommand?.length ? options.shardCommand : undefined,
    configYaml: shardConfigYaml(parsed),
    apiKeySecret: options.apiKeySecret ? { name: secretName, key: secretKey || "api-key" } : undefined,
    resources: { cpu: options.shardCpu ?? sized.cpu, memory: options.shardMemory ?? sized.memory },
    activeDeadlineSeconds: options.activeDeadline ?? defaultDeadlineSeconds(config, options.readyTimeout),
    ttlSecondsAfterFinished: options.ttlAfterFinished,
    placement: options.placement as "spread" | "pack",
    nodeSelector,
    tolerations,
    affinity,
    imagePullSecrets: options.imagePullSecrets ?? [],
    serviceAccount: options.serviceAccount,
    uploadIntervalMs: Math.round(options.uploadInterval * 1000),
    version: VERSION,
    suspended: coordinated,
  };
}

/**
 * How long the Job may run: a run bounded by time, its warm-up and grace periods, plus the wait for the shards and
 * 5 minutes; one bounded by a request count, an hour plus that wait (--active-deadline sets it).
 */
function defaultDeadlineSeconds(config: ParsedProfile["config"], readyTimeoutS: number): number {
  const finite = (v: number | undefined) => v !== undefined && Number.isFinite(v) ? v : undefined;
  const duration = finite(config.benchmarkDuration);
  if (duration === undefined) return readyTimeoutS + 3600;
  const grace = finite(config.benchmarkGracePeriod) ?? 3600;
  const warmup = (finite(config.warmupDuration) ?? 0) + (finite(config.warmupGracePeriod) ?? 0);
  return Math.ceil(readyTimeoutS + warmup + duration + grace + 300);
}

/**
 * `kube start` and `kube collect`, for a run whose manifests were applied without `kube run` (`kube generate |
 * kubectl apply -f -`): start writes the shared start once every shard is ready; collect does that unless done,
 * then follows the Job, merges the records into the usual artifacts and removes the objects (--keep leaves them).
 * The profile configuration is the run's own ConfigMap's; profile options given here (e.g. --artifact-dir) add to it.
 */
async function runAttached(sub: "start" | "collect", rest: string[], isTty: boolean): Promise<number> {
  const split = splitKubeArgs(rest);
  let options: KubeValues;
  let client: KubeClient;
  let namespace: string;
  try {
    options = parseCommandArgs(KUBE_COMMAND, split.kube).values;
    if (options.runName === undefined) {
      throw new ConfigError([`kube ${sub} needs --run-name: the name the manifests were generated with.`]);
    }
    if (sub === "start" && split.profile.length > 0) {
      throw new ConfigError([`kube start takes no profile options (${split.profile.join(" ")})`]);
    }
    const config = await resolveKubeConfig({ kubeconfig: options.kubeconfig, context: options.context });
    namespace = options.namespace ?? config.namespace ?? "default";
    client = new KubeClient(config);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof KubeConfigError) {
      console.error(`error: ${err.message}`);
      return EXIT.USAGE;
    }
    throw err;
  }
  const run = options.runName;
  const n = runNames(run);
  const logger = new Logger("INFO", STDERR_SINK);
  try {
    const cm = await client.tryGet<{ data?: Record<string, string> }>(`${kubePaths.configMaps(namespace)}/${n.config}`);
    const job = await client.tryGet(`${kubePaths.jobs(namespace)}/${n.job}`);
    if (cm === undefined || job === undefined) {
      logger.error(
        `no run '${run}' in namespace ${namespace} (${cm === undefined ? `ConfigMap ${n.config}` : `Job ${n.job}`} ` +
          "not found); apply its manifests first: infermeter kube generate … | kubectl apply -f -",
      );
      return EXIT.USAGE;
    }
    const shards = Number(cm.data?.shards);
    if (sub === "start") {
      const stop = new AbortController();
      const why = await sharedStart({
        client,
        spec: { run, namespace, shards },
        logger,
        readyTimeoutMs: options.readyTimeout * 1000,
        startDelayMs: options.startDelay * 1000,
      }, stop.signal);
      if (why === undefined) return EXIT.OK;
      logger.error(`no start written: ${why}`);
      return EXIT.REQUESTS_FAILED;
    }
    const configYaml = cm.data?.[CONFIG_KEY] ?? "";
    const dir = await Deno.makeTempDir({ prefix: "infermeter-kube-" });
    let parsed: ParsedProfile;
    try {
      await Deno.writeTextFile(`${dir}/${CONFIG_KEY}`, configYaml);
      parsed = await parseProfileArgs(["-f", `${dir}/${CONFIG_KEY}`, ...split.profile], {
        env: Deno.env.toObject(),
        readTextFile: Deno.readTextFileSync,
        isTty,
      });
    } catch (err) {
      if (err instanceof ConfigError || err instanceof InputError) {
        logger.error(`the run's configuration (ConfigMap ${n.config}) with the options given: ${err.message}`);
        return EXIT.USAGE;
      }
      throw err;
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
    const spec: KubeRunSpec = { run, namespace, shards, image: "", configYaml };
    return await coordinate(parsed, spec, options, { apply: false, isTty, client });
  } catch (err) {
    if (err instanceof KubeApiError) {
      logger.error(`Kubernetes API: ${err.message}`);
      return EXIT.UNREACHABLE;
    }
    throw err;
  } finally {
    client.close();
  }
}

/** Runs the profile with the cluster as its engine (kube run, kube collect) and maps the outcome to an exit code. */
async function coordinate(
  parsed: ParsedProfile,
  spec: KubeRunSpec,
  options: KubeValues,
  o: { apply: boolean; isTty: boolean; client?: KubeClient },
): Promise<number> {
  const isTty = o.isTty;
  const logger = new Logger(parsed.config.logLevel, STDERR_SINK);
  for (const w of parsed.warnings) logger.warning(w);
  const stop = new AbortController();
  const names: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  const onSignal = () => stop.abort();
  for (const name of names) Deno.addSignalListener(name, onSignal);
  let client: KubeClient | undefined = o.client;
  try {
    client ??= new KubeClient(await resolveKubeConfig({ kubeconfig: options.kubeconfig, context: options.context }));
    if (o.apply && options.preflight) {
      let checked;
      try {
        checked = await kubePreflight(client, spec);
      } catch (err) {
        if (err instanceof TypeError) {
          logger.error(`the Kubernetes API cannot be reached: ${err.message}`);
          return EXIT.UNREACHABLE;
        }
        throw err;
      }
      for (const note of checked.notes) logger.warning(`preflight: ${note}`);
      if (checked.problems.length > 0) {
        for (const p of checked.problems) logger.error(`preflight: ${p}`);
        logger.error("nothing was created (--no-preflight skips these checks).");
        return EXIT.USAGE;
      }
      logger.info(
        `preflight: Kubernetes ${checked.serverVersion ?? "?"}, namespace ${spec.namespace}` +
          (checked.podSecurity ? ` (Pod Security: ${checked.podSecurity})` : "") + ", every right needed: ok",
      );
    }
    let report: ClusterReport | undefined;
    const engine = clusterEngine({
      client,
      spec,
      logger,
      keep: options.keep,
      apply: o.apply,
      readyTimeoutMs: options.readyTimeout * 1000,
      startDelayMs: options.startDelay * 1000,
    }, (r) => report = r);
    const outcome = await runProfileRun(parsed, { logger, isTty, stop: stop.signal, engine });
    if (report !== undefined) {
      await Deno.writeTextFile(joinPath(outcome.artifactDir, "kube_run.json"), JSON.stringify(report, null, 2) + "\n");
      const lateness = report.starts.map((s) => s.latenessMs);
      if (lateness.length > 0) {
        const measured = (report.clocks ?? []).filter((c) => c.uncertaintyMs !== null);
        const bound = measured.length > 0 ? Math.max(...measured.map((c) => c.uncertaintyMs!)) : undefined;
        logger.info(
          `shared start: ${report.starts.length} shards, lateness max ${Math.max(...lateness).toFixed(2)} ms` +
            (report.startSpreadMs !== undefined
              ? `, first requests spread over ${report.startSpreadMs.toFixed(2)} ms`
              : "") +
            (bound !== undefined
              ? ` (on this machine's clock; ${measured.length} shard clock offsets measured, ± ${bound.toFixed(1)} ms)`
              : " (shard clock offsets not measured: each shard's own clock)"),
        );
      }
      if (report.partial) {
        // Said again after the tables, so the last line a user reads is not "completed successfully".
        const lost = report.lost.length > 0 ? describeLostShards(report.lost, report.shards, "index") : "";
        logger.error(
          (lost || `partial run: ${report.merged.length} of ${report.shards} shards ran to their end.`) +
            (report.problems.length > 0 ? ` Problems: ${report.problems.join("; ")}.` : "") +
            ` Results: ${outcome.artifactDir}.`,
        );
        return EXIT.REQUESTS_FAILED;
      }
    }
    return PROFILE_EXIT[outcome.end];
  } catch (err) {
    if (err instanceof InputError || err instanceof KubeConfigError) {
      logger.error(err.message);
      return EXIT.USAGE;
    }
    if (err instanceof KubeApiError) {
      logger.error(`Kubernetes API: ${err.message}`);
      return EXIT.UNREACHABLE;
    }
    logger.error(`internal error: ${(err as Error).message}`);
    if (err instanceof Error && err.stack) logger.debug(err.stack);
    return EXIT.INTERNAL;
  } finally {
    if (o.client === undefined) client?.close();
    for (const name of names) Deno.removeSignalListener(name, onSignal);
  }
}
