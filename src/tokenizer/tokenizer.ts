/**
 * The tokenizer contract shared by prompt synthesis, ISL/OSL counting and the simulated server.
 *
 * Counts never include special tokens (AIPerf encodes with `add_special_tokens=False`).
 */
export interface Tokenizer {
  /** `builtin` (o200k_base) or the path of the tokenizer.json / model directory it was loaded from. */
  readonly name: string;
  /** How it runs, for the start-up notice (e.g. which implementation a tokenizer.json got); absent for builtin. */
  readonly engine?: string;
  /** Token ids of `text`, no special tokens added; special-token text is encoded as plain text. */
  encode(text: string): number[];
  /** Text of `ids`; invalid UTF-8 sequences decode to U+FFFD. */
  decode(ids: readonly number[]): string;
  /** Same as `encode(text).length`, possibly faster (memoized pieces). */
  count(text: string): number;
  /**
   * Present only on tokenizers whose pre-tokenizer pieces do not depend on text outside them (see
   * {@linkcode PieceEncoding}); prompt synthesis then picks windows that need no re-encoding to be exact.
   */
  encodeWithPieceStarts?(text: string): PieceEncoding;
  /**
   * Its tables for another thread to count with at once (shared memory: nothing is copied or loaded again);
   * present on tokenizers that have such tables (a tokenizer.json on the fast path).
   */
  share?(): SharedTokenizer;
  /**
   * After a quick first load (hf_tokenizer.ts `quickStart`): builds and caches what later loads read. Resolves
   * once written, or at once when there is nothing to write; never rejects.
   */
  persist?(): Promise<void>;
}

/** {@linkcode Tokenizer.share}'s result: structured-cloneable, its arrays in SharedArrayBuffers. */
export interface SharedTokenizer {
  readonly kind: "hf-bpe";
  readonly name: string;
  /** The implementation's tables (hf_bpe_tables.ts `HfBpeTables` for `hf-bpe`). */
  readonly tables: unknown;
}

/**
 * Token ids with piece boundaries: `boundary[i]` (for `0 ≤ i ≤ ids.length`) is 1 when token `i` starts a
 * pre-tokenizer piece, or `i` is the end and the last piece ends the text; all 0 when the pattern left any
 * character of the text unmatched (pieces are then not contiguous). The promise behind it: for boundaries `i < j`, the text decoded from
 * `ids[i, j)` encodes to exactly `ids[i, j)`. It holds when the pattern has no anchors, no lookbehind and no
 * lookahead other than `(?!\S)` (or `(?!\P{White_Space})`, the same for the `\p{White_Space}` runs of translated
 * Hugging Face patterns): matching starts fresh at a boundary, and cutting the text at a boundary can
 * only end a match where it already ended (a whitespace run followed by non-space is matched as the same
 * piece by `\s+(?!\S)` at the end of the text).
 */
export interface PieceEncoding {
  readonly ids: number[];
  readonly boundary: Uint8Array;
}

/**
 * A tokenizer loaded on first use. The builtin one's tables cost 15–50 ms, and the default synthetic prompts
 * need none of them (they come from a precomputed piece table, `dataset/corpus_piece_table.ts`), so start-up
 * only pays for the tables when something really tokenizes.
 */
export interface LazyTokenizer {
  /** The loaded tokenizer's `name`, known before loading. */
  readonly name: string;
  /** Loads once; later calls return the same promise. */
  load(): Promise<Tokenizer>;
}

/** `load` memoized under `name`. */
export function lazyTokenizer(name: string, load: () => Promise<Tokenizer>): LazyTokenizer {
  let loaded: Promise<Tokenizer> | undefined;
  return { name, load: () => loaded ??= load() };
}

/** A loaded tokenizer, or a lazy one, as a lazy one. */
export function asLazyTokenizer(tokenizer: Tokenizer | LazyTokenizer): LazyTokenizer {
  if ("load" in tokenizer) return tokenizer;
  const loaded = Promise.resolve(tokenizer);
  return { name: tokenizer.name, load: () => loaded };
}
