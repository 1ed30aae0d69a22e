/**
 * What every engine shard of a profile runs, built from the parsed options: tokenizer → dataset → prepared
 * conversations → load plans → ShardSpec. `profile` builds it once for its in-process shards; `infermeter shard`
 * builds it again in each shard process from the same options, and the same seed makes the dataset, the
 * conversation order and every shard's share of the schedule identical to the in-process ones.
 */
import type { ParsedProfile } from "../config/parse_profile_args.ts";
import type { ProfileConfig } from "../config/profile_config.ts";
import { loadDataset } from "../dataset/load_dataset.ts";
import type { EndpointAdapter } from "../endpoints/endpoint_adapter.ts";
import { type ChatMessage, loadChatTemplate } from "../tokenizer/chat_template.ts";
import { datasetShape } from "../engine/dataset_shape.ts";
import { bodySettings, prepareConversations, type PreparedConversation } from "../engine/prepared_conversation.ts";
import { endpointPath, requestHeaders } from "../engine/request_headers.ts";
import { requestPath } from "../endpoints/endpoint_adapter.ts";
import type { ShardSpec } from "../engine/run_shard.ts";
import { SeededRandom } from "../base/seeded_random.ts";
import type { Target } from "../transport/http_exchange.ts";
import {
  DEFAULT_TOKENIZER_SPEC,
  defaultTokenizerFor,
  resolveTokenizer,
  resolveTokenizerSpec,
} from "../tokenizer/load_tokenizer.ts";
import type { LazyTokenizer, Tokenizer } from "../tokenizer/tokenizer.ts";
import { type Logger, sinceStart } from "../ui/logger.ts";
import { InputError } from "../base/input_error.ts";
import { datasetOptions } from "./dataset_options.ts";
import { describeVideos, videosOn } from "../dataset/synthetic_video.ts";
import type { AccuracyGold } from "../dataset/accuracy/accuracy_gold.ts";
import { type LoadPlans, loadPlans } from "./load_plans.ts";

export interface RunSpec {
  readonly seed: number;
  /** What the tokenizer was resolved from (the counting Worker loads the same). */
  readonly tokenizerSpec: string;
  readonly tokenizer: LazyTokenizer;
  readonly conversations: readonly PreparedConversation[];
  readonly totalTurns: number;
  readonly plans: LoadPlans;
  /** Shard 0 of 1; other shards differ only in shardIndex, shardCount and workerId. */
  readonly spec: ShardSpec;
  /** The request path (after `--endpoint`). */
  readonly path: string;
  /** `--apply-chat-template` on an API with chat messages: renders a prompt built at send time for its ISL. */
  readonly renderInput?: (messages: readonly ChatMessage[]) => string;
  /** An accuracy benchmark's grading (`--accuracy-benchmark`). */
  readonly accuracy?: AccuracyGold;
}

export interface RunSpecContext {
  readonly parsed: ParsedProfile;
  /** The parsed config with discovered model names filled in. */
  readonly config: ProfileConfig;
  readonly adapter: EndpointAdapter;
  readonly streaming: boolean;
  readonly targets: readonly Target[];
  readonly logger: Logger;
  /**
   * Told the tokenizer spec as soon as it is known, before the dataset is built (start a counter beside it), with
   * the tokenizer when it was loaded here (a file tokenizer; the builtin one loads lazily).
   */
  readonly onTokenizer?: (tokenizerSpec: string, loaded: Tokenizer | undefined) => void;
  /** Stops loading and preparing the dataset (Ctrl-C): `InterruptedError` is thrown. */
  readonly signal?: AbortSignal;
}

