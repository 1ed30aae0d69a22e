/**
 * A Hugging Face tokenizer run by `@huggingface/tokenizers` (pure JS: BPE, WordPiece, Unigram; normalizers,
 * pre-tokenizers, decoders): the general path for `tokenizer.json` shapes the fast byte-level BPE path
 * (hf_bpe_tokenizer.ts) does not cover. Its constructor parses the whole vocabulary into Maps (seconds and
 * hundreds of MB for a 150k vocabulary), so this module is only imported when needed.
 *
 * Semantics, matching AIPerf's `tokenizer.encode(text, add_special_tokens=False)`:
 * - no template tokens are added (no BOS/EOS from the post-processor);
 * - text that spells an added token (e.g. `<|im_end|>`) is matched as that token, as `transformers` does by
 *   default. This differs from the builtin tokenizer, which always encodes such text as plain text; it is kept
 *   so that counts agree with AIPerf and with the server's own tokenizer.
 * - `decode` skips nothing and does not clean up spaces, so it renders exactly the tokens given.
 *
 * Never touches the network: a hub id must be resolved to local files by the caller (`load_tokenizer.ts`).
 */
import { Tokenizer as HfTokenizerCore } from "@huggingface/tokenizers";
import type { Tokenizer } from "./tokenizer.ts";

export class HfTokenizer implements Tokenizer {
  readonly name: string;
  readonly engine: string;
  readonly #core: HfTokenizerCore;

  /**
   * @param name Reported as {@linkcode Tokenizer.name} (the path it was loaded from).
   * @param tokenizerJson The parsed `tokenizer.json`.
   * @param tokenizerConfig The parsed `tokenizer_config.json`, or `{}`.
   * @param why Why the fast path does not run this file (said in {@linkcode engine}).
   */
  constructor(
    name: string,
    tokenizerJson: Record<string, unknown>,
    tokenizerConfig: Record<string, unknown> = {},
    why = "",
  ) {
    this.name = name;
    this.engine = `@huggingface/tokenizers${why ? ` (${why})` : ""}`;
    this.#core = new HfTokenizerCore(tokenizerJson, tokenizerConfig);
  }

  encode(text: string): number[] {
    if (text.length === 0) return [];
    try {
      return this.#core.encode(text, { add_special_tokens: false }).ids;
    } catch (error) {
      // The library's pre-tokenizer patterns overflow V8's regular-expression stack on runs of millions of
      // letters without spaces in a two-byte string (hf_long_runs.ts); say so rather than "Maximum call stack".
      if (!(error instanceof RangeError) || !/call stack/.test(error.message)) throw error;
      throw new Error(
        `${this.name}: @huggingface/tokenizers ran out of stack on a text of ${text.length} characters (a run of ` +
          `millions of characters without spaces, which its pre-tokenizer pattern cannot take); count with ` +
          `--tokenizer builtin, or a tokenizer.json of the GPT-2, Llama 3 or Qwen 2 family`,
        { cause: error },
      );
    }
  }

  decode(ids: readonly number[]): string {
    if (ids.length === 0) return "";
    return this.#core.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  }

  count(text: string): number {
    return this.encode(text).length;
  }
}
