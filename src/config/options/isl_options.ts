/** `profile` options of the "Input Sequence Length (ISL)" group: the length of synthetic prompts. */
import { MAX_PROMPT_TOKENS } from "../../dataset/dataset_limits.ts";
import { optionGroup } from "./option_group.ts";

export const ISL_OPTIONS = optionGroup("Input Sequence Length (ISL)", [
  {
    key: "syntheticInputTokensMean",
    type: "int",
    default: 550,
    min: 1,
    max: MAX_PROMPT_TOKENS,
    flags: ["--prompt-input-tokens-mean", "--synthetic-input-tokens-mean", "--isl"],
    common: true,
    metavar: "<tokens>",
    yaml: ["benchmark.dataset.prompts.isl.mean"],
    help: "Mean length of synthetic prompts, in tokens.",
  },
  {
    key: "syntheticInputTokensStddev",
    type: "float",
    default: 0,
    min: 0,
    max: MAX_PROMPT_TOKENS,
    flags: ["--prompt-input-tokens-stddev", "--synthetic-input-tokens-stddev", "--isl-stddev"],
    metavar: "<tokens>",
    yaml: ["benchmark.dataset.prompts.isl.stddev"],
    help: "Standard deviation of the synthetic prompt length (normal distribution).",
  },
  {
    key: "randomCorpusStyle",
    type: "enum",
    choices: ["vllm"],
    unsupportedChoices: ["sglang"],
    default: "vllm",
    flags: ["--random-corpus-style"],
    help: "Which tool's random-length rules --random-range-ratio follows: vLLM's symmetric window.",
  },
  {
    key: "seqDist",
    type: "string",
    flags: ["--seq-dist", "--sequence-distribution"],
    metavar: "<pairs>",
    yaml: ["benchmark.dataset.prompts.sequence_distribution"],
    help: "Mixture of (ISL, OSL) pairs with percentages summing to 100, replacing --isl/--osl for synthetic " +
      "prompts: 'ISL[|stddev],OSL[|stddev]:pct;…' (e.g. '128,64:25;512|20,128|5:75'), '[(256,128):40,(512,256):60]' " +
      'or JSON {"pairs": [{"isl", "osl", "prob", "isl_stddev", "osl_stddev"}]}.',
  },
  {
    key: "randomRangeRatio",
    type: "string",
    flags: ["--random-range-ratio"],
    metavar: "<ratio>",
    yaml: ["benchmark.dataset.prompts.random_range_ratio"],
    help: "Draw ISL and OSL uniformly from [floor(mean·(1−r)), ceil(mean·(1+r))] around --isl and --osl (vLLM " +
      'style); a float in [0, 1) for both, or {"input": r1, "output": r2}. Needs --osl; not with --seq-dist or ' +
      "the stddev options.",
  },
  {
    key: "promptCorpus",
    type: "enum",
    choices: ["sonnet", "coding"],
    unsupportedChoices: ["random"],
    flags: ["--prompt-corpus"],
    yaml: ["benchmark.dataset.prompts.corpus"],
    defaultDescription: "sonnet",
    help: "Text synthetic prompts are cut from: 'sonnet' (infermeter's bundled prose, in the place of AIPerf's " +
      "Shakespeare) or 'coding' (generated code, logs, JSON, tracebacks, diffs; seeded).",
  },
  {
    key: "cacheBust",
    type: "enum",
    choices: ["none", "system_prefix", "system_suffix", "first_turn_prefix", "first_turn_suffix"],
    unsupportedChoices: ["warmup_isolation_system", "warmup_isolation_first_turn"],
    defaultDescription: "none",
    flags: ["--cache-bust"],
    yaml: ["benchmark.dataset.prompts.cache_bust.target"],
    help: "Give every session a unique '[rid:<digest>]' marker before/after the system message or the first user " +
      "turn, so sessions never share a cached prompt prefix (the system targets fall back to the first user turn " +
      "when there is no system message). Written payloads are sent as written.",
  },
]);
