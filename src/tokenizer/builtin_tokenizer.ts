/**
 * The builtin tokenizer: OpenAI's o200k_base encoding, with no network and no model files.
 *
 * The rank data comes from js-tiktoken's `ranks/o200k_base` module (pattern, special tokens, base64 ranks); the
 * encoder is our own {@linkcode BpeTokenizer}, which builds its tables in milliseconds where js-tiktoken's
 * constructor takes over a second. The rank module (~2.3 MB of text) is imported dynamically, so commands that
 * never tokenize never load it.
 */
import type { Tokenizer } from "./tokenizer.ts";
import { BpeRanks } from "./bpe_ranks.ts";
import { BpeTokenizer } from "./bpe_tokenizer.ts";
import { readRankCache, writeRankCache } from "./rank_cache.ts";

/**
 * Names the rank data in the table cache (rank_cache.ts): the pinned js-tiktoken version. A test checks it
 * against deno.json, so bumping the package without changing this key fails CI instead of reading stale tables.
 */
export const O200K_CACHE_KEY = "o200k_base-js-tiktoken-1.0.21";

/** The name every builtin tokenizer reports, and the `--tokenizer` value that selects it. */
export const BUILTIN_TOKENIZER_NAME = "builtin";

interface O200kData {
  readonly pat_str: string;
  readonly special_tokens: Readonly<Record<string, number>>;
  readonly ranks: BpeRanks;
}

let o200k: Promise<O200kData> | undefined;

/**
 * Parsed o200k_base tables, shared by every builtin tokenizer in this isolate (they are immutable).
 *
 * The rank module is a 2.3 MB JavaScript file of one object literal. Importing it as JavaScript makes V8 scan
 * all of it (~50 ms cold here); importing the same file as text and `JSON.parse`-ing the literal takes ~16 ms,
 * a fifth of the startup budget saved. Same bytes, same pinned package.
 */
function loadO200k(): Promise<O200kData> {
  o200k ??= (async () => {
    const cached = readRankCache(O200K_CACHE_KEY);
    if (cached !== undefined) {
      return {
        pat_str: cached.patStr,
        special_tokens: cached.specialTokens,
        ranks: BpeRanks.fromSnapshot(cached.ranks),
      };
    }
    const { default: source } = await import("js-tiktoken/ranks/o200k_base", { with: { type: "text" } });
    const data = JSON.parse(source.slice(source.indexOf("{"), source.lastIndexOf("}") + 1)) as {
      pat_str: string;
      special_tokens: Record<string, number>;
      bpe_ranks: string;
    };
    const ranks = BpeRanks.parse(data.bpe_ranks);
    // Not awaited: the write runs on the runtime's I/O threads while this run goes on.
    writeRankCache(O200K_CACHE_KEY, {
      patStr: data.pat_str,
      specialTokens: data.special_tokens,
      ranks: ranks.snapshot(),
    });
    return { pat_str: data.pat_str, special_tokens: data.special_tokens, ranks };
  })();
  return o200k;
}

/** A new o200k_base tokenizer (named `builtin`); the rank tables are loaded once and shared. */
export async function loadBuiltinTokenizer(): Promise<Tokenizer> {
  const data = await loadO200k();
  return new BpeTokenizer({
    name: BUILTIN_TOKENIZER_NAME,
    ranks: data.ranks,
    pattern: data.pat_str,
    specialTokens: data.special_tokens,
  });
}