export async function buildRunSpec(c: RunSpecContext): Promise<RunSpec> {
  const { parsed, config, adapter, streaming, logger } = c;
  const seed = config.randomSeed ?? crypto.getRandomValues(new Uint32Array(1))[0];
  const rng = new SeededRandom(seed);
  // The builtin tokenizer loads lazily: synthetic prompts from the bundled corpus come from a piece table, so on
  // the default path this thread never builds its tables (15–50 ms of start-up); a file tokenizer loads here.
  // Without --tokenizer, the model's own from the local Hugging Face cache (AIPerf's counts), else the builtin one.
  const auto = parsed.sources.tokenizer === "default"
    ? defaultTokenizerFor(config.modelNames[0], Deno.env.toObject(), config.tokenizerRevision)
    : undefined;
  if (auto !== undefined) logger.info(auto.notice);
  if (auto?.details !== undefined) logger.debug(auto.details);
  let tokenizerSpec: string;
  try {
    tokenizerSpec = auto?.spec ?? resolveTokenizerSpec(config.tokenizer, Deno.env.toObject(), config.tokenizerRevision);
  } catch (err) {
    throw new InputError((err as Error).message);
  }
  const tokenizer = await resolveTokenizer(tokenizerSpec).catch((err: Error) => {
    throw new InputError(err.message);
  });
  // A tokenizer.json runs on the fast byte-level BPE path or on @huggingface/tokenizers: say which.
  const loaded = tokenizerSpec !== DEFAULT_TOKENIZER_SPEC ? await tokenizer.load() : undefined;
  if (loaded?.engine !== undefined) logger.info(`Tokenizer ${tokenizer.name} runs on ${loaded.engine}`);
  const chatTemplate = config.applyChatTemplate
    ? await loadChatTemplate(config.tokenizer, config.modelNames[0]).catch((err: Error) => {
      throw new InputError(err.message);
    })
    : undefined;
  if (chatTemplate !== undefined) {
    logger.info(`ISL counts the chat template of ${chatTemplate.source}`);
    if (!adapter.chatMessages) {
      logger.warning(`--apply-chat-template has no effect on ${adapter.name}: its requests carry no chat messages.`);
    }
  }
  c.onTokenizer?.(tokenizerSpec, loaded);

  const loadOptions = datasetOptions(
    config,
    adapter.capabilities.syntheticInput === "rankings",
    (k) => parsed.sources[k] !== "default",
    adapter.capabilities.literalMessages === true,
  );
  const video = loadOptions.media?.video;
  const synthetic = loadOptions.inputFile === undefined && loadOptions.publicDataset === undefined &&
    loadOptions.accuracy === undefined;
  if (synthetic && videosOn(video)) logger.info(describeVideos(video));
  const dataset = await loadDataset({
    ...loadOptions,
    tokenizer,
    rng,
    signal: c.signal,
    warn: (message) => logger.warning(message),
  }).catch((err: Error) => {
    // Synthetic options that cannot go together (--seq-dist with --random-range-ratio, …) are input errors.
    throw err instanceof RangeError ? new InputError(err.message) : err;
  });
  if (dataset.conversations.length === 0) throw new InputError(`the dataset ${config.inputFile ?? ""} is empty.`);
  const settings = bodySettings({
    streaming,
    useLegacyMaxTokens: config.useLegacyMaxTokens,
    useServerTokenCount: config.useServerTokenCount,
    perChunkUsage: config.perChunkUsage,
    extraInputs: config.extraInputs,
  });
  const conversations = await prepareConversations(dataset, {
    ...settings,
    adapter,
    modelNames: config.modelNames,
    modelSelectionStrategy: config.modelSelectionStrategy,
    outputTokensMean: config.outputTokensMean,
    outputTokensStddev: config.outputTokensStddev,
    rng,
    tokenizer,
    chatTemplate,
    cacheBust: config.cacheBust,
    signal: c.signal,
  });
  logger.debug(`request bodies prepared ${sinceStart()}`);
  const totalTurns = conversations.reduce((n, conv) => n + conv.turns.length, 0);
  logger.info(
    `Dataset: ${totalTurns} ${dataset.source} entr${totalTurns === 1 ? "y" : "ies"}` +
      (totalTurns !== conversations.length ? ` in ${conversations.length} sessions` : "") +
      (config.inputFile ? ` from ${config.inputFile}` : "") + (dataset.description ? ` (${dataset.description})` : ""),
  );
  // The seed drawn for the run is the one the load plans sample with (agentic replay's start points).
  const plans = loadPlans({ ...config, randomSeed: seed }, datasetShape(conversations, dataset.source === "file"), {
    concurrency: parsed.sources.concurrency !== "default",
    fixedSchedule: parsed.sources.fixedSchedule !== "default",
    benchmarkGracePeriod: parsed.sources.benchmarkGracePeriod !== "default",
  });
  const target = c.targets[0];
  const path = endpointPath(config.customEndpoint ?? requestPath(adapter.capabilities, streaming));
  const spec: ShardSpec = {
    workerId: "worker_0",
    shardIndex: 0,
    shardCount: 1,
    endpointType: config.endpointType,
    path,
    explicitEndpoint: config.customEndpoint !== undefined,
    headers: requestHeaders(target, {
      endpointHeaders: adapter.headers({ streaming, apiKey: config.apiKey }),
      userHeaders: config.headers,
    }),
    timeoutMs: config.requestTimeoutSeconds * 1000,
    ...(config.sessionHeader === undefined ? {} : { sessionHeader: config.sessionHeader }),
    maxResponseBytes: config.maxResponseBytes,
    ...(config.downloadVideoContent ? { downloadContent: true } : {}),
    conversations,
    bodySettings: settings,
    keepRaw: config.exportLevel === "raw",
    keepBody: config.bundle,
    sampling: config.datasetSamplingStrategy ?? dataset.defaultSampling,
    seed,
    phases: plans.phases,
  };
  const renderInput = chatTemplate !== undefined && adapter.chatMessages !== undefined
    ? (messages: readonly ChatMessage[]) => chatTemplate.render(messages)
    : undefined;
  return {
    seed,
    tokenizerSpec,
    tokenizer,
    conversations,
    totalTurns,
    plans,
    spec,
    path,
    renderInput,
    ...(dataset.accuracy === undefined ? {} : { accuracy: dataset.accuracy }),
  };
}
