/**
 * The tokenizer contract shared by prompt synthesis, ISL/OSL counting and the simulated server.
 *
 * Counts never include special tokens (AIPerf encodes with `add_special_tokens=False`).
 */
export interface Tokenizer {
  /** `builtin` (o200k_base) or the path of the tokenizer.json / model directory it was loaded from. */
  readonly name: string;
  /** Token ids of `text`, no special tokens added; special-token text is encoded as plain text. */
  encode(text: string): number[];
  /** Text of `ids`; invalid UTF-8 sequences decode to U+FFFD. */
  decode(ids: readonly number[]): string;
  /** Same as `encode(text).length`, possibly faster (memoized pieces). */
  count(text: string): number;
}
