/**
 * The dataset options of a profile run, read from its configuration in one place, so every command that builds a
 * dataset builds the same one.
 */
import type { ProfileConfig } from "../config/profile_config.ts";
import type { LoadDatasetOptions } from "../dataset/load_dataset.ts";
import { parseSequenceDistribution } from "../dataset/sequence_distribution.ts";
import { parseRangeRatio } from "../dataset/range_ratio.ts";
import { InputError } from "../base/input_error.ts";
import type { AudioFormat, ImageFormat } from "../dataset/synthetic_media.ts";

/** A list option's items as positive numbers (`16,44.1` or repeated flags). */
function numbers(flag: string, items: readonly string[]): number[] {
  return items.map((item) => {
    const n = Number(item);
    if (!(n > 0)) throw new InputError(`${flag}: '${item}' is not a positive number`);
    return n;
  });
}

/**
 * The verbatim system prompt: `--system-prompt`, or the text of `--system-prompt-file` read now (AIPerf reads it
 * once at start, so a missing file fails before anything is sent).
 * @throws {InputError} when the file cannot be read or is empty.
 */
function systemPromptOf(config: ProfileConfig): string | undefined {
  if (config.systemPromptFile === undefined) return config.systemPrompt;
  let text: string;
  try {
    text = Deno.readTextFileSync(config.systemPromptFile);
  } catch (error) {
    throw new InputError(
      `--system-prompt-file ${config.systemPromptFile}: cannot be read (${(error as Error).message})`,
    );
  }
  if (text.trim() === "") throw new InputError(`--system-prompt-file ${config.systemPromptFile} is empty`);
  return text;
}

/**
 * @param rankings the endpoint takes rankings tasks (a query and passages), synthesized per the `--rankings-*` options
 * @param given whether an option was given (not its default): `--accuracy-enable-cot` unset means the benchmark's
 * default
 * @param chatMessages the endpoint sends chat messages as written (an accuracy benchmark's few-shot turns)
 * @throws {InputError} for a malformed --seq-dist or --random-range-ratio.
 */
export function datasetOptions(
  config: ProfileConfig,
  rankings = false,
  given: (key: keyof ProfileConfig) => boolean = () => true,
  chatMessages = true,
): LoadDatasetOptions {
  if (config.datasetFilter.length > 0 && !(config.publicDataset ?? "").startsWith("exgentic")) {
    // AIPerf passes filters only to public datasets that declare them (its exgentic ones); others are refused.
    throw new InputError(
      `--dataset-filter ${config.datasetFilter.join(",")}: --public-dataset ${config.publicDataset} takes no ` +
        "filters (only exgentic and exgentic_v2 declare some); remove it.",
    );
  }
  let seqDist, rangeRatio;
  try {
    seqDist = config.seqDist === undefined ? undefined : parseSequenceDistribution(config.seqDist);
    rangeRatio = config.randomRangeRatio === undefined ? undefined : parseRangeRatio(config.randomRangeRatio);
  } catch (err) {
    throw new InputError((err as Error).message);
  }
  return {
    accuracy: config.accuracyBenchmark === undefined ? undefined : {
      benchmark: config.accuracyBenchmark,
      tasks: config.accuracyTasks !== undefined && config.accuracyTasks.length > 0 ? config.accuracyTasks : undefined,
      nShots: config.accuracyNShots,
      enableCot: given("accuracyEnableCot") ? config.accuracyEnableCot : undefined,
      grader: config.accuracyGrader,
      systemPrompt: config.accuracySystemPrompt,
      verbose: config.accuracyVerbose,
      extraInputs: config.extraInputs,
      chatMessages,
    },
    seqDist,
    rangeRatio,
    promptCorpus: config.promptCorpus,
    inputFile: config.inputFile,
    strict: config.strictDataset,
    publicDataset: config.publicDataset,
    publicDatasetLimit: config.requestCount ?? config.conversationNum,
    hfSubset: config.hfSubset,
    customDatasetType: config.customDatasetType,
    numEntries: config.conversationNum ?? config.numDatasetEntries,
    islMean: config.syntheticInputTokensMean,
    islStddev: config.syntheticInputTokensStddev,
    oslMean: config.outputTokensMean,
    oslStddev: config.outputTokensStddev,
    turnMean: config.conversationTurnMean,
    turnStddev: config.conversationTurnStddev,
    turnDelayMean: config.conversationTurnDelayMean,
    turnDelayStddev: config.conversationTurnDelayStddev,
    turnDelayRatio: config.conversationTurnDelayRatio,
    ignoreTraceDelays: config.ignoreTraceDelays,
    turnDelayCapMs: config.interTurnDelayCapSeconds === undefined ? undefined : config.interTurnDelayCapSeconds * 1000,
    systemPrompt: systemPromptOf(config),
    loaderOptions: config as unknown as Readonly<Record<string, unknown>>,
    conversationNum: config.conversationNum,
    batchSize: config.promptBatchSize,
    sharedSystemPromptLength: config.sharedSystemPromptLength,
    userContextPromptLength: config.userContextPromptLength,
    prefixPoolSize: config.promptPrefixPoolSize,
    prefixLength: config.promptPrefixLength,
    media: {
      image: {
        widthMean: config.imageWidthMean,
        widthStddev: config.imageWidthStddev,
        heightMean: config.imageHeightMean,
        heightStddev: config.imageHeightStddev,
        format: config.imageFormat as ImageFormat,
        batchSize: config.imageBatchSize,
      },
      audio: {
        lengthMean: config.audioLengthMean,
        lengthStddev: config.audioLengthStddev,
        format: config.audioFormat as AudioFormat,
        sampleRatesKhz: numbers("--audio-sample-rates", config.audioSampleRates),
        depths: numbers("--audio-depths", config.audioDepths),
        channels: config.audioNumChannels,
        batchSize: config.audioBatchSize,
      },
      video: {
        batchSize: config.videoBatchSize,
        durationS: config.videoDuration,
        fps: config.videoFps,
        width: config.videoWidth,
        height: config.videoHeight,
        synthType: config.videoSynthType,
        format: config.videoFormat,
        codec: config.videoCodec,
        // AIPerf's rule: a rate above 96 is in Hz.
        audioSampleRateKhz: config.videoAudioSampleRate > 96
          ? config.videoAudioSampleRate / 1000
          : config.videoAudioSampleRate,
        audioChannels: config.videoAudioNumChannels,
        audioCodec: config.videoAudioCodec,
        audioDepth: Number(config.videoAudioDepth),
      },
    },
    rankings: rankings
      ? {
        passagesMean: config.rankingsPassagesMean,
        passagesStddev: config.rankingsPassagesStddev,
        passageTokensMean: config.rankingsPassagesPromptTokenMean,
        passageTokensStddev: config.rankingsPassagesPromptTokenStddev,
        queryTokensMean: config.rankingsQueryPromptTokenMean,
        queryTokensStddev: config.rankingsQueryPromptTokenStddev,
      }
      : undefined,
  };
}
