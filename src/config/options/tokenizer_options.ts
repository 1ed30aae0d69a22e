/** `profile` options of the "Tokenizer" group: which tokenizer defines a token for input and output lengths. */
import { optionGroup } from "./option_group.ts";

export const TOKENIZER_OPTIONS = optionGroup("Tokenizer", [
  {
    key: "tokenizer",
    type: "string",
    default: "builtin",
    flags: ["--tokenizer"],
    common: true,
    metavar: "<name|path>",
    env: "INFERMETER_TOKENIZER",
    yaml: ["benchmark.tokenizer.name"],
    help: "Tokenizer for prompt synthesis and token counts: a tokenizer.json file or model directory, a hub id " +
      "found in the local Hugging Face cache (HF_HUB_CACHE / HF_HOME; never downloaded), or 'builtin' (o200k_base). " +
      "Default: --model's own tokenizer when the cache has it, else builtin (said at start-up).",
  },
  {
    key: "applyChatTemplate",
    type: "bool",
    default: false,
    flags: ["--apply-chat-template"],
    yaml: ["benchmark.tokenizer.apply_chat_template"],
    help: "Count the ISL of chat-style requests over the model's own chat template (role headers, BOS, generation " +
      "prompt), read from the --tokenizer directory or the Hugging Face cache, as the server tokenizes it.",
  },
  {
    key: "tokenizerRevision",
    type: "string",
    flags: ["--tokenizer-revision"],
    pattern: /^[\w.-]+(\/[\w.-]+)*$/,
    patternHelp: "a branch, tag or commit hash, e.g. main or 0a1b2c3",
    metavar: "<revision>",
    defaultDescription: "main (refs/main in the cache, else the newest snapshot)",
    help: "Revision of a hub tokenizer (--tokenizer or --model as org/name): the snapshot that branch or tag names " +
      "in the local Hugging Face cache, or that commit; never downloaded.",
  },
]);
