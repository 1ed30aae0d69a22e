/**
 * Step 1 of a profile run: everything that can fail on input, with nothing sent — tokenizer, dataset, request
 * bodies, phases, metrics and goodput, engine layout, artifact paths, the outputs to write. It fails only with an
 * {@linkcode InputError} (exit 2, said once). The token-counting Worker starts here, and is handed to the open run
 * (or closed when planning fails); it loads its tokenizer at the run's first count.
 */
import type { ProfileConfig } from "../config/profile_config.ts";
import { toInputConfig } from "../config/input_config.ts";
import { METRIC_REGISTRY } from "../metrics/metric_registry.ts";
import { type ResolvedGoodput, resolveGoodput } from "../metrics/goodput.ts";
import type { MetricDef } from "../metrics/metric_def.ts";
import { type StartedTokenCounter, startTokenCounter } from "../tokenizer/token_counter.ts";
import type { Tokenizer } from "../tokenizer/tokenizer.ts";
import { phaseConcurrency } from "../timing/phase_spec.ts";
import { type ArtifactPaths, artifactPaths, resolveArtifactDir } from "../export/artifact_paths.ts";
import { type JsonObject, runInfoJson } from "../export/json_export.ts";
import { ensureFdLimit } from "../runtime/fd_limit.ts";
import { buildRunSpec, type RunSpec } from "./run_spec.ts";
import type { ResolvedEndpoint } from "./resolve_endpoint.ts";
import { defaultShards, engineLayout, FD_RESERVE, shardProcessProblem } from "./engine_layout.ts";
import { allowedCores } from "../runtime/thread_affinity.ts";
import { InputError } from "../base/input_error.ts";
import type { Output } from "./outputs/output.ts";
import { selectOutputs } from "./outputs/output_registry.ts";
import type { Logger } from "../ui/logger.ts";

/** Where the engine runs: shard count, threads or processes, cores. */
export interface EngineLayoutPlan {
  readonly shards: number;
  readonly asProcesses: boolean;
  /** CPUs the shards pin themselves to, when the machine has enough. */
  readonly cores?: readonly number[];
  readonly clientCores: string;
  readonly text: string;
}

/** A run, fully resolved and checked; executing it sends exactly what it describes. */
export interface RunPlan {
  readonly endpoint: ResolvedEndpoint;
  /** The parsed configuration with discovered model names filled in. */
  readonly config: ProfileConfig;
  readonly cliCommand: string;
  readonly workload: RunSpec;
  readonly metrics: readonly MetricDef[];
  readonly goodput: ResolvedGoodput;
  readonly layout: EngineLayoutPlan;
  readonly dir: string;
  readonly paths: ArtifactPaths;
  readonly benchmarkId: string;
  /** The JSON export's `input_config` (secrets removed). */
  readonly inputConfig: JsonObject;
  /** The JSON export's `run_info` as the API shows it before the run ends. */
  readonly runInfo: JsonObject;
  /** What the run writes, in writing order. */
  readonly outputs: readonly Output[];
  /** Things to say once the log file is open (the hint on cold code, an open-file shortage, …). */
  readonly notices: readonly { readonly level: "info" | "warning"; readonly text: string }[];
  /** The token-counting Worker, started, loading at the first count; undefined with `--use-server-token-count`. */
  readonly counter?: StartedTokenCounter;
  /** A tokenizer.json loaded here, whose full tables are cached after the run (`persist`). */
  readonly loadedTokenizer?: Tokenizer;
}

export interface PlanOptions {
  readonly logger: Logger;
  /** The model names to run with (given, or discovered from the server). */
  readonly modelNames: readonly string[];
  /** Ctrl-C: stops a long dataset build (an `InterruptedError`). */
  readonly signal?: AbortSignal;
}

