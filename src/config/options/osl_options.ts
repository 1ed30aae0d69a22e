/** `profile` options of the "Output Sequence Length (OSL)" group: how many tokens each request asks the model to produce. */
import { MAX_PROMPT_TOKENS } from "../../dataset/dataset_limits.ts";
import { optionGroup } from "./option_group.ts";

export const OSL_OPTIONS = optionGroup("Output Sequence Length (OSL)", [
  {
    key: "outputTokensMean",
    type: "int",
    min: 1,
    max: MAX_PROMPT_TOKENS,
    flags: ["--prompt-output-tokens-mean", "--output-tokens-mean", "--osl"],
    common: true,
    metavar: "<tokens>",
    yaml: ["benchmark.dataset.prompts.osl.mean"],
    defaultDescription: "not sent; the server decides",
    help: "Mean number of output tokens requested per response (sent as the max-tokens field).",
  },
  {
    key: "outputTokensStddev",
    type: "float",
    default: 0,
    min: 0,
    max: MAX_PROMPT_TOKENS,
    flags: ["--prompt-output-tokens-stddev", "--output-tokens-stddev", "--osl-stddev"],
    requires: [{ key: "outputTokensMean", level: "warning", why: "has no effect without an output length" }],
    metavar: "<tokens>",
    yaml: ["benchmark.dataset.prompts.osl.stddev"],
    help: "Standard deviation of the requested output length (normal distribution).",
  },
]);
