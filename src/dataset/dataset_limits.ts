/**
 * Sizes no real benchmark reaches, checked before anything is built so a typo (`--isl 1e12`, an `input_length`
 * of 1e12 in a trace) is a clear input error rather than an allocation failure or an out-of-memory crash: the
 * largest context windows today are about 10 M tokens, and a million distinct synthetic prompts (AIPerf's
 * default is 100) already take about 2 GB to build.
 */

/** Tokens of one synthesized prompt (`--isl`, a trace's `input_length`). */
export const MAX_PROMPT_TOKENS = 10_000_000;
/** Distinct synthetic conversations (`--num-dataset-entries`, `--conversation-num`). */
export const MAX_DATASET_ENTRIES = 1_000_000;
/** Turns of one synthetic conversation. */
export const MAX_TURNS = 10_000;
/** Tokens of synthetic prompt text held in memory at once (about 400 MB of text). */
export const MAX_SYNTHETIC_TOKENS = 100_000_000;
