/**
 * The dataset options of a profile run, read from its configuration in one place, so every command that builds a
 * dataset builds the same one.
 */
import type { ProfileConfig } from "../config/profile_config.ts";
import type { LoadDatasetOptions } from "../dataset/load_dataset.ts";
import { parseSequenceDistribution } from "../dataset/sequence_distribution.ts";
import { parseRangeRatio } from "../dataset/range_ratio.ts";
import { InputError } from "../base/input_error.ts";

/**
 * @param rankings the endpoint takes rankings tasks (a query and passages), synthesized per the `--rankings-*` options
 * @throws {InputError} for a malformed --seq-dist or --random-range-ratio.
 */
export function datasetOptions(config: ProfileConfig, rankings = false): LoadDatasetOptions {
  let seqDist, rangeRatio;
  try {
    seqDist = config.seqDist === undefined ? undefined : parseSequenceDistribution(config.seqDist);
    rangeRatio = config.randomRangeRatio === undefined ? undefined : parseRangeRatio(config.randomRangeRatio);
  } catch (err) {
    throw new InputError((err as Error).message);
  }
  return {
    seqDist,
    rangeRatio,
    promptCorpus: config.promptCorpus,
    inputFile: config.inputFile,
    publicDataset: config.publicDataset,
    publicDatasetLimit: config.requestCount ?? config.conversationNum,
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
    blockSize: config.islBlockSize,
    conversationNum: config.conversationNum,
    batchSize: config.promptBatchSize,
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
