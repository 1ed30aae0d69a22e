/**
 * The dataset options of a profile run, read from its configuration in one place, so every command that builds a
 * dataset builds the same one.
 */
import type { ProfileConfig } from "../config/profile_config.ts";
import type { LoadDatasetOptions } from "../dataset/load_dataset.ts";

/** @param rankings the endpoint takes rankings tasks (a query and passages), synthesized per the `--rankings-*` options */
export function datasetOptions(config: ProfileConfig, rankings = false): LoadDatasetOptions {
  return {
    inputFile: config.inputFile,
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