export async function planRun(endpoint: ResolvedEndpoint, o: PlanOptions): Promise<RunPlan> {
  const { parsed } = endpoint;
  const config: ProfileConfig = o.modelNames === parsed.config.modelNames
    ? parsed.config
    : { ...parsed.config, modelNames: o.modelNames };
  const threadShards = config.workers ?? defaultShards({
    concurrency: config.concurrency,
    rate: config.requestRate,
    outputTokensMean: config.outputTokensMean,
  });
  // The counting Worker counts with the tables this thread loaded (shared memory), or loads its own on its own
  // thread. It is created now, before anything is sent: creating a Worker blocks this thread for ~12 ms while its
  // runtime is built, which would stamp the bytes of requests in flight late. Its tables load at the first count
  // (or before the first request where no core is free, execute_run.ts), not in the run's start.
  let counter: StartedTokenCounter | undefined;
  let loadedTokenizer: Tokenizer | undefined;
  try {
    const workload = await buildRunSpec({
      parsed,
      config,
      adapter: endpoint.adapter,
      streaming: endpoint.streaming,
      targets: endpoint.targets,
      logger: o.logger,
      signal: o.signal,
      onTokenizer: (tokenizerSpec, loaded) => {
        loadedTokenizer = loaded;
        if (config.useServerTokenCount) return;
        counter = startTokenCounter(tokenizerSpec, {
          workers: Math.ceil(threadShards / 4),
          loaded,
          load: "first-count",
        });
      },
    });
    // Session metrics only where a session is more than one request.
    const multiTurn = workload.totalTurns > workload.conversations.length;
    const accuracy = workload.accuracy !== undefined;
    const metrics = METRIC_REGISTRY.selectMetrics({ ...endpoint.selection, multiTurn, accuracy });
    const goodput = resolveGoodput(config.goodput, metrics);
    for (const w of goodput.warnings) o.logger.warning(w);
    const layout = planLayout(config, workload, threadShards);
    const dir = resolveArtifactDir(config);
    const benchmarkId = crypto.randomUUID();
    return {
      endpoint,
      config,
      cliCommand: parsed.redactedCommand,
      workload,
      metrics,
      goodput,
      layout: layout.plan,
      dir,
      paths: artifactPaths(dir, config.profileExportPrefix),
      benchmarkId,
      inputConfig: toInputConfig(config) as JsonObject,
      runInfo: runInfoJson({ randomSeed: workload.seed, cliCommand: parsed.redactedCommand }, benchmarkId),
      outputs: selectOutputs(config),
      notices: [
        ...workload.plans.notices.map((text) => ({ level: "info" as const, text })),
        ...workload.plans.warnings.map((text) => ({ level: "warning" as const, text })),
        ...layout.notices,
      ],
      counter,
      loadedTokenizer,
    };
  } catch (err) {
    counter?.close();
    throw err;
  }
}

/**
 * Every stream is a socket (file descriptor). One process holds at most its open-file limit: beyond that (or when
 * asked) the shards run as `infermeter shard` processes, each holding its share of the connections.
 */
function planLayout(config: ProfileConfig, workload: RunSpec, threadShards: number) {
  const notices: { level: "info" | "warning"; text: string }[] = [];
  const concurrency = phaseConcurrency(workload.plans.phases[workload.plans.phases.length - 1]);
  const sockets = (concurrency ?? 0) + 64;
  const fds = ensureFdLimit(sockets);
  const perProcess = fds === undefined ? Infinity : Math.max(256, fds.hard - FD_RESERVE);
  const asProcesses = config.workersMode === "processes" ||
    (config.workersMode === "auto" && fds !== undefined && sockets > fds.hard);
  const shards = asProcesses ? Math.max(threadShards, Math.ceil((concurrency ?? 0) / perProcess)) : threadShards;
  const problem = asProcesses
    ? shardProcessProblem({ shards, concurrency, perProcess }, {
      cores: allowedCores()?.length ?? navigator.hardwareConcurrency,
      fdLimit: fds?.soft ?? Number.MAX_SAFE_INTEGER,
    })
    : undefined;
  if (problem !== undefined) throw new InputError(problem);
  if (!asProcesses && fds !== undefined && fds.soft < sockets) {
    notices.push({
      level: "warning",
      text: `--concurrency ${concurrency} needs about ${sockets} open files, but this process may open only ` +
        `${fds.soft} (hard limit ${fds.hard}); connections beyond that fail with 'Too many open files'. Raise the ` +
        "limit (ulimit -n), lower the concurrency, or use --workers-mode processes.",
    });
  }
  if (workload.plans.phases.length === 1 && (concurrency ?? 0) >= 64) {
    notices.push({
      level: "info",
      text: `Hint: the first ${concurrency} requests run on cold code (JIT), which can add milliseconds to ` +
        `their timings; add --warmup-request-count ${concurrency} for steady-state figures.`,
    });
  }
  const layout = engineLayout(shards, asProcesses);
  if (shards > 1) notices.push({ level: "info", text: `Engine: ${layout.text}` });
  return { plan: { shards, asProcesses, ...layout }, notices };
}
